#!/usr/bin/env bash
# Installs what is missing, builds, and runs `mnrl train` with the given arguments
# (default: the CartPole PPO experiment).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" --for run
if [ $# -eq 0 ]; then
  set -- "$root/configs/cartpole_ppo.yaml"
fi
exec "${MNRL_BUILD_DIR:-$root/build}/apps/mnrl" train "$@"
