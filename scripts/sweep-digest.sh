#!/usr/bin/env bash
# One digest for a whole sweep, to tell whether two builds (or fast-forward and
# --fixed-steps) run it the same: the first 16 hex digits of a SHA-256 over each run's
# replay command, trace hash and verdict, in sweep order, then the run count and how many
# runs missed their declared expectation.
#
#   scripts/sweep-digest.sh target/release/meshsim --jobs 2        # the default sweep
#   scripts/sweep-digest.sh target/release/meshsim --runtime swarm --consumer reconciling \
#       --seed-range 0..1000 --faults swarm --jobs 2
#
# Prints e.g. `2acb35a193f29124 1008 mismatched 0`. Every argument after the binary goes to
# `meshsim sweep --json`.
set -euo pipefail
meshsim=${1:?usage: scripts/sweep-digest.sh MESHSIM [SWEEP ARGUMENTS...]}
shift
"$meshsim" sweep --json "$@" | python3 -c '
import hashlib, json, sys
digest = hashlib.sha256()
runs = 0
summary = {}
for line in sys.stdin:
    record = json.loads(line)
    if "summary" in record:
        summary = record["summary"]
        continue
    runs += 1
    fields = (record.get("replay", ""), record.get("trace_hash"), record.get("verdict"))
    digest.update(("|".join(str(field) for field in fields) + "\n").encode())
print(digest.hexdigest()[:16], runs, "mismatched", summary.get("mismatched"))
'
