#!/usr/bin/env bash
# Installs what is missing, then configures (once) and builds mnrl in build/ (Release).
# A second run installs nothing and rebuilds only what changed.
#
#   scripts/build.sh [--for run|test] [--torch DIR]
#
# --for run: only what running needs, the `mnrl` program and the libraries it loads (what
# scripts/run.sh builds); --for test (the default): everything, tests and benchmarks included.
# --torch DIR (or MNRL_TORCH_DIR=DIR): build against that LibTorch instead of Debian's, e.g. a
# CUDA one: the folder holding TorchConfig.cmake (libtorch/share/cmake/Torch, or the pip wheel's
# $(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/build.sh [--for run|test] [--torch DIR]"
torch_dir=${MNRL_TORCH_DIR:-}
purpose=test
while (($#)); do
  case "$1" in
    --torch) torch_dir=${2:?--torch needs a directory}; shift 2 ;;
    --for) purpose=${2:?--for needs run or test}; shift 2 ;;
    *) echo "scripts/build.sh: unknown argument '$1' ($usage)" >&2; exit 2 ;;
  esac
done
case "$purpose" in
  run | test) ;;
  *) echo "scripts/build.sh: --for takes run or test, not '$purpose' ($usage)" >&2; exit 2 ;;
esac
"$root/scripts/setup.sh" "$purpose"
build_dir=${MNRL_BUILD_DIR:-$root/build}

# The tests and benchmarks are configured in only for a test build; a build dir first made for
# running is reconfigured with them when the tests are wanted.
configure=()
if [ -n "$torch_dir" ]; then
  [ -f "$torch_dir/TorchConfig.cmake" ] || {
    echo "scripts/build.sh: no TorchConfig.cmake in '$torch_dir'" >&2; exit 2; }
  configure+=("-DTorch_DIR=$torch_dir")
fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  tests=$([ "$purpose" = test ] && echo ON || echo OFF)
  configure+=(-DCMAKE_BUILD_TYPE=Release "-DMNRL_BUILD_TESTS=$tests" "-DMNRL_BUILD_BENCH=$tests")
elif [ "$purpose" = test ] && ! grep -q '^MNRL_BUILD_TESTS:BOOL=ON$' "$build_dir/CMakeCache.txt"; then
  configure+=(-DMNRL_BUILD_TESTS=ON -DMNRL_BUILD_BENCH=ON)
fi
if ((${#configure[@]})); then
  cmake -S "$root" -B "$build_dir" "${configure[@]}"
fi

targets=()
[ "$purpose" = run ] && targets=(--target mnrl)
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
