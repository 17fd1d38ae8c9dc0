#!/usr/bin/env bash
# Learning figures at rl-zoo's budgets (the return distributions' QR-DQN/C51/IQN configs and
# recurrent PPO's by default): each config trained for its own train.total_steps on seeds 1-3
# under this CPU's OpenBLAS kernel and under KERNEL (OPENBLAS_CORETYPE; "none" for the native
# one only), evaluated every 10k steps (10 greedy episodes); prints each run's evaluations, its
# best and its steps/s. Runs JOBS at a time (default 1; steps/s are only comparable with 1 on a
# quiet machine).
#
#   bench/learning_figures.sh [MNRL] [KERNEL] [JOBS] [CONFIG ...]
set -euo pipefail
mnrl=$(realpath "${1:-build/apps/mnrl}")
kernel=${2:-Sandybridge}
jobs=${3:-1}
shift $(( $# > 3 ? 3 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] ||
  configs=(configs/cartpole_qrdqn.yaml configs/acrobot_qrdqn.yaml configs/mountaincar_qrdqn.yaml
           configs/cartpole_c51.yaml configs/acrobot_c51.yaml configs/cartpole_iqn.yaml
           configs/acrobot_iqn.yaml configs/cartpole_novel_ppo_lstm.yaml
           configs/pendulum_novel_ppo_lstm.yaml configs/mountaincarcontinuous_novel_ppo_lstm.yaml)
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Trains config $1 with seed $2 under kernel $3 ("" native); prints one line of results.
run() {
  local dir="$work/$(basename "$1" .yaml)-$2-${3:-native}"
  if [ -n "$3" ]; then export OPENBLAS_CORETYPE=$3; else unset OPENBLAS_CORETYPE; fi
  "$mnrl" train "$1" --seed "$2" --set train.eval_interval=10000 --set logging.tensorboard=false \
    --progress none --run-dir "$dir" > "$dir.log" 2>&1 || { echo "$1 seed $2: failed"; return; }
  awk -F, -v name="$(basename "$1" .yaml) seed $2 ${3:-native}" '
    $3 == "eval/mean_return" { evals = evals sprintf("%.0f@%dk ", $4, $1 / 1000); if (best == "" || $4 > best) best = $4 }
    $3 == "charts/SPS" { sps = $4 }
    END { printf "%s: best %.1f | %s| %.0f steps/s\n", name, best, evals, sps }' "$dir/metrics.csv"
}

echo "uptime before: $(uptime | sed 's/.*load average: //')"
kernels=("")
[ "$kernel" = none ] || kernels+=("$kernel")
for config in "${configs[@]}"; do
  for k in "${kernels[@]}"; do
    for seed in 1 2 3; do
      run "$config" "$seed" "$k" &
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    done
  done
done
wait
echo "uptime after: $(uptime | sed 's/.*load average: //')"
