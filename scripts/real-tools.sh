#!/usr/bin/env bash
# Runs `conform check` on the real CLIs listed in docs/real-tools/tools.txt, each
# installed (once) into its own directory under $REAL_TOOLS_DIR, and writes one
# summary per tool to docs/real-tools/results/NAME.json; then regenerates the table
# in docs/real-tools.md from those summaries and docs/real-tools/verdicts.json.
#
# usage: scripts/real-tools.sh [NAME...]    (default: every row)
# env:   CONFORM         the conform binary (default: target/release/conform)
#        REAL_TOOLS_DIR  where the CLIs are installed (default: $TMPDIR/conform-real-tools)
#
# It needs the npm registry and PyPI for the installs; every conform run is
# hermetic (conform check's black hole, no credentials), from an empty directory.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
conform=${CONFORM:-$root/target/release/conform}
dir=${REAL_TOOLS_DIR:-${TMPDIR:-/tmp}/conform-real-tools}
results=$root/docs/real-tools/results
[ -x "$conform" ] || { echo "real-tools.sh: no conform at $conform: run cargo build --release first" >&2; exit 2; }
mkdir -p "$dir" "$results"
# The commit conform was built from, as the rows record it (CONFORM may name
# another build: then say so in CONFORM_BUILD).
# Only the engine makes a build dirty: the results this script writes do not.
build=${CONFORM_BUILD:-$(git -C "$root" describe --always 2>/dev/null || echo unknown)}
if [ -z "${CONFORM_BUILD:-}" ] && ! git -C "$root" diff --quiet HEAD -- crates Cargo.lock 2>/dev/null; then
  build=$build-dirty
fi

install() { # name ecosystem package command
  local into=$dir/$1
  [ -x "$into/$4" ] && return 0
  case $2 in
    npm) npm install --prefix "$into" --no-audit --no-fund --loglevel=error "$3" >&2 ;;
    pip) python3 -m venv "$into" && "$into/bin/pip" install --disable-pip-version-check --no-input -q "$3" >&2 ;;
    system) ;;
    *) echo "real-tools.sh: $1: unknown ecosystem $2" >&2; return 2 ;;
  esac
}

while read -r name ecosystem package command; do
  case $name in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx -- "$name"; then continue; fi
  install "$name" "$ecosystem" "$package" "$command"
  tool=$dir/$name/$command
  [ "$ecosystem" = system ] && tool=$command
  work=$(mktemp -d)
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  start=$(date +%s.%N)
  # The CPU conform and everything it ran used (its children, reaped by it).
  cpu=$(cd "$work" && python3 - "$conform" "$tool" <<'PY'
import os, resource, subprocess, sys
conform, tool = sys.argv[1:3]
env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
with open("envelope.json", "wb") as out, open("stderr", "wb") as err:
    subprocess.call([conform, "check", "--format", "json", "--", tool], env=env,
                    stdin=subprocess.DEVNULL, stdout=out, stderr=err)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{usage.ru_utime + usage.ru_stime:.1f}")
PY
) || cpu=null
  end=$(date +%s.%N)
  load_after=$(cut -d' ' -f1 /proc/loadavg)
  python3 - "$work/envelope.json" "$name" "$package" "$command" "$start" "$end" \
    "$load_before" "$load_after" "$build" "$cpu" "$(nproc)" >"$results/$name.json" <<'PY'
import json, sys, collections
path, name, package, command, start, end, before, after, build, cpu, cores = sys.argv[1:]
envelope = json.load(open(path))
meta = envelope.get("meta") or {}
inferred = meta.get("inferred") or {}
commands = inferred.get("commands") or {}
checks = (envelope.get("data") or {}).get("checks") or []
error = envelope.get("error") or {}
left_out = commands.get("left_out", [])
why = collections.Counter(entry.get("reason", "").split(":")[0] for entry in left_out)
summary = {
    "name": name,
    "package": package,
    "command": command,
    "conform_version": meta.get("tool_version"),
    "conform_build": build,
    "source": inferred.get("source"),
    "found": commands.get("found"),
    "probed": commands.get("probed"),
    "check_only": len(commands.get("check_only", [])),
    "left_out": len(left_out),
    "left_out_why": dict(sorted(why.items())),
    "surveyed": (meta.get("survey") or {}).get("commands"),
    "not_surveyed": len((meta.get("survey") or {}).get("not_surveyed") or []),
    "in_depth": (meta.get("depth") or {}).get("commands"),
    "budget": (meta.get("budget") or {}).get("shown"),
    "partial": bool(meta.get("partial")),
    "failed": sorted(c["id"] for c in checks if c["status"] == "fail"),
    "passed": sum(c["status"] == "pass" for c in checks),
    "skipped": sum(c["status"] == "skip" for c in checks),
    "runs": meta.get("runs"),
    "error": error.get("message"),
    "wall_s": round(float(end) - float(start), 1),
    "cpu_s": None if cpu == "null" else float(cpu),
    "cores": int(cores),
    "load": [float(before), float(after)],
}
print(json.dumps(summary, indent=2))
PY
  mv "$work/envelope.json" "$dir/$name.envelope.json" && rm -rf "$work"
  echo "real-tools.sh: $name: $(python3 -c 'import json,sys;d=json.load(open(sys.argv[1]));print(len(d["failed"]),"failed in",d["wall_s"],"s")' "$results/$name.json")" >&2
done <"$root/docs/real-tools/tools.txt"

cd "$root" && CONFORM_BLESS=1 cargo test -q -p agent-conform --test integration real_tools >&2
