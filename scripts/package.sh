#!/usr/bin/env bash
# Builds the Debian package of mnrl: build/mnrl_<version>_<arch>.deb, with the program, the
# libraries, the public headers, the CMake package, the bundled configs, the docs and the
# examples, its Debian dependencies declared. Install it with
#   sudo apt-get install ./build/mnrl_<version>_<arch>.deb
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" --for run
build_dir=${MNRL_BUILD_DIR:-$root/build}
cmake --build "$build_dir" --parallel "$(nproc)"  # everything the package installs
cd "$build_dir"
cpack -G DEB
