#!/usr/bin/env bash
# How long `conform check -- TOOL` takes on a CLI of 50+ commands, set beside the
# least it could take, as figures (not pass/fail). See benchmark/README.md.
#
#   benchmark/check.sh                      # harness/cli/good/many-commands, REPS=3
#   TOOL=git REPS=5 benchmark/check.sh      # a real CLI (on PATH, or a path)
#   CONFORM=/tmp/old/conform benchmark/check.sh   # another build, to compare
#
# Each rep runs `conform check --format json --json-report R -- TOOL` once, with
# stdin, stdout and stderr away from a terminal. Per rep it takes:
# - wall: around posix_spawn and the wait, on a microsecond clock;
# - the run CPU: user + system time of every process conform waited for (the tool's
#   runs, help calls and exploration runs, and the orphans conform reaps), read from
#   conform's /proc/PID/stat as a zombie, before it is reaped: its cutime + cstime.
#   conform's own CPU (utime + stime, every thread) is that file's other two fields;
# - the longest run: the largest duration_ms in the JSON report (the runs of the
#   checks; the help calls and exploration runs are not in the report).
# The goal is wall <= 1.5 x max(longest run, run CPU / cores): the runs cannot end
# sooner than the longest one, nor before the cores have done their work.
#
# It prints the medians and the load average before and after: on a shared machine
# the tools wait for CPUs others hold, so read the load beside the ratio. It builds
# nothing (run `cargo build --release` first) and exits 0 whatever the figures; 1
# when conform is not built or TOOL does not run, 2 for a bad REPS.
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
conform=${CONFORM:-$root/target/release/conform}
tool=${TOOL:-$root/benchmark/harness/cli/good/many-commands}
reps=${REPS:-3}
cores=$(nproc)

if [ ! -x "$conform" ]; then
    echo "check.sh: conform is not built: $conform is missing." >&2
    echo "Build it with: (cd '$root' && cargo build --release)" >&2
    exit 1
fi
if ! command -v "$tool" >/dev/null 2>&1; then
    echo "check.sh: TOOL '$tool' is neither on PATH nor an executable path." >&2
    exit 1
fi
case $reps in
    '' | *[!0-9]* | 0) echo "check.sh: REPS must be a positive integer, not '$reps'" >&2; exit 2 ;;
esac

# As bench.sh: the tool's verdicts must not depend on the caller's shell.
unset CI NO_COLOR GITHUB_ACTIONS JENKINS_URL FORCE_COLOR CLICOLOR CLICOLOR_FORCE XDG_CONFIG_HOME

