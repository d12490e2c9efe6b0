#!/usr/bin/env bash
# How long `conform check` takes under its budget on a CLI of 150 commands whose
# every call costs about 0.7 s of CPU (harness/cli/good/node-like, as a Node CLI),
# set beside the budget, as figures (not pass/fail). See benchmark/README.md.
#
#   benchmark/budget.sh                         # --budget 2m (the default), once
#   BUDGET=90s REPS=3 benchmark/budget.sh       # another budget, three times
#   NONE=1 benchmark/budget.sh                  # also --budget none: slow (half an
#                                               # hour or more on 2 cores)
#   TOOL=heroku benchmark/budget.sh             # a real CLI (on PATH, or a path)
#   NODE_LIKE_WORK=40000 benchmark/budget.sh    # a quick look: calls 10x cheaper
#
# Per run it prints the wall time (and its ratio to the budget: the goal is at
# most 1.25 on 2 cores), the exit code, the commands found, surveyed and judged
# in depth, the runs made, whether the run was cut (meta.partial) and the checks
# failed. It builds nothing (run `cargo build --release` first) and exits 0
# whatever the figures; 1 when conform is not built or TOOL does not run.
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
conform=${CONFORM:-$root/target/release/conform}
tool=${TOOL:-$root/benchmark/harness/cli/good/node-like}
budget=${BUDGET:-2m}
reps=${REPS:-1}

if [ ! -x "$conform" ]; then
    echo "budget.sh: conform is not built: $conform is missing." >&2
    echo "Build it with: (cd '$root' && cargo build --release)" >&2
    exit 1
fi
if ! command -v "$tool" >/dev/null 2>&1; then
    echo "budget.sh: TOOL '$tool' is neither on PATH nor an executable path." >&2
    exit 1
fi
case $reps in
    '' | *[!0-9]* | 0) echo "budget.sh: REPS must be a positive integer, not '$reps'" >&2; exit 2 ;;
esac
unset CI NO_COLOR GITHUB_ACTIONS JENKINS_URL FORCE_COLOR CLICOLOR CLICOLOR_FORCE XDG_CONFIG_HOME

tmp=$(mktemp -d "${TMPDIR:-/tmp}/conform-budget-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# one BUDGET: runs conform check once and prints one row.
one() {
    local b=$1 start end code
    start=$(date +%s.%N)
    "$conform" check --budget "$b" --format json -- "$tool" </dev/null >"$tmp/out.json" 2>"$tmp/err"
    code=$?
    end=$(date +%s.%N)
    python3 - "$b" "$start" "$end" "$code" "$tmp/out.json" <<'PY'
import json, sys
budget, start, end, code, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
wall = end - start
try:
    doc = json.load(open(path))
except Exception as e:
    print(f"{budget:>6}  wall {wall:7.1f}s  exit {code}  no envelope ({e})")
    sys.exit(0)
meta = doc.get("meta", {})
secs = (meta.get("budget") or {}).get("seconds")
ratio = f"{wall / secs:5.2f}x budget" if secs else "   (no budget)"
found = ((meta.get("inferred") or {}).get("commands") or {}).get("found")
surveyed = (meta.get("survey") or {}).get("commands")
depth = (meta.get("depth") or {}).get("commands")
failed = ((doc.get("data") or {}).get("summary") or {}).get("failed")
print(f"{budget:>6}  wall {wall:7.1f}s  {ratio}  exit {code}  found {found}  surveyed {surveyed}  "
      f"in depth {depth}  runs {meta.get('runs')}  partial {bool(meta.get('partial'))}  failed {failed}")
PY
}

echo "conform check on $tool; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$reps"); do
    one "$budget"
done
if [ -n "${NONE:-}" ]; then
    one none
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
