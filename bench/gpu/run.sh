#!/usr/bin/env bash
# On a machine with a GPU and a CUDA LibTorch: builds mnrl against that LibTorch and runs the
# GPU checks and benchmarks of docs/BENCHMARKS.md ("GPU"), in two phases that fit one device
# call each (the lent machine takes at most 10 minutes a command):
#   checks: the build, the tests labelled gpu, NCCL at np 2 (each rank a host name of its own:
#           unshare --uts, since NCCL refuses two ranks on one GPU of one host), and that two
#           ranks on one GPU are refused by name, and one update eager vs as a CUDA graph;
#   speed:  cuda-vs-cpu training speeds (cuda: PPO's and DQN's steps as CUDA graphs, and
#           eagerly) and all-reduce bandwidth per backend (needs checks' build);
#   learners: IMPALA's and Ape-X's learners on the GPU with actors on the CPU (one learner, and
#           two averaging over MPI), and IMPALA with 14 CPU actors, its learner on cuda vs cpu:
#           env steps/s and the learner's wait share (needs checks' build);
#   bf16:   MinAtar Breakout PPO learning in train.precision: bf16 to an evaluation of 5 within
#           its 500k steps, as the CPU learning test does in fp32 (needs checks' build);
#   offpolicy: SAC's and TD3's cuda-vs-cpu training speeds on Pendulum (cuda: their steps as
#           CUDA graphs, and SAC's eagerly) (needs checks' build).
#
#   bench/gpu/run.sh [checks|speed|learners|bf16|offpolicy|all] [OUT_DIR]   (TORCH_DIR defaults to the pip wheel's LibTorch)
#   REPEATS=N repeats the speed table (default 1: one repeat fits a 10-minute device call).
#
# Each step is bounded by `timeout` and logs to OUT_DIR (default gpu-results), so a step that
# fails or stalls leaves the others' results.
set -uo pipefail
cd "$(dirname "$0")/../.."
phase=${1:-all}
out=${2:-gpu-results}
mkdir -p "$out"
: "${TORCH_DIR:=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
build=build-gpu
mnrl=$build/apps/mnrl
two_hosts=bench/gpu/two_hosts.sh
step() {  # step NAME SECONDS COMMAND...: runs it, logs to $out/NAME.log, says how it ended
  local name=$1 seconds=$2
  shift 2
  local start=$SECONDS
  timeout "$seconds" "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $? in $((SECONDS - start)) s" | tee -a "$out/summary.txt"
}

checks() {
  nvidia-smi -L > "$out/gpu.txt" 2>&1
  local generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  step configure 120 cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTorch_DIR="$TORCH_DIR" -DMNRL_WITH_NCCL=ON -DMNRL_BUILD_BENCH=ON
  step build 420 cmake --build "$build" --parallel "$(nproc)" --target mnrl gpu_training_tests \
    gpu_communicator_tests allreduce_bench captured_update
  # The test programs run directly: ctest reads every test program's list, built or not.
  step gpu_training_tests 240 bash -c "cd $build/tests/experiments && ./gpu_training_tests"
  step nccl_np1 60 mpirun -np 1 "$build/tests/distributed/gpu_communicator_tests"
  step nccl_np2 90 $two_hosts "$build/tests/distributed/gpu_communicator_tests"
  # Two ranks on one GPU of one host: refused by name before NCCL's own "invalid usage".
  step duplicate_gpu_refused 60 bash -c "mpirun -np 2 $build/bench/allreduce_bench \
    --backend nccl 2>&1 | tee /dev/stderr | grep 'Duplicate GPU detected'"
  step captured_update 120 "$build/bench/captured_update"
}

# One training run's speed: env steps per second on its last progress line (shown after 2 s: a
# run needs steps for more than that), cut at 25 s.
train_speed() {  # train_speed NAME CONFIG DEVICE STEPS [--set ...]
  local name=$1 config=$2 device=$3 steps=$4
  shift 4
  step "sps_$name" 25 "$mnrl" train "$config" --set train.device="$device" \
    --set train.total_steps="$steps" --set train.eval_interval=0 --set train.eval_episodes=1 \
    --run-dir "$out/runs/$name" --progress lines "$@"
}

