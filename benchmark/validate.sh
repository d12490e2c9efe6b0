#!/usr/bin/env bash
# How `conform validate` and `conform run`'s planning scale with the number of
# probes, as figures (not pass/fail). See benchmark/README.md.
#
#   benchmark/validate.sh                         # 1,000, 10,000 and 100,000 probes
#   SIZES="1000 20000 40000" benchmark/validate.sh
#   RUN_PROBES=0 benchmark/validate.sh            # leave out the run figures
#   CONFORM=/path/to/older/conform benchmark/validate.sh   # another build, to compare
#
# Each size is a generated profile of read probes (unique names, two arguments
# each) against `sh -c :`, which exits at once. The table shows wall time, CPU time
# (user + system: on a shared machine it is the steadier figure) and peak RSS, from
# /usr/bin/time -v. Then, on RUN_PROBES probes (default 10,000), `conform run`:
# `--only help_off_stdout` plans every probe but makes one run (load, validation,
# planning, judging, report), and `--only no_hang_stdin_closed` makes one run per
# probe (the pool at work). It builds nothing (run `cargo build --release` first)
# and exits 0 whatever the figures; 1 when conform is not built.
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
conform=${CONFORM:-$root/target/release/conform}
sizes=${SIZES:-1000 10000 100000}
run_probes=${RUN_PROBES:-10000}

if [ ! -x "$conform" ]; then
    echo "validate.sh: conform is not built: $conform is missing." >&2
    echo "Build it with: (cd '$root' && cargo build --release)" >&2
    exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "validate.sh: /usr/bin/time is missing (Debian: apt-get install time)." >&2
    exit 1
fi
for n in $sizes $run_probes; do
    case $n in
        '' | *[!0-9]*) echo "validate.sh: sizes are whole numbers of probes, not '$n'" >&2; exit 2 ;;
    esac
done
unset CI NO_COLOR GITHUB_ACTIONS FORCE_COLOR CLICOLOR CLICOLOR_FORCE XDG_CONFIG_HOME

tmp=$(mktemp -d "${TMPDIR:-/tmp}/conform-validate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# profile N: write a profile of N read probes and print its path.
profile() {
    local path=$tmp/probes-$1.json
    if [ ! -f "$path" ]; then
        python3 - "$1" "$path" <<'PY'
import json, sys
count, path = int(sys.argv[1]), sys.argv[2]
probes = [{"name": f"get item {i}", "argv": ["get", str(i)], "kind": "read"} for i in range(count)]
profile = {"schema_version": "1.0", "tool": "generated", "command": ["sh", "-c", ":", "sh"],
           "timeout_seconds": 5, "probes": probes}
with open(path, "w", encoding="utf-8") as out:
    json.dump(profile, out, indent=2)
PY
    fi
    echo "$path"
}

# measure LABEL CMD...: one row, from /usr/bin/time -v's own report.
measure() {
    local label=$1
    shift
    /usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr" </dev/null
    local code=$?
    awk -v label="$label" -v code="$code" -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + t[i] }
        /User time/ { user = $2 }
        /System time/ { sys = $2 }
        /Maximum resident set size/ { rss = $2 }
        END { printf "| %s | %.2f | %.2f | %.0f | %s |\n", label, wall, user + sys, rss / 1024, code }
    ' "$tmp/time"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| conform validate | wall s | CPU s | peak RSS MiB | exit |"
echo "|---|---|---|---|---|"
for n in $sizes; do
    path=$(profile "$n")
    measure "$n probes ($(( $(stat -c %s "$path") / 1024 )) KiB)" "$conform" validate "$path"
done

if [ "$run_probes" -gt 0 ]; then
    path=$(profile "$run_probes")
    echo
    echo "| conform run, $run_probes probes | wall s | CPU s | peak RSS MiB | exit |"
    echo "|---|---|---|---|---|"
    measure "--only help_off_stdout (planning, 1 run)" "$conform" run "$path" --only help_off_stdout
    measure "--only no_hang_stdin_closed ($run_probes runs)" "$conform" run "$path" --only no_hang_stdin_closed
fi
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
