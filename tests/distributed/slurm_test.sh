#!/usr/bin/env bash
# mnrl launched by Slurm: a throwaway cluster (slurmctld and one slurmd per host, auth/none, all
# state in a temporary folder, its own ports) on two hosts made of network namespaces, as in
# multi_node_test.sh, or on localhost alone where namespaces cannot be made (no root needed
# there: the daemons then run as the user; MNRL_SLURM_TEST_LOCALHOST=1 picks localhost). Runs
#   - data-parallel PPO with `srun --mpi=pmix`, 2 ranks per host: one job of N ranks, not N
#     single-rank jobs (one header saying N ranks, every rank's state in the checkpoint);
#   - IMPALA with `srun --mpi=pmix -n 3`: a learner and two actors;
#   - examples/slurm/mnrl_job.sbatch (the script docs/distributed.md shows), submitted with
#     sbatch: both its runs, one job of N ranks each.
# Exits 77 (ctest: skipped), saying why, where Slurm is not installed or its daemons do not come
# up within 30 s (a Slurm without auth/none, which 23.11 removed; no cgroup file system for
# slurmd; ...), printing the daemons' logs.
# Usage: slurm_test.sh MNRL_BINARY SOURCE_DIR
set -euo pipefail
mnrl=$1 source_dir=$2
script=$source_dir/examples/slurm/mnrl_job.sbatch
work=$(mktemp -d)
pids=()
netns=()
# "$work/host" N COMMAND...: COMMAND on host N, by exec all the way (so a daemon is the child
# of the timeout that starts it). Host 1 is the head: slurmctld, srun and sbatch run there.
on_head=("$work/host" 1)
printf '#!/bin/sh\nshift\nexec "$@"\n' >"$work/host"  # localhost
chmod +x "$work/host"

skip() { echo "SKIPPED: $*"; exit 77; }

