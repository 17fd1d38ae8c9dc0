#!/usr/bin/env bash
# Data-parallel efficiency: each config trained with 1 and with 2 ranks (the same per-rank
# budget), RUNS times alternated; prints the job's steps/s (summary.yaml, final evaluation
# excluded) and the efficiency SPS(2) / (2 x SPS(1)) of each pair. Take it on a quiet machine.
#
#   bench/data_parallel.sh [MNRL] [RUNS] [CONFIG:STEPS_PER_RANK ...]
set -euo pipefail
mnrl=$(realpath "${1:-build/apps/mnrl}")
runs=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] ||
  configs=(configs/cartpole_ppo.yaml:100000 configs/cartpole_a2c.yaml:500000
           configs/cartpole_dqn.yaml:50000)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the steps/s of one job of $1 ranks on config $2 with $3 steps per rank.
sps() {
  local dir="$work/run-$1-$RANDOM"
  mpirun -np "$1" "$mnrl" train "$2" --set train.total_steps=$(($3 * $1)) \
    --set train.eval_interval=0 --set logging.tensorboard=false --progress none \
    --run-dir "$dir" > /dev/null
  awk '/^sps:/ { printf "%d", $2 }' "$dir/summary.yaml"
}

echo "uptime before: $(uptime | sed 's/.*load average: //')"
for entry in "${configs[@]}"; do
  config=${entry%%:*}
  steps=${entry##*:}
  for _ in $(seq "$runs"); do
    one=$(sps 1 "$config" "$steps")
    two=$(sps 2 "$config" "$steps")
    awk -v c="$(basename "$config" .yaml)" -v a="$one" -v b="$two" \
      'BEGIN { printf "%-16s np=1 %8d  np=2 %8d  efficiency %5.1f%%\n", c, a, b, 100 * b / (2 * a) }'
  done
done
echo "uptime after: $(uptime | sed 's/.*load average: //')"