tmp=$(mktemp -d "${TMPDIR:-/tmp}/conform-check-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# measure REPORT -- CMD...: runs CMD once (stdin /dev/null, stdout to $tmp/out.json,
# stderr to $tmp/err) and prints "WALL_S RUN_CPU_S OWN_CPU_S EXIT". waitid with
# WNOWAIT leaves the exited process a zombie whose /proc stat still holds its final
# CPU times and those of every child it reaped; then it is reaped.
cat >"$tmp/measure.py" <<'PY'
import os, sys, time
cmd = sys.argv[sys.argv.index("--") + 1:]
tmp = os.environ["BENCH_TMP"]
actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
           (os.POSIX_SPAWN_OPEN, 1, tmp + "/out.json", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
           (os.POSIX_SPAWN_OPEN, 2, tmp + "/err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
start = time.perf_counter()
pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=actions)
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
wall = time.perf_counter() - start
with open("/proc/%d/stat" % pid) as f:
    # Fields after the command name, which may hold spaces: state is field 3.
    fields = f.read().rsplit(")", 1)[1].split()
tick = os.sysconf("SC_CLK_TCK")
utime, stime, cutime, cstime = (int(x) / tick for x in fields[11:15])
_, status = os.waitpid(pid, 0)
print("%.3f %.2f %.2f %d" % (wall, cutime + cstime, utime + stime, os.waitstatus_to_exitcode(status)))
PY
export BENCH_TMP=$tmp

# replay REPORT OUT: the same tool processes with nothing around them, as a baseline
# under the same load: each run of the report that ended within its limit (argv,
# stdin closed, the caller's environment), plus a --help call and a bare run of each
# probe (what exploration makes), from a pool of one worker per CPU. Prints
# "WALL_S CPU_S RUNS"; the CPU is this process's children's, from getrusage.
cat >"$tmp/replay.py" <<'PY'
import json, os, resource, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
report, out, cores = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
argvs = [r["argv"] for p in report["results"] for r in p["runs"] if not r["timed_out"]]
profile = out["meta"]["inferred"]["profile"]
command = profile["command"]
for probe in profile["probes"]:
    if probe["kind"] == "read":
        argvs += [command + probe["argv"] + ["--help"], command + probe["argv"]]
limit = profile.get("timeout_seconds", 5)
cwd = tempfile.mkdtemp(dir=os.environ["BENCH_TMP"])
def run(argv):
    try:
        subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=cwd, timeout=limit)
    except (OSError, subprocess.TimeoutExpired):
        pass
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
with ThreadPoolExecutor(max_workers=cores) as pool:
    list(pool.map(run, argvs))
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print("%.3f %.2f %d" % (wall, cpu, len(argvs)))
PY

# median FILE: the median of the numbers in FILE, one a line.
median() { sort -g "$1" | awk '{a[NR] = $1} END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "conform check benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), $cores CPUs, REPS=$reps, $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "tool: $tool"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$tmp/rows"
for rep in $(seq "$reps"); do
    read -r wall run_cpu own_cpu code < <(python3 "$tmp/measure.py" -- \
        "$conform" check --format json --json-report "$tmp/report.json" -- "$tool")
    # A check that fails is a figure too (exit 4); anything else means no report.
    if [ "$code" != 0 ] && [ "$code" != 4 ]; then
        echo "check.sh: conform check exited $code on rep $rep:" >&2
        head -n 5 "$tmp/err" >&2
        exit 1
    fi
    read -r replay_wall replay_cpu replay_runs < <(python3 "$tmp/replay.py" "$tmp/report.json" "$tmp/out.json" "$cores")
    python3 - "$tmp/report.json" "$tmp/out.json" "$wall" "$run_cpu" "$own_cpu" "$cores" \
        "$replay_wall" "$replay_cpu" "$replay_runs" >>"$tmp/rows" <<'PY'
import json, sys
report, out = (json.load(open(p)) for p in sys.argv[1:3])
wall, run_cpu, own_cpu, cores, replay_wall, replay_cpu, replay_runs = (float(x) for x in sys.argv[3:10])
runs = [r for p in report["results"] for r in p["runs"]]
longest = max((r["duration_ms"] for r in runs), default=0) / 1000
# The profile's duration is the checks' runs; the rest of the wall is finding the
# commands (help calls, exploration runs) and building the profile.
checks_s = sum(p["duration_ms"] for p in report["results"]) / 1000
commands = out["meta"].get("inferred", {}).get("commands", {})
bound = max(longest, run_cpu / cores)
print(wall, run_cpu, own_cpu, longest, bound, wall / bound if bound else 0,
      wall - checks_s, len(runs), commands.get("found", 0), commands.get("probed", 0),
      replay_wall, replay_cpu, int(replay_runs), wall / replay_wall if replay_wall else 0)
PY
    printf '.' >&2
done
echo >&2
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 14); do cut -d' ' -f"$i" "$tmp/rows" >"$tmp/col$i"; done
read -r found probed < <(tail -n 1 "$tmp/rows" | cut -d' ' -f9-10)
echo
echo "commands found / run as probes:        $found / $probed"
echo "runs of the checks (median):           $(median "$tmp/col8")"
printf 'wall time (median):                    %.2f s\n' "$(median "$tmp/col1")"
printf '  of which exploring (median):         %.2f s\n' "$(median "$tmp/col7")"
printf 'longest single run (median):           %.2f s\n' "$(median "$tmp/col4")"
printf 'CPU of the runs, user+sys (median):    %.2f s\n' "$(median "$tmp/col2")"
printf "conform's own CPU (median):            %.2f s\n" "$(median "$tmp/col3")"
printf 'cores:                                 %s\n' "$cores"
printf 'max(longest run, run CPU / cores):     %.2f s\n' "$(median "$tmp/col5")"
printf 'ratio wall / that (median; goal 1.5):  %.2f\n' "$(median "$tmp/col6")"
echo "replay: the same tool processes from a pool of $cores, right after each rep:"
printf '  processes:                           %s\n' "$(median "$tmp/col13")"
printf '  wall (median):                       %.2f s\n' "$(median "$tmp/col11")"
printf '  CPU, user+sys (median):              %.2f s\n' "$(median "$tmp/col12")"
printf '  ratio conform wall / replay wall:    %.2f\n' "$(median "$tmp/col14")"
if [ -n "${VERBOSE:-}" ]; then
    echo
    echo "Every rep: wall run_cpu own_cpu longest bound ratio exploring runs found probed replay_wall replay_cpu replay_runs replay_ratio"
    sed 's/^/  /' "$tmp/rows"
fi
exit 0
