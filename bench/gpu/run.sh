#!/usr/bin/env bash
# On a machine with a GPU and a CUDA LibTorch: builds mnrl against that LibTorch, runs the
# tests labelled gpu, NCCL at np 2 (each rank a host name of its own: unshare --uts, since NCCL
# refuses two ranks on one GPU of one host), data-parallel PPO on cuda over NCCL, and the
# cuda-vs-cpu training speeds and all-reduce bandwidths of docs/BENCHMARKS.md ("GPU"), and checks
# that two ranks on one GPU are refused by name.
#
#   bench/gpu/run.sh [OUT_DIR]      (TORCH_DIR defaults to the pip wheel's LibTorch)
#
# Each step is bounded by `timeout` and logs to OUT_DIR (default gpu-results), so a step that
# fails or stalls leaves the others' results.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-gpu-results}
mkdir -p "$out"
: "${TORCH_DIR:=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
build=build-gpu
step() {  # step NAME SECONDS COMMAND...: runs it, logs to $out/NAME.log, says how it ended
  local name=$1 seconds=$2
  shift 2
  local start=$SECONDS
  timeout "$seconds" "$@" > "$out/$name.log" 2>&1
  echo "$name: exit $? in $((SECONDS - start)) s" | tee -a "$out/summary.txt"
}

nvidia-smi -L > "$out/gpu.txt" 2>&1
step configure 120 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$TORCH_DIR" \
  -DMNRL_WITH_NCCL=ON -DMNRL_BUILD_BENCH=ON
step build 540 cmake --build "$build" -j "$(nproc)" -- -k mnrl gpu_training_tests \
  gpu_communicator_tests experiments_tests allreduce_bench
mnrl=$build/apps/mnrl
step tensorboard_test 60 "$build/tests/experiments/experiments_tests" --gtest_filter='TensorBoard*'
step gpu_tests 300 ctest --test-dir "$build" -L gpu --output-on-failure
# np 2 on one GPU: each rank its own host name, so NCCL takes them for two hosts.
two_hosts=bench/gpu/two_hosts.sh
step nccl_np2 120 $two_hosts "$build/tests/distributed/gpu_communicator_tests"
step ppo_cuda_nccl_np2 180 $two_hosts "$mnrl" train configs/cartpole_ppo.yaml \
  --set train.device=cuda --run-dir "$out/ppo_cuda_np2" --progress lines
# All-reduce bandwidth per backend at np 2: host memory over MPI; GPU memory through NCCL and
# through hierarchical (NCCL within a host, MPI between hosts: here two namespaces).
step allreduce_mpi 120 mpirun -np 2 "$build/bench/allreduce_bench" --backend mpi
for backend in nccl hierarchical; do
  step "allreduce_$backend" 120 $two_hosts "$build/bench/allreduce_bench" --backend $backend
done
# Two ranks on one GPU of one host: refused by name before NCCL's own "invalid usage".
step duplicate_gpu_refused 60 bash -c "mpirun -np 2 $build/bench/allreduce_bench --backend nccl \
  2>&1 | grep 'Duplicate GPU detected'"

# Training speed, cuda vs cpu: steps per second over a short run (the last progress line),
# REPEATS times each (default 2) for the spread; a slow one is cut at 30 s (its last line counts).
for repeat in $(seq "${REPEATS:-2}"); do
  for algo in ppo dqn; do
    for width in 64 256 1024; do
      for device in cpu cuda; do
        name=${algo}_${width}_${device}_$repeat
        step "sps_$name" 30 "$mnrl" train "configs/cartpole_$algo.yaml" \
          --set train.device=$device --set "network.hidden_sizes=[$width,$width]" \
          --set train.total_steps=20000 --set train.eval_interval=0 --set train.eval_episodes=1 \
          --run-dir "$out/runs/$name" --progress lines
      done
    done
  done
done
for algo in ppo dqn; do
  for device in cpu cuda; do
    step "sps_minatar_${algo}_${device}" 60 "$mnrl" train "configs/minatar_breakout_$algo.yaml" \
      --set train.device=$device --set train.total_steps=30000 --set train.eval_interval=0 \
      --set train.eval_episodes=1 --run-dir "$out/runs/minatar_${algo}_${device}" --progress lines
  done
done
for f in "$out"/sps_*.log; do echo "$(basename "$f" .log): $(grep -o '[0-9]* SPS' "$f" | tail -1)"; done \
  | tee "$out/sps.txt"
rm -rf "$out/runs" "$out/ppo_cuda_np2/checkpoints"
