#!/usr/bin/env bash
# Queues a meshsim sweep on Slurm: an array of N tasks, each a shard (sweep.sbatch), then
# the merge (merge.sbatch) once all of them finished well.
#   deploy/slurm/submit.sh TASKS OUT_DIR SWEEP ARGS...
#   e.g. deploy/slurm/submit.sh 4 /shared/meshsim-nightly --consumer reconciling --seeds 100000
# OUT_DIR must be visible to every node. MESHSIM names the meshsim binary (default: meshsim
# on the nodes' PATH). With MESHSIM_WAIT=1 it waits for the merge and exits with its status.
# Prints the array's and the merge's job ids.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 TASKS OUT_DIR [SWEEP ARGS...]" >&2
    exit 2
fi
tasks=$1 out=$2
shift 2
case $tasks in '' | *[!0-9]* | 0) echo "$0: TASKS must be a whole number above 0" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export MESHSIM_OUT=$out
array=$(sbatch --parsable --chdir="$out" --array="0-$((tasks - 1))" --export=ALL \
    "$here/sweep.sbatch" "$@")
array=${array%%;*}
wait=()
if [ "${MESHSIM_WAIT:-0}" = 1 ]; then wait=(--wait); fi
echo "array $array"
status=0
merge=$(sbatch --parsable --chdir="$out" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --export=ALL "${wait[@]}" "$here/merge.sbatch") || status=$?
echo "merge ${merge%%;*}"
exit "$status"
