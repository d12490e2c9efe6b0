#!/usr/bin/env bash
# conform's speed and memory, as figures (not pass/fail). See benchmark/README.md.
#
#   benchmark/bench.sh                      # REPS=5 by default
#   REPS=9 REFKIT=/tmp/refkit benchmark/bench.sh
#   VERBOSE=1 benchmark/bench.sh            # also every measurement, not only medians
#
# Every comparison is measured in this one run, interleaved (A, B, A, B, ...), REPS
# times; the table shows the medians and their ratio. The machine may be shared and
# loaded: read the ratios, not the absolute times, and note the load average printed
# beside them. The script reports and never judges: it exits 0 whether or not a
# target is met, and fails only when conform (or democli) is not built. It does not
# build anything itself (run `cargo build --release` first).
#
# REFKIT: a rebuilt copy of the spec's reference kit (conformance/run.py and a venv
# with its dependencies), outside this repository; it is only read, never copied.
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
cd "$root" || exit 1
conform=$root/target/release/conform
democli=$root/benchmark/harness/cli/good/democli
reps=${REPS:-5}
jobs=$(nproc)

if [ ! -x "$conform" ]; then
    echo "bench.sh: conform is not built: $conform is missing." >&2
    echo "Build it with: (cd '$root' && cargo build --release)" >&2
    exit 1
fi
if ! "$democli" --help >/dev/null 2>&1; then
    echo "bench.sh: democli is not built (benchmark/harness/cli/good/democli fails)." >&2
    echo "Build it with: (cd '$root' && cargo build --release)" >&2
    exit 1
fi
case $reps in
    '' | *[!0-9]* | 0) echo "bench.sh: REPS must be a positive integer, not '$reps'" >&2; exit 2 ;;
esac

# Runs are made the way the README's comparison with the reference kit made them.
unset CI NO_COLOR GITHUB_ACTIONS JENKINS_URL FORCE_COLOR CLICOLOR CLICOLOR_FORCE
# bad/waits-for-device-code logs in from its own config dir only where the caller
# set none (see README.md): the corpus's verdicts must not depend on the shell.
unset XDG_CONFIG_HOME

