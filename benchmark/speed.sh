#!/usr/bin/env bash
# Speed and memory of `conform run`, as figures to compare within one run (machines
# here are shared and noisy: read ratios, not absolute times).
#
#   benchmark/speed.sh [ROUNDS]
#
# Prints, per scenario, the median wall time over ROUNDS runs (default 5) and
# conform's peak RSS; then the speed-up of --jobs N over --jobs 1.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}

cargo build --release --quiet
conform=target/release/conform
jobs=$(nproc)

# median_ms CMD...: run CMD $rounds times, print the median wall time in ms.
median_ms() {
    local times=()
    for _ in $(seq "$rounds"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        times+=($(( (end - start) / 1000000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# peak_kib CMD...: conform's maximum resident set size in KiB.
peak_kib() {
    /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1
}

# report NAME CMD...: one line of figures; the median is left in $last_ms.
last_ms=0
report() {
    local name=$1; shift
    last_ms=$(median_ms "$@")
    printf '%-40s %8s ms %10s KiB peak RSS\n' "$name" "$last_ms" "$(peak_kib "$@")"
}

echo "conform speed benchmark: $rounds rounds, $jobs CPUs"
report "democli profile, --jobs 1" "$conform" run conformance/profiles/democli.json --jobs 1
one=$last_ms
report "democli profile, --jobs $jobs" "$conform" run conformance/profiles/democli.json --jobs "$jobs"
many=$last_ms
report "25 broken CLIs, --jobs $jobs" "$conform" run conformance/profiles/bad --jobs "$jobs"
report "validate 25 profiles" "$conform" validate conformance/profiles/bad
awk -v a="$one" -v b="$many" -v j="$jobs" 'BEGIN { if (b > 0) printf "speed-up of --jobs %s over --jobs 1: %.2fx\n", j, a / b }'
