#!/usr/bin/env bash
# Verdicts under load: does a loaded machine change any verdict? See benchmark/README.md.
#
#   benchmark/stress.sh                 # N=8 conform processes at once, M=2 busy loops, K=5 rounds
#   N=4 M=0 K=3 benchmark/stress.sh
#   PROFILES="a.json b.json" benchmark/stress.sh
#   ARGS="--only reference" benchmark/stress.sh   # extra arguments for every conform run
#   COPIES=6 PROFILES=conformance/profiles/bad/huge-envelope.json M=6 benchmark/stress.sh
#                                       # each round runs every profile COPIES times
#
# First every profile is run alone and quietly (`--jobs 1`, nothing else running):
# those verdicts are the baseline. Then, K rounds: M busy loops start, and every
# profile is run by its own `conform run` process, N of them at once (each with its
# default --jobs). Every (round, profile, check) whose status differs from the
# baseline is printed. A change between pass and fail is a flip (the promise is
# none); a skip where the quiet run judged is counted apart, and is allowed only
# when it names a run the machine starved twice. It also counts the runs conform
# made again alone (meta.reruns) and those starved again (meta.starved_again).
# With COPIES=C, each round runs every profile C times, the C copies among the N
# processes at once: the shape of a CI matrix or a harness that runs one heavy
# profile many times. Like bench.sh it
# reports and never judges: it exits 0 whatever the figure, 1 when conform is not
# built. It builds nothing (run `cargo build --release` first).
set -uo pipefail

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P)
cd "$root" || exit 1
conform=$root/target/release/conform
n=${N:-8}
m=${M:-2}
k=${K:-5}
copies=${COPIES:-1}
for value in "$n" "$k" "$copies"; do
    case $value in
        '' | *[!0-9]* | 0) echo "stress.sh: N, K and COPIES must be positive integers" >&2; exit 2 ;;
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
    for c in $(seq 1 "$copies"); do
        for i in "${!profiles[@]}"; do
            printf '%s\0%s\0' "$i.$c" "${profiles[$i]}"
        done
    done | xargs -0 -n 2 -P "$n" bash -c 'run_one "$2" >"$0/$1.json"' "$tmp/round$round"
    end=$(date +%s%N)
    for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    busy=()
    printf 'round %s: %s ms, load %s\n' "$round" "$(((end - start) / 1000000))" "$(cut -d' ' -f1-3 /proc/loadavg)"
done

python3 - "$tmp" "$k" "$copies" "${profiles[@]}" <<'PY'
import json, os, sys
tmp, rounds, copies, profiles = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
STARVED = "the machine never gave this run the CPU it needed"

def verdicts(path):
    try:
        with open(path, encoding="utf-8") as f:
            envelope = json.load(f)
    except (OSError, ValueError) as e:
        return None, {}, f"no envelope ({e})"
    data = envelope.get("data") or {}
    checks = {c["id"]: (c["status"], c.get("skipped_reason") or "") for c in data.get("checks", [])}
    return checks, envelope.get("meta") or {}, None

flips = pairs = reruns = starved_runs = starved_skips = other = 0
for i, profile in enumerate(profiles):
    base, _, error = verdicts(os.path.join(tmp, "base", f"{i}.json"))
    if base is None:
        print(f"{profile}: the quiet baseline gave {error}")
        continue
    for r in range(1, rounds + 1):
        for c in range(1, copies + 1):
            seen, meta, error = verdicts(os.path.join(tmp, f"round{r}", f"{i}.{c}.json"))
            reruns += meta.get("reruns", 0)
            starved_runs += meta.get("starved_again", 0)
            if seen is None:
                print(f"round {r} {profile}: {error}")
                other += len(base)
                pairs += len(base)
                continue
            for check, (status, _) in base.items():
                pairs += 1
                got, reason = seen.get(check, (None, ""))
                if got == status:
                    continue
                if {got, status} == {"pass", "fail"}:
                    flips += 1
                    kind = "FLIP"
                elif got == "skip" and reason.startswith(STARVED):
                    starved_skips += 1
                    kind = "starved"
                else:
                    other += 1
                    kind = "changed"
                print(f"round {r} {profile} {check}: {got} (quiet: {status}) [{kind}] {reason[:160]}")
print(f"flips between pass and fail: {flips} of {pairs} (profile, check) pairs over {rounds} rounds; "
      f"other changes: {other}; skips for runs starved twice: {starved_skips}; "
      f"runs made again alone: {reruns}, of them starved again: {starved_runs}")
PY
