#!/usr/bin/env bash
# The threaded vector env beside other work: `mnrl bench env` RUNS times on a quiet machine,
# then RUNS times while LOAD busy processes (default: one per core) compete for the cores. A
# pool thread the scheduler keeps off its core must not hold up the step: the threaded row
# should stay within about 2x of the serial one under load.
#
#   bench/env_under_load.sh [MNRL] [ID] [NUM_ENVS] [THREADS] [RUNS] [LOAD]
set -euo pipefail
mnrl=${1:-build/apps/mnrl}
id=${2:-CartPole-v1}
num_envs=${3:-8}
threads=${4:-2}
runs=${5:-3}
load=${6:-$(nproc)}

busy=()
stop_load() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  busy=()
}
trap stop_load EXIT

# Prints "serial threaded ratio" (steps/s, steps/s, threaded/serial) of one bench run.
measure() {
  "$mnrl" bench env "$id" --num-envs "$num_envs" --threads "$threads" --steps 2000000 |
    awk '/1 thread/ { serial = $(NF-1) } /threads/ { threaded = $(NF-1) }
         END { printf "%12d %12d %8.2f\n", serial, threaded, threaded / serial }'
}

echo "$id, $num_envs envs, $threads threads; steps/s: serial, threaded, threaded/serial"
echo "quiet (uptime: $(uptime | sed 's/.*load average: //'))"
for _ in $(seq "$runs"); do measure; done
for _ in $(seq "$load"); do
  yes > /dev/null &
  busy+=($!)
done
echo "beside $load busy processes"
for _ in $(seq "$runs"); do measure; done
stop_load
