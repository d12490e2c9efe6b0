#!/usr/bin/env bash
# The logic of the GitHub Action (action.yml), kept here so that it can be run and
# tested outside GitHub: run conform on the profiles, append its Markdown summary to
# $GITHUB_STEP_SUMMARY, write the SARIF file, set the step outputs, and fail the job
# when checks failed (exit 4) or the profiles or arguments are invalid (exit 2).
#
# Inputs (environment): INPUT_PROFILES (profile files or directories, separated by
# whitespace), INPUT_ARGS (more `conform run` arguments, split on whitespace),
# INPUT_SARIF (the SARIF file to write, default conform.sarif), CONFORM_BIN (the
# conform binary, default `conform` on PATH).
set -u

conform=${CONFORM_BIN:-conform}
sarif=${INPUT_SARIF:-conform.sarif}
read -r -a profiles <<< "${INPUT_PROFILES:-}"
read -r -a args <<< "${INPUT_ARGS:-}"
if [ "${#profiles[@]}" -eq 0 ]; then
    echo "::error::conform: the profiles input is empty; name profile files or directories"
    exit 2
fi

# conform writes its summary whole to a file of its own; appending keeps what other
# steps wrote to the summary.
markdown=$(mktemp)
trap 'rm -f "$markdown"' EXIT

"$conform" run "${profiles[@]}" --sarif "$sarif" --markdown "$markdown" "${args[@]}"
code=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$markdown" ]; then
    cat "$markdown" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-code=$code" >> "$GITHUB_OUTPUT"
    # No SARIF file when nothing ran (invalid profiles or arguments).
    if [ -f "$sarif" ]; then
        echo "sarif=$sarif" >> "$GITHUB_OUTPUT"
    fi
fi

case $code in
    0) ;;
    4) echo "::error::conform: at least one conformance check failed; see the step summary" ;;
    2) echo "::error::conform: a profile or the arguments are invalid; nothing ran" ;;
    *) echo "::error::conform exited with $code" ;;
esac
exit "$code"
