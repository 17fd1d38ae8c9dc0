#!/usr/bin/env bash
# Builds mnrl against a CUDA-enabled LibTorch and runs, on this machine's GPUs, the GPU
# communicator tests and the NCCL all-reduce benchmark (both backends), for when a GPU machine
# is at hand (the CI machines have the CUDA toolkit and NCCL but no GPU, so there these only
# compile and the tests skip themselves).
#
#   TORCH_DIR=/path/to/libtorch/share/cmake/Torch bench/gpu/run.sh [RANKS]
#
# RANKS defaults to the number of GPUs (one rank per GPU). Needs Open MPI, the CUDA toolkit and
# NCCL (found under /usr/local/cuda by default; set CUDAToolkit_ROOT otherwise). Results go to
# stdout, as rows for docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${TORCH_DIR:?set TORCH_DIR to a CUDA-enabled LibTorch (…/libtorch/share/cmake/Torch)}"
gpus=$(nvidia-smi --list-gpus | wc -l)
ranks=${1:-$gpus}
(( gpus > 0 )) || { echo "no GPU visible (nvidia-smi lists none)" >&2; exit 1; }

build=build-gpu
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$TORCH_DIR" -DMNRL_WITH_NCCL=ON
cmake --build "$build" -j "$(nproc)" --target gpu_communicator_tests allreduce_bench

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
mpirun --oversubscribe -np "$ranks" "$build/tests/distributed/gpu_communicator_tests"
for backend in nccl hierarchical; do
  mpirun --oversubscribe -np "$ranks" "$build/bench/allreduce_bench" --backend "$backend"
  echo
done
