#!/usr/bin/env bash
# What a network namespace costs a run at the black hole, as figures (not
# pass/fail). See benchmark/README.md and docs/runs.md.
#
#   benchmark/netns.sh                          # PROBES=40 REPS=5
#   CONFORM=/path/to/conform benchmark/netns.sh
#
# A synthetic profile of PROBES read probes of `true` is run with `--only
# network_timeout`, so that every run is a black-hole run, interleaved (namespace,
# proxy variables only, ...) REPS times; CONFORM_TEST_NO_NETNS=1 makes the second.
# The medians' difference over the runs made is the namespace's cost per run. On
# a machine that gives no namespace both columns are the fallback.
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
conform=${CONFORM:-$root/target/release/conform}
probes=${PROBES:-40}
reps=${REPS:-5}
if [ ! -x "$conform" ]; then
    echo "netns.sh: conform is not built: $conform is missing (CONFORM= names another)." >&2
    exit 1
fi
case $probes$reps in
    *[!0-9]*) echo "netns.sh: PROBES and REPS must be positive integers" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    printf '{"schema_version":"1.0","tool":"true","command":["true"],"timeout_seconds":5,"probes":['
    for i in $(seq 1 "$probes"); do
        [ "$i" -gt 1 ] && printf ','
        printf '{"name":"p%d","argv":["p%d"],"kind":"read"}' "$i" "$i"
    done
    printf ']}\n'
} >"$work/profile.json"

# Milliseconds of one `conform run`, and the runs it made.
measure() {
    local start end
    start=$(date +%s%N)
    env "$@" "$conform" run "$work/profile.json" --only network_timeout \
        --json-report "$work/report.json" >/dev/null 2>&1
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

: >"$work/ns"
: >"$work/proxy"
for _ in $(seq 1 "$reps"); do
    measure CONFORM_NETNS_BENCH=1 >>"$work/ns"
    measure CONFORM_TEST_NO_NETNS=1 >>"$work/proxy"
done
runs=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["results"][0]["runs"]))' "$work/report.json" 2>/dev/null || echo "$probes")
ns=$(median <"$work/ns")
proxy=$(median <"$work/proxy")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "runs per conform run: $runs (reps: $reps)"
echo "namespace:             ${ns} ms (median)"
echo "proxy variables only:  ${proxy} ms (median)"
awk -v a="$ns" -v b="$proxy" -v n="$runs" \
    'BEGIN { printf "namespace cost:        %.2f ms per run\n", (a - b) / n }'
