#!/usr/bin/env bash
# Installs what is missing, then configures (once) and builds mnrl in build/ (Release).
# A second run installs nothing and rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
build_dir=${MNRL_BUILD_DIR:-$root/build}
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build_dir" --parallel "$(nproc)"
