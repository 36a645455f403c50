#!/usr/bin/env bash
# Runs deploy/slurm on a real Slurm cluster of one node, started here from Debian's packages
# (munge, slurmctld, slurmd; installed with apt-get when missing), and checks that the merge
# of a 4-task job array's shards equals one process's `meshsim sweep --json` byte for byte.
# Prints both wall times. Every daemon it starts runs in the foreground of this script, with
# its own key, socket, ports, state and logs under one temporary directory, and is stopped
# (and the directory removed) when the script ends, however it ends.
#   scripts/slurm-local.sh [SWEEP ARGS...]      (default: --consumer reconciling --seeds 16)
# MESHSIM names the binary (default: target/debug/meshsim, built with cargo). Needs root
# (the daemons run as root, as in a container). Exit status 0 when the outputs are equal.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tasks=4
if [ $# -eq 0 ]; then
    set -- --consumer reconciling --seeds 16
fi

say() { echo "slurm-local: $*" >&2; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
    say "installing munge, slurmctld, slurmd and slurm-client with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        munge slurmctld slurmd slurm-client >/dev/null
fi
if [ -z "${MESHSIM:-}" ]; then
    cargo build --locked --quiet --bin meshsim
    MESHSIM=$repo/target/debug/meshsim
fi
export MESHSIM

dir=$(mktemp -d /tmp/meshsim-slurm.XXXXXX)
pids=()
current=
stop() {
    status=$?
    if [ -n "$current" ]; then
        kill -TERM "$current" 2>/dev/null || true
        wait "$current" 2>/dev/null || true
    fi
    if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
        scancel --quiet --full --user=root 2>/dev/null || true
        for _ in $(seq 100); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 0.2
        done
    fi
    # slurmd, then slurmctld, then munged: the reverse of their start.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2>/dev/null || true
        wait "${pids[i]}" 2>/dev/null || true
    done
    if [ "$status" -ne 0 ]; then
        for log in "$dir"/log/*.log; do
            [ -f "$log" ] && { say "--- $log"; tail -n 15 "$log" >&2; }
        done
    fi
    rm -rf "$dir"
    exit "$status"
}
trap stop EXIT
trap 'exit 130' INT TERM

mkdir -p "$dir"/{munge,etc,state,spool,log,run,out}
chmod 700 "$dir"/munge
# A fresh key for this cluster alone.
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
munged --foreground --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/seed" 2>>"$dir/log/munged.log" &
pids+=($!)
for _ in $(seq 100); do [ -S "$dir/munge/socket" ] && break; sleep 0.1; done
[ -S "$dir/munge/socket" ] || { say "munged did not start"; exit 1; }

node=$(hostname -s)
cpus=$(nproc)
# Ports of this run's own (two free ones above 20000, from the script's pid).
port=$((20000 + ($$ % 20000) * 2))
export SLURM_CONF=$dir/etc/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=meshsim-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -D -i -f "$SLURM_CONF" 2>>"$dir/log/slurmctld.log" &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" 2>>"$dir/log/slurmd.log" &
pids+=($!)
for _ in $(seq 150); do
    [ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] && break
    sleep 0.2
done
[ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] || { say "the node did not come up"; exit 1; }
say "cluster up: node $node, $cpus CPUs, slurmctld on port $port"

# The wall clock: the script times the runs it reports.
now() { date +%s.%N; }
since() { awk -v from="$1" -v to="$(now)" 'BEGIN { printf "%.1f", to - from }'; }
say "sweep on Slurm: deploy/slurm/submit.sh $tasks OUT $*"
start=$(now)
merge_status=0
# In the background and waited for, so that a signal (timeout) runs the stop trap at once.
MESHSIM_WAIT=1 deploy/slurm/submit.sh "$tasks" "$dir/out" "$@" >&2 &
current=$!
wait "$current" || merge_status=$?
slurm_seconds=$(since "$start")
say "merge job exit status $merge_status"
[ "$merge_status" -le 1 ] || { say "the merge refused the shards:"; cat "$dir"/out/meshsim-merge-*.log >&2; exit 1; }
for shard in "$dir"/out/shard-*.jsonl; do
    say "$(basename "$shard"): $(wc -l <"$shard") lines"
done

say "one process: $MESHSIM sweep --json $*"
start=$(now)
single_status=0
"$MESHSIM" sweep --json "$@" >"$dir/single.jsonl" &
current=$!
wait "$current" || single_status=$?
single_seconds=$(since "$start")
[ "$single_status" -eq "$merge_status" ] ||
    { say "exit status: merge $merge_status, one process $single_status"; exit 1; }
if ! cmp "$dir/out/merged.jsonl" "$dir/single.jsonl" >&2; then
    say "the merged output differs from the single sweep's"
    exit 1
fi
tail -n 3 "$dir/out/verdict.txt" >&2
printf 'slurm-local: identical: %s lines, %s bytes; Slurm array of %s + merge %s s, one process %s s\n' \
    "$(wc -l <"$dir/single.jsonl")" "$(wc -c <"$dir/single.jsonl")" "$tasks" \
    "$slurm_seconds" "$single_seconds"
