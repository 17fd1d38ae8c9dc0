#!/usr/bin/env bash
# How a job of several ranks ends when one rank fails, run as a user would (mpirun, mnrl):
#  1. kill -9 of one rank during training ends the whole job, non-zero, within 30 s (3 times);
#  2. an exception on one rank ends the whole job with a message naming the rank and the cause,
#     and an exit() inside an env plugin is reported as a failure;
#  3. SIGTERM to one rank stops every rank at the same step with one checkpoint of all ranks,
#     which a job of another size refuses to resume;
#  4. a rank stopped (SIGSTOP) or stuck in an env step ends the job at distributed.timeout, the
#     others having named it; ranks that wait for a busy one (IMPALA's actors while their
#     learner evaluates) do not; a learner names an actor that stopped while it collected the
#     actors' states for a checkpoint;
#  5. ranks that run different configs are refused (exit 2) before any work, naming the key;
#  6. pipeline stages: a stage rank killed, or stopped (also in the second of two pipelines),
#     ends the job; two pipelines wait out rank 0's long evaluation; stage layouts that differ
#     between the ranks are refused before any work, naming the key;
#  7. sharded parameter servers (A3C): a server rank other than 0 killed, or stopped, ends the
#     job, the others naming it.
# Usage: failure_test.sh MNRL_BINARY SOURCE_DIR TEST_PLUGIN
set -uo pipefail
mnrl=$1 source_dir=$2 plugin=$3
work=$(mktemp -d)
trap 'pkill -9 -f "$work" 2>/dev/null; rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Starts `mpirun -np 2 mnrl train ARGS...` (-np $ranks where set) in the background; sets job
# (its pid) and log.
start_job() {
  log=$work/job.log
  mpirun --oversubscribe -np "${ranks:-2}" "$mnrl" train "$@" >"$log" 2>&1 &
  job=$!
}

# Waits until FILE exists (training under way), at most 60 s.
wait_for_file() {
  for _ in $(seq 600); do [[ -s $1 ]] && return 0; sleep 0.1; done
  fail "no $1 after 60 s"; return 1
}

# Waits for the job to end within LIMIT seconds; sets status. Kills it if it hangs.
wait_for_job() {
  local limit=$1 start=$SECONDS
  while kill -0 "$job" 2>/dev/null; do
    if (( SECONDS - start > limit )); then
      fail "the job still runs $limit s later (hang)"; kill -9 "$job"; pkill -9 -f "$work"
      wait "$job"; status=-1; return 1
    fi
    sleep 0.2
  done
  wait "$job"; status=$?
  echo "  ended with status $status after $((SECONDS - start)) s"
}

