#!/usr/bin/env bash
# The logic of the GitHub Action (action.yml), kept here so that it can be run and
# tested outside GitHub. Three steps, one per argument:
#
#   action.sh key       the cache key of the conform binary and where it lives
#                       (outputs cache-key, bin-dir), for actions/cache
#   action.sh install   put conform on PATH: the cached binary when it is there and
#                       runs (a cache hit builds nothing), else build it with cargo;
#                       where AppArmor restricts unprivileged user namespaces
#                       (Ubuntu 24.04), load a profile that allows them to that
#                       binary alone, so its runs get network namespaces
#   action.sh run       run conform; the text report goes to the job log, the JSON
#                       report, SARIF, JUnit and Markdown to files, the Markdown
#                       also to $GITHUB_STEP_SUMMARY with the network isolation
#                       the runs had; set the outputs; fail the step
#                       when checks failed (4), an input is invalid (2) or conform
#                       failed (1)
#
# Inputs (environment), for `run`:
#   INPUT_PROFILES    profiles or directories for `conform run`
#   INPUT_CHECK       instead of profiles, a tool command line for `conform check`
#   INPUT_ARGS        more arguments for `conform run` or `conform check`
#   INPUT_PARTITION   K/N: only shard K of N (--partition)
#   INPUT_SARIF       SARIF file (default conform.sarif; written also when a profile
#                     is invalid, so that the upload step after it finds it)
#   INPUT_JUNIT, INPUT_MARKDOWN, INPUT_JSON_REPORT   more report files (optional;
#                     the JSON report defaults to $RUNNER_TEMP/conform/report.json)
# Lists (profiles, args, the tool command line) are split into words the way xargs
# and a shell split them, without expanding anything: one item per line, or several
# on a line separated by blanks, and '...' or "..." around an item that holds blanks.
#
# For `key` and `install`: RUNNER_TEMP, RUNNER_OS and RUNNER_ARCH (the runner sets
# them), CONFORM_SOURCE (conform's checkout, default this script's repository), and
# CONFORM_INSTALL_FROM (tests only: copy this built binary instead of running cargo),
# and, tests only, CONFORM_USERNS_RESTRICTION (the file that says whether AppArmor
# restricts user namespaces, default the sysctl's), CONFORM_APPARMOR_PARSER (the
# parser to load the profile with) and CONFORM_APPARMOR_DIR (where to write the
# profile, as the caller, without sudo).
set -u

source_dir=${CONFORM_SOURCE:-$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)}
bin_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/conform-action/bin

fail() {
    echo "::error::conform: $1"
    exit "${2:-2}"
}

output() {
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        echo "$1=$2" >> "$GITHUB_OUTPUT"
    fi
}

# words NAME TEXT: split TEXT into the array NAME, as described above.
words() {
    local -n into=$1
    into=()
    local item
    local split
    if ! split=$(printf '%s\n' "$2" | xargs -r printf '%s\0' 2>&1 >/dev/null); then
        fail "cannot split '$2' into arguments: ${split#xargs: }; close each quote"
    fi
    while IFS= read -r -d '' item; do
        into+=("$item")
    done < <(printf '%s\n' "$2" | xargs -r printf '%s\0')
}

# The digest of conform's sources, so that a cache built from other code is never
# used, whatever the version says.
source_digest() {
    local sum=sha256sum
    command -v sha256sum >/dev/null 2>&1 || sum="shasum -a 256"
    (
        cd "$source_dir" || exit 1
        find Cargo.toml Cargo.lock crates/conform crates/conform-core -type f \
            ! -path '*/target/*' ! -path '*/tests/*' -print 2>/dev/null \
            | LC_ALL=C sort | while IFS= read -r file; do $sum "$file"; done | $sum
    ) | cut -c1-16
}

key() {
    local version
    version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$source_dir/crates/conform/Cargo.toml" | head -n 1)
    [ -n "$version" ] || fail "cannot read conform's version from $source_dir/crates/conform/Cargo.toml" 1
    local os=${RUNNER_OS:-$(uname -s)}
    local arch=${RUNNER_ARCH:-$(uname -m)}
    local cache_key="conform-$version-$os-$arch-$(source_digest)"
    output cache-key "$cache_key"
    output bin-dir "$bin_dir"
    echo "conform binary cache key: $cache_key ($bin_dir)"
}

install() {
    if "$bin_dir/conform" --version >/dev/null 2>&1; then
        echo "conform is cached: $("$bin_dir/conform" --version); nothing to build"
        output cache-hit true
    else
        output cache-hit false
        if [ -n "${CONFORM_INSTALL_FROM:-}" ]; then
            mkdir -p "$bin_dir" && cp "$CONFORM_INSTALL_FROM" "$bin_dir/conform" \
                || fail "cannot copy $CONFORM_INSTALL_FROM to $bin_dir" 1
        else
            echo "conform is not cached: building it (a few minutes, once per version)"
            # cargo install puts the binary in ROOT/bin, the cached directory.
            cargo install --path "$source_dir/crates/conform" --locked --root "${bin_dir%/bin}" \
                || fail "cargo install failed; the runner needs a Rust toolchain (rustup)" 1
        fi
        "$bin_dir/conform" --version >/dev/null 2>&1 || fail "the conform just installed does not run" 1
    fi
    if [ -n "${GITHUB_PATH:-}" ]; then
        echo "$bin_dir" >> "$GITHUB_PATH"
    fi
    output conform "$bin_dir/conform"
    allow_user_namespaces "$bin_dir/conform"
}

