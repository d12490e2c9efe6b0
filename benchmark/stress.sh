#!/usr/bin/env bash
# Verdicts under load: does a loaded machine change any verdict? See benchmark/README.md.
#
#   benchmark/stress.sh                 # N=8 conform processes at once, M=2 busy loops, K=5 rounds
#   N=4 M=0 K=3 benchmark/stress.sh
#   PROFILES="a.json b.json" benchmark/stress.sh
#   ARGS="--only reference" benchmark/stress.sh   # extra arguments for every conform run
#
# First every profile is run alone and quietly (`--jobs 1`, nothing else running):
# those verdicts are the baseline. Then, K rounds: M busy loops start, and every
# profile is run by its own `conform run` process, N of them at once (each with its
# default --jobs). Every (round, profile, check) whose status differs from the
# baseline is printed, and the figure at the end is the flips over the pairs judged.
# It also counts the runs conform made again alone (meta.reruns). Like bench.sh it
# reports and never judges: it exits 0 whatever the figure, 1 when conform is not
# built. It builds nothing (run `cargo build --release` first).
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
cd "$root" || exit 1
conform=$root/target/release/conform
n=${N:-8}
m=${M:-2}
k=${K:-5}
for value in "$n" "$k"; do
    case $value in
        '' | *[!0-9]* | 0) echo "stress.sh: N and K must be positive integers" >&2; exit 2 ;;
    esac
done
case $m in '' | *[!0-9]*) echo "stress.sh: M must be a whole number" >&2; exit 2 ;; esac
if [ ! -x "$conform" ]; then
    echo "stress.sh: conform is not built: $conform is missing." >&2
    echo "Build it with: (cd '$root' && cargo build --release)" >&2
    exit 1
fi
# Runs are made as the README's set-up makes them, whatever the caller's shell has.
unset CI NO_COLOR GITHUB_ACTIONS JENKINS_URL FORCE_COLOR CLICOLOR CLICOLOR_FORCE
# bad/waits-for-device-code logs in from its own config dir only where the caller
# set none (see README.md): the corpus's verdicts must not depend on the shell.
unset XDG_CONFIG_HOME

if [ -n "${PROFILES:-}" ]; then
    read -r -a profiles <<<"$PROFILES"
else
    profiles=(conformance/profiles/democli.json conformance/profiles/democli-full.json conformance/profiles/bad/*.json)
fi
read -r -a extra <<<"${ARGS:-}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/conform-stress.XXXXXX")
busy=()
cleanup() {
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# One conform run; its envelope on stdout.
run_one() {
    "$conform" run "${extra[@]}" "$@" </dev/null 2>/dev/null
}
export -f run_one
export conform

echo "stress.sh: ${#profiles[@]} profiles; baseline alone at --jobs 1, then $k rounds of $n conform processes at once beside $m busy loops on $(nproc) CPUs"
mkdir -p "$tmp/base"
for i in "${!profiles[@]}"; do
    run_one --jobs 1 "${profiles[$i]}" >"$tmp/base/$i.json"
done

for round in $(seq 1 "$k"); do
    mkdir -p "$tmp/round$round"
    busy=()
    for _ in $(seq 1 "$m"); do
        (while :; do :; done) &
        busy+=($!)
    done
    start=$(date +%s%N)
    for i in "${!profiles[@]}"; do
        printf '%s\0%s\0' "$i" "${profiles[$i]}"
    done | xargs -0 -n 2 -P "$n" bash -c 'run_one "$2" >"$0/$1.json"' "$tmp/round$round"
    end=$(date +%s%N)
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    busy=()
    printf 'round %s: %s ms, load %s\n' "$round" "$(((end - start) / 1000000))" "$(cut -d' ' -f1-3 /proc/loadavg)"
done

python3 - "$tmp" "$k" "${profiles[@]}" <<'PY'
import json, os, sys
tmp, rounds, profiles = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

def verdicts(path):
    try:
        with open(path, encoding="utf-8") as f:
            envelope = json.load(f)
    except (OSError, ValueError) as e:
        return None, 0, f"no envelope ({e})"
    data = envelope.get("data") or {}
    checks = {c["id"]: c["status"] for c in data.get("checks", [])}
    reruns = (envelope.get("meta") or {}).get("reruns", 0)
    return checks, reruns, None

flips = pairs = reruns = 0
for i, profile in enumerate(profiles):
    base, _, error = verdicts(os.path.join(tmp, "base", f"{i}.json"))
    if base is None:
        print(f"{profile}: the quiet baseline gave {error}")
        continue
    for r in range(1, rounds + 1):
        seen, made_again, error = verdicts(os.path.join(tmp, f"round{r}", f"{i}.json"))
        reruns += made_again
        if seen is None:
            print(f"round {r} {profile}: {error}")
            flips += len(base)
            pairs += len(base)
            continue
        for check, status in base.items():
            pairs += 1
            if seen.get(check) != status:
                flips += 1
                print(f"round {r} {profile} {check}: {seen.get(check)} (quiet: {status})")
print(f"flips: {flips} of {pairs} (profile, check) pairs over {rounds} rounds; runs made again alone: {reruns}")
PY