speed() {
  # All-reduce bandwidth per backend at np 2: host memory over MPI; GPU memory through NCCL and
  # through hierarchical (NCCL within a host, MPI between hosts: here two namespaces).
  step allreduce_mpi 60 mpirun -np 2 "$build/bench/allreduce_bench" --backend mpi
  for backend in nccl hierarchical; do
    step "allreduce_$backend" 60 $two_hosts "$build/bench/allreduce_bench" --backend $backend
  done
  # A repeat's cpu runs go together, one core each (16 cores, one intra-op thread per run); then
  # its cuda runs one at a time, alone (`wait` waits for the cpu ones first).
  for repeat in $(seq "${REPEATS:-1}"); do
    for device in cpu cuda; do
      for algo in ppo dqn; do
        for width in 64 256 1024; do
          steps=12000
          [ $device = cpu ] && [ $width = 64 ] && steps=60000
          train_speed "${algo}_${width}_${device}_$repeat" "configs/cartpole_$algo.yaml" $device \
            $steps --set "network.hidden_sizes=[$width,$width]" &
          [ $device = cuda ] && wait
        done
        train_speed "minatar_${algo}_${device}_$repeat" "configs/minatar_breakout_$algo.yaml" \
          $device 20000 &
        [ $device = cuda ] && wait
      done
      # The large-batch MinAtar config (64 envs, minibatches of 2,048): where a GPU should pay.
      train_speed "minatar64_ppo_${device}_$repeat" configs/minatar_breakout_ppo_64envs.yaml \
        $device 40000 &
      [ $device = cuda ] && wait
    done
    # The gradient steps eagerly on cuda (the rows above replay them as CUDA graphs).
    for width in 64 256 1024; do
      train_speed "ppo_${width}_cuda_eager_$repeat" configs/cartpole_ppo.yaml cuda 12000 \
        --set "network.hidden_sizes=[$width,$width]" --set train.cuda_graphs=off
    done
    for width in 64 256; do
      train_speed "dqn_${width}_cuda_eager_$repeat" configs/cartpole_dqn.yaml cuda 12000 \
        --set "network.hidden_sizes=[$width,$width]" --set train.cuda_graphs=off
    done
    train_speed "minatar_ppo_cuda_eager_$repeat" configs/minatar_breakout_ppo.yaml cuda 20000 \
      --set train.cuda_graphs=off
    wait
  done
  for f in "$out"/sps_*.log; do echo "$(basename "$f" .log): $(grep -o '[0-9,]* SPS' "$f" | tail -1)"; done \
    | tee "$out/sps.txt"
  rm -rf "$out/runs"
}

offpolicy() {
  # As speed(): the cpu runs together, then the cuda runs alone. Pendulum's one env: one
  # gradient step of batch 256 per env step, the shape where launch overhead dominates.
  for device in cpu cuda; do
    for algo in sac td3; do
      for width in 64 256 1024; do
        train_speed "${algo}_${width}_$device" "configs/pendulum_$algo.yaml" $device 20000 \
          --set "network.hidden_sizes=[$width,$width]" --set $algo.learning_starts=1000 &
        [ $device = cuda ] && wait
      done
    done
  done
  for width in 64 256 1024; do
    train_speed "sac_${width}_cuda_eager" configs/pendulum_sac.yaml cuda 20000 \
      --set "network.hidden_sizes=[$width,$width]" --set train.cuda_graphs=off
  done
  wait
  for f in "$out"/sps_{sac,td3}_*.log; do
    echo "$(basename "$f" .log): $(grep -o '[0-9,]* SPS' "$f" | tail -1)"
  done | tee "$out/sps_offpolicy.txt"
  rm -rf "$out/runs"
}

# The last value of metric `name` in a run's metrics.csv (step,wall_time,name,value rows).
last_metric() {  # last_metric RUN_DIR NAME
  grep ",$2," "$1/metrics.csv" 2> /dev/null | tail -1 | cut -d, -f4
}

learners() {
  local common=(--set train.eval_interval=0 --set train.eval_episodes=1 --progress lines)
  for algo in impala apex; do
    step "${algo}_gpu_learner_np3" 150 mpirun -np 3 "$mnrl" train "configs/cartpole_$algo.yaml" \
      --set train.device=cuda --set train.total_steps=30000 --run-dir "$out/runs/${algo}_np3" \
      "${common[@]}"
    # Two learners on one GPU average over MPI (NCCL refuses two ranks on one GPU of a host).
    step "${algo}_two_gpu_learners_np4" 150 mpirun -np 4 "$mnrl" train \
      "configs/cartpole_$algo.yaml" --set train.device=cuda --set train.total_steps=30000 \
      --set distributed.learners=2 --set distributed.backend=mpi \
      --run-dir "$out/runs/${algo}_np4" "${common[@]}"
  done
  # 14 actors and a learner of [1024, 1024], 40 s each (stopped as Ctrl-C stops a job).
  for device in cuda cpu; do
    local run="$out/runs/impala_np15_$device"
    timeout -s INT 40 mpirun -np 15 "$mnrl" train configs/cartpole_impala.yaml \
      --set train.device=$device --set "network.hidden_sizes=[1024,1024]" \
      --set train.total_steps=100000000 --run-dir "$run" "${common[@]}" \
      > "$out/impala_np15_$device.log" 2>&1
    echo "impala_np15_$device: SPS $(last_metric "$run" charts/SPS)," \
      "learner wait share $(last_metric "$run" charts/learner_wait_share)" | tee -a "$out/summary.txt"
  done
  rm -rf "$out/runs"
}

bf16() {
  step bf16_minatar_ppo 300 "$mnrl" train configs/minatar_breakout_ppo.yaml --set seed=1 \
    --set train.device=cuda --set train.precision=bf16 --set train.eval_interval=50000 \
    --set train.eval_episodes=30 --set train.stop_at_return=5 --run-dir "$out/runs/bf16" \
    --progress lines
  grep -i "eval" "$out/bf16_minatar_ppo.log" | tail -3 | tee -a "$out/summary.txt"
  rm -rf "$out/runs"
}

case $phase in
  checks) checks ;;
  speed) speed ;;
  learners) learners ;;
  bf16) bf16 ;;
  offpolicy) offpolicy ;;
  all) checks; speed; learners; bf16; offpolicy ;;
  *) echo "usage: bench/gpu/run.sh [checks|speed|learners|bf16|offpolicy|all] [OUT_DIR]" >&2; exit 2 ;;
esac