tmp=$(mktemp -d "${TMPDIR:-/tmp}/conform-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# --- measuring ------------------------------------------------------------------------
# measure [--cwd DIR] [--stdin FILE] [--no-rss] -- CMD...: runs CMD once with stdout
# and stderr to /dev/null (stdin /dev/null unless given) and prints
# "WALL_MS PEAK_RSS_KIB EXIT". Wall time is taken around posix_spawn and waitpid on a
# microsecond clock (validate's few milliseconds are measurable; /usr/bin/time's %e
# has 10 ms steps). The peak RSS is /usr/bin/time's %M, spawned around CMD: measured
# from Python's own wait4, it would include the Python process's size before exec.
# The wrapper adds about a millisecond to both sides of a comparison; --no-rss leaves
# it out (for (5), where the absolute time is the figure).
cat >"$tmp/measure.py" <<'PY'
import os, sys, time
args = sys.argv[1:]
stdin, rss = "/dev/null", True
while args and args[0] != "--":
    if args[0] == "--cwd": os.chdir(args[1]); args = args[2:]
    elif args[0] == "--stdin": stdin = args[1]; args = args[2:]
    elif args[0] == "--no-rss": rss = False; args = args[1:]
    else: sys.exit("measure: unknown option " + args[0])
cmd = args[1:]
out = os.environ["BENCH_TMP"] + "/rss.%d" % os.getpid()
if rss:
    cmd = ["/usr/bin/time", "-f", "%M", "-o", out, "--"] + cmd
actions = [(os.POSIX_SPAWN_OPEN, 0, stdin, os.O_RDONLY, 0),
           (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
           (os.POSIX_SPAWN_DUP2, 1, 2)]
start = time.perf_counter()
pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=actions)
_, status = os.waitpid(pid, 0)
wall = time.perf_counter() - start
kib = 0
if rss:
    with open(out) as f:
        lines = [l for l in f.read().split() if l.isdigit()]
    kib = int(lines[-1]) if lines else 0
    os.unlink(out)
print("%.3f %d %d" % (wall * 1000, kib, os.waitstatus_to_exitcode(status)))
PY
export BENCH_TMP=$tmp
measure() { python3 "$tmp/measure.py" "$@"; }

# median FILE: the median of the numbers in FILE, one a line.
median() { sort -g "$1" | awk '{a[NR] = $1} END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# ratio A B: A / B, two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
ms() { awk -v a="$1" 'BEGIN { if (a >= 100) printf "%.0f ms", a; else printf "%.1f ms", a }'; }
mib() { awk -v a="$1" 'BEGIN { printf "%.1f MiB", a / 1024 }'; }

# interleave NAME_A NAME_B: runs the shell functions run_NAME_A and run_NAME_B (each
# prints measure's line) alternately, REPS times, keeping wall times in
# $tmp/NAME.ms and peak RSS in $tmp/NAME.kib.
interleave() {
    local name rep wall kib
    for name in "$@"; do : >"$tmp/$name.ms"; : >"$tmp/$name.kib"; done
    for rep in $(seq "$reps"); do
        for name in "$@"; do
            read -r wall kib _ < <("run_$name")
            echo "$wall" >>"$tmp/$name.ms"; echo "$kib" >>"$tmp/$name.kib"
        done
        printf '.' >&2
    done
}

rows=()
# row FIGURE CONFORM BASELINE RATIO TARGET
row() { rows+=("$1|$2|$3|$4|$5"); }

echo "conform benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), $jobs CPUs, REPS=$reps, $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- (1) synthetic profile: 200 read probes + 1 invalid probe against /bin/echo -------
python3 - "$tmp/synthetic.json" <<'PY'
import json, sys
probes = [{"name": "read %d" % i, "argv": ["read", str(i)], "kind": "read"} for i in range(200)]
probes.append({"name": "invalid", "argv": ["--no-such-flag"], "kind": "invalid"})
json.dump({"schema_version": "1.0", "tool": "echo", "command": ["/bin/echo"],
           "timeout_seconds": 5, "probes": probes}, open(sys.argv[1], "w"))
PY
# The reference checks make the runs the reference kit makes; every check adds the
# isolated, terminal, locale and kit-made runs of the extensions.
runs_of() {
    "$conform" run "$tmp/synthetic.json" --format json "$@" </dev/null 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["runs"])'
}
runs=$(runs_of --only reference)
all_runs=$(runs_of)
# The same number of /bin/echo processes, with the same kind of arguments.
seq 0 $((runs - 1)) | sed 's/^/read /' >"$tmp/xargs.in"
seq 0 $((all_runs - 1)) | sed 's/^/read /' >"$tmp/xargs-all.in"
run_syn() { measure -- "$conform" run "$tmp/synthetic.json" --only reference --format json; }
run_xargs() { measure --stdin "$tmp/xargs.in" -- xargs -P "$jobs" -L 1 /bin/echo; }
run_synall() { measure -- "$conform" run "$tmp/synthetic.json" --format json; }
run_xargsall() { measure --stdin "$tmp/xargs-all.in" -- xargs -P "$jobs" -L 1 /bin/echo; }
printf '(1) synthetic profile, %s and %s runs, conform vs xargs -P %s ' "$runs" "$all_runs" "$jobs" >&2
interleave syn xargs synall xargsall; echo >&2
syn_ms=$(median "$tmp/syn.ms"); xargs_ms=$(median "$tmp/xargs.ms")
synall_ms=$(median "$tmp/synall.ms"); xargsall_ms=$(median "$tmp/xargsall.ms")
syn_kib=$(sort -n "$tmp/synall.kib" | tail -n 1)
row "(1) synthetic --only reference, $runs runs vs xargs -P $jobs" "$(ms "$syn_ms")" "$(ms "$xargs_ms")" "$(ratio "$syn_ms" "$xargs_ms")" "<= 1.3"
row "(1) synthetic, every check, $all_runs runs vs xargs" "$(ms "$synall_ms")" "$(ms "$xargsall_ms")" "$(ratio "$synall_ms" "$xargsall_ms")" "-"

# --- (2) democli's profile, --jobs N vs --jobs 1 ---------------------------------------
democli_profile=$root/conformance/profiles/democli.json
run_dN() { measure -- "$conform" run "$democli_profile" --jobs "$jobs" --format json --json-report "$tmp/dN.$(wc -l <"$tmp/dN.ms").json"; }
run_d1() { measure -- "$conform" run "$democli_profile" --jobs 1 --format json; }
printf '(2) democli, --jobs %s vs --jobs 1 ' "$jobs" >&2
interleave dN d1; echo >&2
dN_ms=$(median "$tmp/dN.ms"); d1_ms=$(median "$tmp/d1.ms")
# democli's longest single run (its 1 s stream), from each --jobs N report.
for f in "$tmp"/dN.*.json; do
    python3 -c 'import json,sys; print(max(r["duration_ms"] for p in json.load(open(sys.argv[1]))["results"] for r in p["runs"]))' "$f"
done >"$tmp/longest.ms"
longest_ms=$(median "$tmp/longest.ms")
row "(2) democli, --jobs $jobs vs --jobs 1" "$(ms "$dN_ms")" "$(ms "$d1_ms")" "$(ratio "$dN_ms" "$d1_ms")" "-"
row "(2) democli vs its longest run" "$(ms "$dN_ms")" "$(ms "$longest_ms")" "$(ratio "$dN_ms" "$longest_ms")" "<= 1.15"

# --- (3) the 25 broken CLIs in one run vs the longest single profile -------------------
bad=$root/conformance/profiles/bad
printf '(3) timing each of the %s broken-CLI profiles once ' "$(ls "$bad"/*.json | wc -l)" >&2
for p in "$bad"/*.json; do
    read -r wall _ < <(measure -- "$conform" run "$p" --format json)
    echo "$wall $p"
    printf '.' >&2
done | sort -g >"$tmp/bad-alone"
echo >&2
longest_profile=$(tail -n 1 "$tmp/bad-alone" | cut -d' ' -f2-)
run_dir() { measure -- "$conform" run "$bad" --format json; }
run_one() { measure -- "$conform" run "$longest_profile" --format json; }
printf '(3) directory vs %s alone ' "$(basename "$longest_profile")" >&2
interleave dir one; echo >&2
dir_ms=$(median "$tmp/dir.ms"); one_ms=$(median "$tmp/one.ms")
row "(3) bad/ ($(ls "$bad"/*.json | wc -l) profiles) vs $(basename "$longest_profile" .json)" "$(ms "$dir_ms")" "$(ms "$one_ms")" "$(ratio "$dir_ms" "$one_ms")" "<= 1.3"

# --- (4) peak RSS: the synthetic profile, and a tool that prints 1 GiB ----------------
row "(4) peak RSS, synthetic profile" "$(mib "$syn_kib")" "-" "-" "<= 20 MiB"
cat >"$tmp/gigabyte.json" <<JSON
{ "schema_version": "1.0", "tool": "gigabyte",
  "command": ["$root/crates/conform/tests/fixtures/hostile/gigabyte.sh"], "timeout_seconds": 60,
  "probes": [{ "name": "print 1 GiB", "argv": [], "kind": "read" }] }
JSON
run_g16() { measure -- "$conform" run "$tmp/gigabyte.json" --only json_envelope --capture-limit 16M --format json; }
run_g1() { measure -- "$conform" run "$tmp/gigabyte.json" --only json_envelope --capture-limit 1M --format json; }
printf '(4) 1 GiB tool, --capture-limit 16M vs 1M ' >&2
interleave g16 g1; echo >&2
g16_kib=$(sort -n "$tmp/g16.kib" | tail -n 1); g1_kib=$(sort -n "$tmp/g1.kib" | tail -n 1)
# How much of the 15 MiB by which the cap grew shows up in the peak: ~1 means the
# memory follows the cap, not the 1 GiB printed.
growth=$(awk -v a="$g16_kib" -v b="$g1_kib" 'BEGIN { printf "%.2f", (a - b) / (16384 - 1024) }')
row "(4) peak RSS, 1 GiB tool, cap 16M (vs 1M)" "$(mib "$g16_kib")" "$(mib "$g1_kib")" "$growth x cap" "~1: bounded by the cap"

# --- (5) conform validate on a small profile --------------------------------------------
run_val() { measure --no-rss -- "$conform" validate "$democli_profile" --format json; }
run_true() { measure --no-rss -- /bin/true; }
printf '(5) validate democli.json vs /bin/true ' >&2
reps_saved=$reps; reps=$((reps * 4))
interleave val true; echo >&2
reps=$reps_saved
val_ms=$(median "$tmp/val.ms"); true_ms=$(median "$tmp/true.ms")
row "(5) validate democli.json (vs /bin/true)" "$(ms "$val_ms")" "$(ms "$true_ms")" "$(ratio "$val_ms" "$true_ms")" "< 10 ms"

# --- (6) side by side with the spec's reference kit ------------------------------------
refkit_note=""
if [ -n "${REFKIT:-}" ] && [ -f "$REFKIT/conformance/run.py" ] && [ -x "$REFKIT/venv/bin/python" ]; then
    # The kit runs from its own directory, stdin from /dev/null (as measure does).
    run_ref_syn() { measure --cwd "$REFKIT" -- "$REFKIT/venv/bin/python" "$REFKIT/conformance/run.py" "$tmp/synthetic.json"; }
    run_ref_dem() { measure --cwd "$REFKIT" -- "$REFKIT/venv/bin/python" "$REFKIT/conformance/run.py" "$democli_profile"; }
    # The same checks as the kit: the reference 14.
    run_con_syn() { run_syn; }
    run_con_dem() { measure -- "$conform" run "$democli_profile" --only reference --format json; }
    printf '(6) reference kit vs conform ' >&2
    interleave con_syn ref_syn con_dem ref_dem; echo >&2
    cs=$(median "$tmp/con_syn.ms"); rs=$(median "$tmp/ref_syn.ms")
    cd_=$(median "$tmp/con_dem.ms"); rd=$(median "$tmp/ref_dem.ms")
    row "(6) synthetic --only reference, vs the kit" "$(ms "$cs")" "$(ms "$rs")" "$(ratio "$cs" "$rs")" "<= 0.5"
    row "(6) democli --only reference, vs the kit" "$(ms "$cd_")" "$(ms "$rd")" "$(ratio "$cd_" "$rd")" "1 s stream bounds both (>= $(ms "$longest_ms"))"
else
    refkit_note="reference kit: not available (set REFKIT to a rebuilt kit)"
    echo "$refkit_note" >&2
fi

# --- the table -------------------------------------------------------------------------
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo
{
    echo "figure|conform|baseline|ratio|target"
    printf '%s\n' "${rows[@]}"
} | awk -F'|' '
    { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR }
    END {
        for (r = 1; r <= n; r++) {
            line = ""
            for (i = 1; i <= 5; i++) line = line sprintf(i == 1 ? "%-" w[i] "s" : "  %" (i == 5 ? "-" : "") w[i] "s", cell[r, i])
            print line
            if (r == 1) { s = ""; for (i = 1; i <= 5; i++) s = s (i > 1 ? "  " : "") sprintf("%" w[i] "s", "") ; gsub(/ /, "-", s); print s }
        }
    }'
[ -n "$refkit_note" ] && echo "$refkit_note"
echo
if [ -n "${VERBOSE:-}" ]; then
    echo "Every measurement (wall ms, in run order):"
    for f in "$tmp"/*.ms; do
        [ "$(basename "$f")" = longest.ms ] && continue
        printf '  %-8s %s\n' "$(basename "$f" .ms)" "$(tr '\n' ' ' <"$f")"
    done
fi
echo "Medians of $reps interleaved runs ((5): $((reps * 4))); ratio = conform median / baseline median. Peak RSS: the largest of the runs."
exit 0
