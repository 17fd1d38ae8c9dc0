#!/usr/bin/env bash
# Installs what is missing, then configures (once) and builds mnrl in build/ (Release).
# A second run installs nothing and rebuilds only what changed.
#
#   scripts/build.sh [--torch DIR]
#
# --torch DIR (or MNRL_TORCH_DIR=DIR): build against that LibTorch instead of Debian's, e.g. a
# CUDA one: the folder holding TorchConfig.cmake (libtorch/share/cmake/Torch, or the pip wheel's
# $(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')/Torch).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
torch_dir=${MNRL_TORCH_DIR:-}
while (($#)); do
  case "$1" in
    --torch) torch_dir=${2:?--torch needs a directory}; shift 2 ;;
    *) echo "scripts/build.sh: unknown argument '$1' (usage: scripts/build.sh [--torch DIR])" >&2; exit 2 ;;
  esac
done
"$root/scripts/setup.sh"
build_dir=${MNRL_BUILD_DIR:-$root/build}
if [ -n "$torch_dir" ]; then
  [ -f "$torch_dir/TorchConfig.cmake" ] || {
    echo "scripts/build.sh: no TorchConfig.cmake in '$torch_dir'" >&2; exit 2; }
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTorch_DIR="$torch_dir"
elif [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build_dir" --parallel "$(nproc)"