# allow_user_namespaces BINARY: where AppArmor restricts unprivileged user
# namespaces (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 24.04 and
# GitHub's ubuntu-24.04 runners), an AppArmor profile that gives them to BINARY
# alone, as Ubuntu ships for the browsers and container tools that sandbox this
# way. The narrow way: the restriction stays for every other program of the job
# (docs/ci.md says why not the sysctl). Without sudo or apparmor_parser the runs
# keep the proxy variables alone, and the report and the job summary say so.
allow_user_namespaces() {
    local binary=$1
    local restriction=${CONFORM_USERNS_RESTRICTION:-/proc/sys/kernel/apparmor_restrict_unprivileged_userns}
    [ "$(cat "$restriction" 2>/dev/null)" = 1 ] || return 0
    local parser=${CONFORM_APPARMOR_PARSER:-apparmor_parser}
    local profile=${CONFORM_APPARMOR_DIR:-/etc/apparmor.d}/conform-action
    local as_root=(sudo -n)
    # Tests write the profile elsewhere, as themselves.
    [ -n "${CONFORM_APPARMOR_DIR:-}" ] && as_root=()
    local fallback="conform's runs get no network namespace (proxy variables only)"
    if ! command -v "$parser" >/dev/null 2>&1 || ! "${as_root[@]}" true 2>/dev/null; then
        echo "::warning::conform: AppArmor restricts user namespaces here and there is no sudo or apparmor_parser to allow them to conform: $fallback"
        return 0
    fi
    # A path with a blank or a quote would need quoting in the profile; the
    # runner's temp directory has none.
    if printf 'abi <abi/4.0>,\ninclude <tunables/global>\n\nprofile conform-action "%s" flags=(unconfined) {\n  userns,\n}\n' "$binary" \
            | "${as_root[@]}" tee "$profile" >/dev/null \
        && "${as_root[@]}" "$parser" -r "$profile"; then
        echo "conform: the AppArmor profile $profile allows user namespaces to $binary"
    else
        echo "::warning::conform: could not load the AppArmor profile $profile: $fallback"
    fi
}

run() {
    local conform=${CONFORM_BIN:-conform}
    if [ -x "$bin_dir/conform" ] && [ -z "${CONFORM_BIN:-}" ]; then
        conform=$bin_dir/conform
    fi
    local profiles tool args
    words profiles "${INPUT_PROFILES:-}"
    words tool "${INPUT_CHECK:-}"
    words args "${INPUT_ARGS:-}"
    local files=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/conform
    mkdir -p "$files" || fail "cannot create $files" 1
    local sarif=${INPUT_SARIF:-conform.sarif}
    local report=${INPUT_JSON_REPORT:-$files/report.json}
    local markdown=${INPUT_MARKDOWN:-$files/summary.md}

    local command
    if [ "${#profiles[@]}" -gt 0 ] && [ "${#tool[@]}" -gt 0 ]; then
        fail "give profiles (conform run) or check (conform check on a tool), not both"
    elif [ "${#profiles[@]}" -gt 0 ]; then
        command=(run "${profiles[@]}")
    elif [ "${#tool[@]}" -gt 0 ]; then
        command=(check)
    else
        fail "name profile files or directories in profiles, or a tool command line in check"
    fi
    # The job log is where a failure is read without a terminal: the whole text
    # report (every check, every failing run with its shell line).
    local flags=(--format text --verbose --sarif "$sarif" --json-report "$report" --markdown "$markdown")
    if [ -n "${INPUT_JUNIT:-}" ]; then
        flags+=(--junit "$INPUT_JUNIT")
    fi
    if [ -n "${INPUT_PARTITION:-}" ]; then
        flags+=(--partition "$INPUT_PARTITION")
    fi
    # A stale file from an earlier step must not pass for this run's.
    rm -f "$sarif" "$report" "$markdown"

    if [ "${command[0]}" = check ]; then
        "$conform" check "${flags[@]}" "${args[@]}" -- "${tool[@]}"
    else
        "$conform" "${command[@]}" "${flags[@]}" "${args[@]}"
    fi
    local code=$?

    if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$markdown" ]; then
        # Appending keeps what earlier steps wrote to the summary.
        cat "$markdown" >> "$GITHUB_STEP_SUMMARY"
        isolation "$report" >> "$GITHUB_STEP_SUMMARY"
    fi
    output exit-code "$code"
    [ -f "$sarif" ] && output sarif "$sarif"
    [ -f "$report" ] && output json-report "$report"
    [ -f "$markdown" ] && output markdown "$markdown"
    if [ -n "${INPUT_JUNIT:-}" ] && [ -f "$INPUT_JUNIT" ]; then
        output junit "$INPUT_JUNIT"
    fi

    case $code in
        0) ;;
        4) echo "::error::conform: at least one conformance check failed; see the step summary" ;;
        2) echo "::error::conform: a profile or an argument is invalid; nothing ran (the SARIF file says why)" ;;
        *) echo "::error::conform exited with $code" ;;
    esac
    exit "$code"
}

# isolation REPORT: a line for the job summary on how the runs at the black hole
# were kept from the network (the report's `network`), when any were.
isolation() {
    local network
    network=$(sed -n 's/^  "network": "\([^"]*\)",\{0,1\}$/\1/p' "$1" 2>/dev/null | head -n 1)
    case $network in
        '') ;;
        namespace) printf '\nNetwork isolation: **namespace** (every connection of the runs at the black hole ended there).\n' ;;
        *) printf '\nNetwork isolation: **%s**: tools that ignore the proxy variables were not held at the black hole (the job log says why and how to allow a namespace).\n' "$network" ;;
    esac
}

case ${1:-run} in
    key) key ;;
    install) install ;;
    run) run ;;
    *) fail "unknown step '$1': use key, install or run" ;;
esac