# The pid of rank RANK: mpirun starts the ranks as its children on this host.
rank_pid() {
  for pid in $(pgrep -P "$job"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$pid"; return
    fi
  done
}

# Stops rank RANK (SIGSTOP); the job must end, non-zero, with a message matching PATTERN.
stop_rank() {
  local victim
  victim=$(rank_pid "$1")
  kill -STOP "$victim"
  if wait_for_job 30; then
    [[ $status -ne 0 ]] || fail "the job exited 0 with rank $1 stopped"
    grep -q "$2" "$log" || fail "no message at the timeout: $(tail -3 "$log")"
  fi
  kill -9 "$victim" 2>/dev/null
}

long_run=(--set train.total_steps=100000000 --set train.log_interval=1000)

echo "1. kill -9 of one rank"
for attempt in 1 2 3; do
  start_job "$source_dir/configs/cartpole_ppo.yaml" "${long_run[@]}" --run-dir "$work/kill$attempt"
  wait_for_file "$work/kill$attempt/metrics.csv" || continue
  victim=$(rank_pid $((attempt % 2)))
  [[ -n $victim ]] || { fail "rank pid not found"; continue; }
  kill -9 "$victim"
  wait_for_job 30 && { [[ $status -ne 0 ]] || fail "the job exited 0 after a rank was killed"; }
done

echo "2. an exception on rank 1"
# Writes $work/NAME.yaml: PPO on the test plugin's Throwing-v0, failing on rank 1 as HOW says.
failing_config() {
  cat >"$work/$1.yaml" <<YAML
algo: ppo
env: {id: Throwing-v0, plugin: $plugin, num_envs: 2, kwargs: {after: 300, on_rank: 1, how: $2}}
ppo: {n_steps: 16, batch_size: 32}
train: {total_steps: 100000000}
distributed: {timeout: 4}
YAML
}
failing_config throwing throw
start_job "$work/throwing.yaml" --run-dir "$work/throwing"
if wait_for_job 30; then
  [[ $status -eq 1 ]] || fail "exit status $status, expected 1"
  grep -q "rank 1 of 2" "$log" || fail "the message does not name rank 1"
  grep -q "sensor unplugged" "$log" || fail "the message does not give the cause"
fi

echo "2b. exit() from a plugin on rank 1"
failing_config exiting exit
start_job "$work/exiting.yaml" --run-dir "$work/exiting"
if wait_for_job 30; then
  [[ $status -ne 0 ]] || fail "the job exited 0 after a plugin called exit() on rank 1"
  grep -q "called exit(): an env must not end the process" "$log" ||
    fail "the exit() is not reported: $(tail -3 "$log")"
fi

echo "3. SIGTERM to rank 1"
start_job "$source_dir/configs/cartpole_ppo.yaml" "${long_run[@]}" --run-dir "$work/term"
if wait_for_file "$work/term/metrics.csv"; then
  kill -TERM "$(rank_pid 1)"
  if wait_for_job 30; then
    [[ $status -eq 143 ]] || fail "exit status $status, expected 143"
    grep -q "stopped by a signal to another rank" "$log" || fail "rank 0 did not say why it stopped"
    ! grep -q $'\r' "$log" || fail "a log of a job of several ranks got the live line's redraws"
    grep -q "resume with: mpirun -np 2 mnrl train --resume" "$log" ||
      fail "the resume hint is not the command that resumes a job of 2 ranks"
    checkpoint=$(ls -d "$work"/term/checkpoints/step_* 2>/dev/null | tail -1)
    [[ -f $checkpoint/rank1.agent.state && -f $checkpoint/agent.state ]] ||
      fail "no checkpoint holding both ranks"
    "$mnrl" train --resume "$work/term" >"$work/resume.log" 2>&1
    resume_status=$?
    [[ $resume_status -eq 2 ]] || fail "resume by one process exited $resume_status, expected 2"
    grep -q "written by a job of 2 rank(s)" "$work/resume.log" ||
      fail "the refusal does not say the checkpoint's rank count: $(cat "$work/resume.log")"
  fi
fi

echo "4. a stalled rank: stopped (at three moments), then stuck in an env step"
# Stopped between exchanges, the others name it; stopped in the middle of one, the exchange's
# own guard ends the job. Either way within the timeout and a few seconds.
for delay in 0 0.3 0.7; do
  start_job "$source_dir/configs/cartpole_ppo.yaml" "${long_run[@]}" --set distributed.timeout=4 \
    --run-dir "$work/stopped$delay"
  wait_for_file "$work/stopped$delay/metrics.csv" || continue
  sleep "$delay"
  stop_rank 1 "rank(s) 1 did not join .* within distributed.timeout = 4 s\|which every rank had joined, has not completed within distributed.timeout = 4 s"
done
grep -q "waiting .* for rank(s) 1 (stopped, hung, or stuck in an env step?)" "$work/job.log" ||
  echo "  (the last stop fell inside an exchange: no warning naming the rank)"
failing_config spinning spin
start_job "$work/spinning.yaml" --run-dir "$work/spinning"
if wait_for_job 30; then
  [[ $status -ne 0 ]] || fail "the job exited 0 with a rank stuck in an env step"
  grep -q "rank(s) 1 did not join" "$log" || fail "the message does not name the stuck rank 1"
fi

echo "4b. rank 0 stopped during the final evaluation"
start_job "$source_dir/configs/cartpole_ppo.yaml" --set train.total_steps=2048 \
  --set train.eval_episodes=100000 --set distributed.timeout=4 --run-dir "$work/final"
for _ in $(seq 600); do compgen -G "$work/final/checkpoints/step_*" >/dev/null && break; sleep 0.1; done
stop_rank 0 "rank(s) 0 did not join barrier within distributed.timeout = 4 s"

echo "4c. a learner busy past the timeout while its actors wait (IMPALA, 1 learner, 3 actors)"
# Its actors wait on their full queues while it evaluates for longer than distributed.timeout:
# it says it is busy, they that they wait; the job goes on and ends well.
log=$work/busy.log
timeout 240 mpirun --oversubscribe -np 4 "$mnrl" train "$source_dir/configs/cartpole_impala.yaml" \
  --set train.total_steps=8192 --set train.eval_interval=4096 --set train.eval_episodes=20000 \
  --set distributed.timeout=4 --run-dir "$work/busy" >"$log" 2>&1
status=$?
[[ $status -eq 0 ]] || fail "exit status $status, expected 0: $(grep -v '^\[' "$log" | tail -3)"
! grep -q "did not join\|waiting .* for rank" "$log" || fail "a waiting actor was taken for a hung rank"

echo "4d. an actor stopped while its learner collects the actors' states (IMPALA, 2 actors)"
# The other actor goes on until it has answered; the learner names the silent one at the
# timeout rather than waiting for it for ever (or, stopped between its payload and its state,
# the others' watchdogs name it).
log=$work/job.log
mpirun --oversubscribe -np 3 "$mnrl" train "$source_dir/configs/cartpole_impala.yaml" \
  "${long_run[@]}" --set checkpoint.interval=20000 --set distributed.timeout=4 \
  --run-dir "$work/collect" >"$log" 2>&1 &
job=$!
wait_for_file "$work/collect/metrics.csv" &&
  stop_rank 2 "actor rank(s) 2 sent nothing for 4 s (distributed.timeout) while their learner\|rank(s) 2 did not join .* within distributed.timeout = 4 s"

echo "5. ranks with different configs"
log=$work/mismatch.log
mpirun --oversubscribe -np 1 "$mnrl" train "$source_dir/configs/cartpole_ppo.yaml" \
  --run-dir "$work/mismatch" : -np 1 "$mnrl" train "$source_dir/configs/cartpole_ppo.yaml" \
  --set "network.hidden_sizes=[32,32]" --run-dir "$work/mismatch" >"$log" 2>&1
status=$?
[[ $status -eq 2 ]] || fail "exit status $status, expected 2"
grep -q "rank(s) 1 do not run the same experiment as rank 0 (first difference: 'network.hidden_sizes', rank 0 has '\[64, 64\]', rank 1 has '\[32, 32\]')" "$log" ||
  fail "the refusal does not name the rank and the key"
[[ ! -e $work/mismatch ]] || fail "the refused job wrote its run directory"

echo "6. pipeline stages (PPO cut across 2 ranks): a stage killed, a stage stopped, other layouts"
pipeline=(--set distributed.pipeline_stages=2 --set distributed.micro_batches=4)
start_job "$source_dir/configs/cartpole_ppo.yaml" "${long_run[@]}" "${pipeline[@]}" \
  --run-dir "$work/stage_killed"
if wait_for_file "$work/stage_killed/metrics.csv"; then
  kill -9 "$(rank_pid 1)"
  wait_for_job 30 && { [[ $status -ne 0 ]] || fail "the job exited 0 after a stage was killed"; }
fi
start_job "$source_dir/configs/cartpole_ppo.yaml" "${long_run[@]}" "${pipeline[@]}" \
  --set distributed.timeout=4 --run-dir "$work/stage_stopped"
wait_for_file "$work/stage_stopped/metrics.csv" &&
  stop_rank 1 "rank(s) 1 did not join .* within distributed.timeout = 4 s\|has not completed within distributed.timeout = 4 s"
# Two pipelines side by side (np 4): the second one's stage 1 stopped ends the job at the
# timeout. Its stage 0 names it by its rank in the job (3), whichever sub-communicator waits;
# but rank 1, blocked in the stage replicas' all-reduce with it, cannot say it waits, and rank
# 0's watchdog, waiting for rank 1, may name rank 1 first (docs/distributed.md, Failures).
ranks=4 start_job "$source_dir/configs/cartpole_ppo.yaml" "${long_run[@]}" "${pipeline[@]}" \
  --set distributed.timeout=4 --run-dir "$work/pipelines_stage_stopped"
wait_for_file "$work/pipelines_stage_stopped/metrics.csv" &&
  stop_rank 3 "rank(s) [13] did not join .* within distributed.timeout = 4 s\|has not completed within distributed.timeout = 4 s"
# Two pipelines, rank 0 evaluating past the timeout: the other pipeline's stage 0 waits for it,
# that pipeline's stage 1 for its stage 0 (which says it waits elsewhere); the job goes on.
log=$work/pipelines_busy.log
timeout 240 mpirun --oversubscribe -np 4 "$mnrl" train "$source_dir/configs/cartpole_ppo.yaml" \
  "${pipeline[@]}" --set train.total_steps=8192 --set train.eval_interval=4096 \
  --set train.eval_episodes=20000 --set distributed.timeout=4 --run-dir "$work/pipelines_busy" \
  >"$log" 2>&1
status=$?
[[ $status -eq 0 ]] || fail "exit status $status, expected 0: $(grep -v '^\[' "$log" | tail -3)"
! grep -q "did not join\|has not completed" "$log" || fail "a waiting stage was taken for a hung rank"
log=$work/layouts.log
mpirun --oversubscribe -np 1 "$mnrl" train "$source_dir/configs/cartpole_ppo.yaml" "${pipeline[@]}" \
  --set "network.hidden_sizes=[64,64,64]" --run-dir "$work/layouts" : -np 1 "$mnrl" train \
  "$source_dir/configs/cartpole_ppo.yaml" "${pipeline[@]}" --set "network.hidden_sizes=[64,64,64]" \
  --set "distributed.stage_boundaries=[1]" --run-dir "$work/layouts" >"$log" 2>&1
status=$?
[[ $status -eq 2 ]] || fail "exit status $status, expected 2"
grep -q "rank(s) 1 do not run the same experiment as rank 0 (first difference: 'distributed.stage_boundaries'" "$log" ||
  fail "the refusal does not name the rank and the key: $(tail -2 "$log")"
[[ ! -e $work/layouts ]] || fail "the refused job wrote its run directory"

echo "7. sharded parameter servers (A3C, 2 servers, 1 worker): a server killed, a server stopped"
servers=(--set distributed.parameter_servers=2)
ranks=3 start_job "$source_dir/configs/cartpole_a3c.yaml" "${long_run[@]}" "${servers[@]}" \
  --run-dir "$work/server_killed"
if wait_for_file "$work/server_killed/metrics.csv"; then
  kill -9 "$(rank_pid 1)"
  wait_for_job 30 && { [[ $status -ne 0 ]] || fail "the job exited 0 after a server was killed"; }
fi
ranks=3 start_job "$source_dir/configs/cartpole_a3c.yaml" "${long_run[@]}" "${servers[@]}" \
  --set distributed.timeout=4 --run-dir "$work/server_stopped"
wait_for_file "$work/server_stopped/metrics.csv" &&
  stop_rank 1 "rank(s) 1 did not join receive within distributed.timeout = 4 s"

if (( failures > 0 )); then
  echo "--- last job's output:"; tail -20 "$log"
  exit 1
fi
echo "all failure cases ended the job as they should"