cleanup() {
  set +e
  if ((${#pids[@]})); then
    "${on_head[@]}" timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
    kill "${pids[@]}" 2>/dev/null
    for _ in $(seq 20); do kill -0 "${pids[@]}" 2>/dev/null || break; sleep 0.5; done
    for pid in "${pids[@]}"; do pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null; done
  fi
  for ns in "${netns[@]}"; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

for tool in slurmctld slurmd srun sbatch sinfo scancel; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: slurm-wlm)"
done
[[ -f $script ]] || { echo "FAIL: no $script"; exit 1; }
# A test run inside a Slurm job (a CI runner on a cluster) must not reach that job's cluster.
for variable in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SRUN_|SALLOC_|PMIX_|PMI_|OMPI_COMM_WORLD_)' || true); do
  unset "$variable"
done

# Two hosts if namespaces can be made, else localhost. nsenter, not `ip netns exec`: the latter
# mounts a fresh /sys, without the cgroup file system that slurmd 22.05 wants at start-up.
nodes=(localhost) addresses=(127.0.0.1)
subnet=10.78.$(( $$ % 250 ))
veth=mnsl$(( $$ % 100000 ))
if [[ ${MNRL_SLURM_TEST_LOCALHOST:-0} != 1 ]] && command -v ip >/dev/null && command -v nsenter >/dev/null &&
   command -v unshare >/dev/null && ip netns add "mnrl-slurm-$$-1" 2>/dev/null; then
  netns+=("mnrl-slurm-$$-1")
  if ip netns add "mnrl-slurm-$$-2" 2>/dev/null && netns+=("mnrl-slurm-$$-2") &&
     ip link add "${veth}a" type veth peer name "${veth}b" 2>/dev/null; then
    for i in 1 2; do
      side=$([[ $i == 1 ]] && echo a || echo b)
      ip link set "${veth}$side" netns "mnrl-slurm-$$-$i"
      ip -n "mnrl-slurm-$$-$i" addr add "$subnet.$i/24" dev "${veth}$side"
      ip -n "mnrl-slurm-$$-$i" link set "${veth}$side" up
      ip -n "mnrl-slurm-$$-$i" link set lo up
    done
    nodes=(node1 node2) addresses=("$subnet.1" "$subnet.2")
    cat >"$work/host" <<AGENT
#!/bin/sh
n=\$1; shift
exec nsenter --net=/run/netns/mnrl-slurm-$$-\$n unshare --uts sh -c "hostname node\$n; exec \\"\\\$@\\"" sh "\$@"
AGENT
  fi
fi
echo "hosts: ${nodes[*]}"

# Ports of this run's own (8 apart per pid; a namespace has its own ports anyway).
port=$(( 20000 + ($$ % 5000) * 8 ))
mkdir -p "$work/state" "$work/log"
for node in "${nodes[@]}"; do mkdir -p "$work/spool/$node" "$work/tmp/$node"; done
user=$(id -un)
export SLURM_CONF=$work/slurm.conf
{
  echo "ClusterName=mnrltest"
  echo "SlurmctldHost=${nodes[0]}(${addresses[0]})"
  echo "SlurmctldPort=$port"
  echo "SlurmdPort=$((port + 1))"
  # No munged to run: auth/none and cred/none (Slurm up to 23.02 has them).
  echo "AuthType=auth/none"
  echo "CredType=cred/none"
  echo "SlurmUser=$user"
  echo "SlurmdUser=$user"
  echo "StateSaveLocation=$work/state"
  echo "SlurmdSpoolDir=$work/spool/%n"
  # The PMIx server's folders: one per host, since the namespace hosts share /tmp.
  echo "TmpFS=$work/tmp/%n"
  echo "SlurmctldPidFile=$work/slurmctld.pid"
  echo "SlurmdPidFile=$work/spool/slurmd-%n.pid"
  echo "SlurmctldLogFile=$work/log/slurmctld.log"
  echo "SlurmdLogFile=$work/log/slurmd-%n.log"
  # A container: no cgroups, no accounting, no mail.
  echo "ProctrackType=proctrack/pgid"
  echo "TaskPlugin=task/none"
  echo "JobAcctGatherType=jobacct_gather/none"
  echo "AccountingStorageType=accounting_storage/none"
  echo "MailProg=/bin/true"
  echo "MpiDefault=none"
  echo "SelectType=select/cons_tres"
  echo "SelectTypeParameters=CR_CPU"
  echo "ReturnToService=2"
  # 4 CPUs per host whatever the machine has (ranks may outnumber cores, as with --oversubscribe).
  echo "SlurmdParameters=config_overrides"
  for i in "${!nodes[@]}"; do
    echo "NodeName=${nodes[$i]} NodeAddr=${addresses[$i]} CPUs=4 State=UNKNOWN"
  done
  echo "PartitionName=test Nodes=$(IFS=,; echo "${nodes[*]}") Default=YES MaxTime=INFINITE State=UP"
} >"$SLURM_CONF"

# The daemons live 15 minutes at most, even if this script is killed without its clean-up
# (timeout passes the clean-up's SIGTERM on to them).
daemon_logs() {
  for log in "$work"/log/*; do echo "--- ${log##*/}"; tail -n 8 "$log"; done
}
timeout 900 "${on_head[@]}" slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
for i in "${!nodes[@]}"; do
  timeout 900 "$work/host" $((i + 1)) slurmd -D -f "$SLURM_CONF" -N "${nodes[$i]}" >"$work/log/slurmd-${nodes[$i]}.out" 2>&1 &
  pids+=($!)
done

# Up within 30 s: every node idle, then a one-task job step runs.
idle=0
for _ in $(seq 60); do
  states=$("${on_head[@]}" timeout 5 sinfo -h -N -o %t 2>/dev/null | sort -u | tr '\n' ' ') || states=
  [[ $states == "idle " ]] && { idle=1; break; }
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { daemon_logs; skip "a Slurm daemon exited at start-up (logs above)"; }; done
  sleep 0.5
done
((idle)) || { daemon_logs; skip "the Slurm nodes are not idle after 30 s (states: ${states:-none})"; }
"${on_head[@]}" timeout 30 srun -n 1 true >"$work/log/probe.out" 2>&1 ||
  { cat "$work/log/probe.out"; daemon_logs; skip "Slurm cannot run a job step here"; }
plugins=$("${on_head[@]}" timeout 10 srun --mpi=list 2>&1) || true
grep -qw pmix <<<"$plugins" || skip "this Slurm has no PMIx plugin (srun --mpi=list)"

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# headers LOG: the lines where mnrl says what it trains (rank 0 alone prints one).
headers() { grep -E '^mnrl [^ ]+: training ' "$1" || true; }

# Data parallel: 2 ranks per host, one job of them all.
ranks=$((2 * ${#nodes[@]}))
"${on_head[@]}" timeout 120 srun --mpi=pmix -N ${#nodes[@]} --ntasks-per-node=2 sh -c 'echo "$SLURMD_NODENAME $SLURM_STEP_TASKS_PER_NODE"' \
  >"$work/where.log" 2>&1 || { fail "srun of a shell command"; cat "$work/where.log"; }
echo "tasks per host: $(sort "$work/where.log" | uniq -c | tr -s ' ' | tr '\n' ';')"
"${on_head[@]}" timeout 180 srun --mpi=pmix -N ${#nodes[@]} --ntasks-per-node=2 "$mnrl" train "$source_dir/configs/cartpole_ppo.yaml" \
  --set train.total_steps=1024 --set train.eval_episodes=2 --run-dir "$work/ppo" >"$work/ppo.log" 2>&1 ||
  { fail "data-parallel training under srun"; tail -30 "$work/ppo.log"; }
header=$(headers "$work/ppo.log")
echo "ppo: $header"
[[ $(grep -c . <<<"$header") == 1 && $header == *"x $ranks ranks (mpi)"* ]] ||
  fail "expected one job of $ranks ranks (one header saying so), got: $header"
grep -q "steps: 1024" "$work/ppo/summary.yaml" 2>/dev/null || fail "no summary of 1024 steps"
checkpoint=$(ls -d "$work"/ppo/checkpoints/step_* 2>/dev/null | tail -1) || true
for ((rank = 1; rank < ranks; rank++)); do
  [[ -f $checkpoint/rank$rank.agent.state ]] || fail "the checkpoint lacks rank $rank's state"
done

# IMPALA: rank 0 learns, ranks 1 and 2 act (on the other host too, with two hosts).
"${on_head[@]}" timeout 180 srun --mpi=pmix -N ${#nodes[@]} -n 3 "$mnrl" train "$source_dir/configs/cartpole_impala.yaml" \
  --set train.total_steps=2048 --set train.eval_episodes=2 --run-dir "$work/impala" >"$work/impala.log" 2>&1 ||
  { fail "IMPALA under srun"; tail -30 "$work/impala.log"; }
header=$(headers "$work/impala.log")
echo "impala: $header"
[[ $header == *"training impala"*"1 learner (rank 0) + 2 actors x"*"(mpi)"* ]] ||
  fail "expected IMPALA on 3 ranks, got: $header"
grep -q "steps: 2048" "$work/impala/summary.yaml" 2>/dev/null || fail "no IMPALA summary of 2048 steps"

# The batch script of the docs: both runs, as one job of 2 tasks per host.
# submit_batch: submits it and waits for it to end; sets job, state and output.
# (Polled every half second: `sbatch --wait` polls slowly, some 40 s for a job of 5.)
submit_batch() {
  job=$("${on_head[@]}" timeout 30 env MNRL="$mnrl" MNRL_CONFIGS="$source_dir/configs" MNRL_RUNS="$work/batch" \
    sbatch --parsable -N ${#nodes[@]} --ntasks-per-node=2 --ntasks=$ranks --output="$work/batch-%j.out" \
    "$script" --set train.total_steps=2048 --set train.eval_episodes=2 2>"$work/sbatch.log") ||
    { fail "sbatch $script"; cat "$work/sbatch.log"; }
  state=
  for _ in $(seq 480); do  # 240 s
    [[ -n $job ]] || break
    state=$("${on_head[@]}" timeout 10 scontrol show job -o "$job" 2>/dev/null | grep -oE 'JobState=[A-Z_]+ .*ExitCode=[0-9:]+' |
            sed -E 's/ .* / /') || state=
    [[ $state =~ JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING) || -z $state ]] || break
    sleep 0.5
  done
  echo "batch job $job: $state"
  output=$work/batch-$job.out
  [[ -f $output ]] || output=
}
submit_batch
# Open MPI 4.1 can crash inside MPI_Init under Slurm's PMIx (a peer's first message over TCP
# arrives before this process registered its handlers; 2 job steps in some 70 here, always a
# job's second step). mnrl's crash message says so; such a job is submitted once more.
if [[ $state != "JobState=COMPLETED ExitCode=0:0" && -n $output ]] && grep -q "inside MPI_Init" "$output"; then
  echo "batch job $job: Open MPI crashed inside MPI_Init (its start-up, not mnrl's code): submitting it again"
  grep -B1 -A1 "inside MPI_Init" "$output"
  "${on_head[@]}" timeout 10 scancel "$job" 2>/dev/null || true  # were it still running
  rm -rf "$work/batch"
  submit_batch
fi
[[ $state == "JobState=COMPLETED ExitCode=0:0" ]] || fail "the batch job did not complete (${state:-no state after 240 s})"
[[ -n $output ]] || fail "the batch job wrote no output"
if [[ -n $output ]]; then
  for algo in ppo impala; do
    header=$(headers "$output" | grep "training $algo" || true)
    echo "batch $algo: $header"
    [[ $algo == ppo ]] && layout="x $ranks ranks (mpi)" || layout="+ $((ranks - 1)) actors x"
    [[ $header == *"$layout"* ]] || { fail "the batch job's $algo run was not one job of $ranks ranks"; tail -20 "$output"; }
    grep -q "steps: 2048" "$work"/batch/"$algo"-*/summary.yaml 2>/dev/null || fail "no summary of the batch job's $algo run"
  done
fi

(( failures == 0 )) || exit 1
echo "srun and sbatch ran mnrl as one MPI job on ${#nodes[@]} host(s)"
