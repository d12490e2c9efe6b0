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
# most 1.25 on 2 cores), the exit code, the CPU conform and its runs used over
# the CPU the cores had meanwhile (the goal: 70% or more while work remains),
# the commands found, surveyed and judged in depth, the runs made, whether the
# run was cut (meta.partial), the checks failed, and the failure modes scored
# (how many of them on every command found). It builds nothing (run `cargo build --release` first) and exits 0
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

# one BUDGET: runs conform check once and prints one row. The CPU figure is the
# CPU time of conform and everything it ran (its children, reaped by it) over
# the CPU the machine had during the run (wall time x cores).
one() {
    local b=$1 start end code cpu
    start=$(date +%s.%N)
    cpu=$(python3 - "$conform" "$b" "$tool" "$tmp/out.json" "$tmp/err" <<'PY'
import resource, subprocess, sys
conform, budget, tool, out, err = sys.argv[1:6]
with open(out, "wb") as o, open(err, "wb") as e:
    code = subprocess.call([conform, "check", "--budget", budget, "--format", "json", "--", tool],
                           stdin=subprocess.DEVNULL, stdout=o, stderr=e)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{code} {usage.ru_utime + usage.ru_stime:.1f}")
PY
)
    code=${cpu%% *}
    cpu=${cpu#* }
    end=$(date +%s.%N)
    python3 - "$b" "$start" "$end" "$code" "$tmp/out.json" "$cpu" "$(nproc)" <<'PY'
import json, sys
budget, start, end, code, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
cpu, cores = float(sys.argv[6]), int(sys.argv[7])
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
findings = meta.get("findings") or []
scored = [f for f in findings if f.get("score") is not None]
def whole(f):
    cov = f.get("coverage") or {}
    return not cov or cov.get("judged") == cov.get("found")
full = sum(1 for f in scored if whole(f))
busy = 100 * cpu / (wall * cores) if wall > 0 else 0
print(f"{budget:>6}  wall {wall:7.1f}s  {ratio}  exit {code}  cpu {cpu:.0f}s = {busy:.0f}% of {cores} cores  "
      f"found {found}  surveyed {surveyed}  in depth {depth}  runs {meta.get('runs')}  "
      f"partial {bool(meta.get('partial'))}  failed {failed}  modes scored {len(scored)} ({full} on every command)")
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
