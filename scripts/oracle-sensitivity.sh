#!/usr/bin/env bash
# Shows that each of the oracle's eight checks is needed: removes one check's call from
# `oracle::check` (scenarios/src/oracle.rs), runs the oracle's unit tests and the
# broken-consumer tests, lists the tests that went red, restores the file, and goes on to
# the next. A check whose removal turns nothing red is reported as untested (exit 1).
#
# Usage: scripts/oracle-sensitivity.sh [extra cargo test arguments for the integration run]
set -euo pipefail
cd "$(dirname "$0")/.."
oracle=scenarios/src/oracle.rs
backup=$(mktemp)
cp "$oracle" "$backup"
trap 'cp "$backup" "$oracle"; rm -f "$backup"' EXIT

# The oracle's unit tests, and the integration tests whose names say what they break.
unit=(cargo test -p meshsim-scenarios --lib oracle::)
broken=(cargo test -p a2a-meshsim --test matrix oracle_sensitivity "$@")

red() {
    # The names of the failed tests in a cargo test log.
    sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$1" | sort
}

untested=0
for check in no_double_apply legal_path view_matches_truth no_orphaned_task one_outcome \
    deadlines_honoured liveness profile_matches_runtime; do
    cp "$backup" "$oracle"
    # The call is the only line that starts with the check's name followed by `(evidence`.
    calls=$(grep -c "^ *${check}(evidence" "$oracle" || true)
    if [ "$calls" != 1 ]; then
        echo "cannot find the one call of ${check} in ${oracle}" >&2
        exit 2
    fi
    sed -i "/^ *${check}(evidence/d" "$oracle"
    log=$(mktemp)
    "${unit[@]}" --no-fail-fast >"$log" 2>&1 || true
    "${broken[@]}" --no-fail-fast >>"$log" 2>&1 || true
    if grep -q "^error\[" "$log"; then
        echo "${check}: the build failed without it:" >&2
        grep -A5 "^error\[" "$log" >&2
        exit 2
    fi
    failed=$(red "$log")
    rm -f "$log"
    if [ -z "$failed" ]; then
        echo "${check} removed: nothing went red"
        untested=1
    else
        echo "${check} removed: $(echo "$failed" | wc -l) red"
        echo "$failed" | sed 's/^/    /'
    fi
done
exit "$untested"
