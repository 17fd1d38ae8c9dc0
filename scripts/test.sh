#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest. Extra arguments go to
# ctest, e.g. `scripts/test.sh -L unit` for the quick subset.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
cd "${MNRL_BUILD_DIR:-$root/build}"
ctest --output-on-failure --parallel "$(nproc)" "$@"
