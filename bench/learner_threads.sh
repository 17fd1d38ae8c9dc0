#!/usr/bin/env bash
# Learner threads: each config trained with train.threads 1 and 2, RUNS times alternated; prints
# the train time (summary.yaml, final evaluation excluded) of each and the speed-up, and checks
# that both runs ended with the same final evaluation (two threads compute the same bits).
# Take it on a quiet machine.
#
#   bench/learner_threads.sh [MNRL] [RUNS] [CONFIG[@KEY=VALUE;...] ...]
set -euo pipefail
mnrl=$(realpath "${1:-build/apps/mnrl}")
runs=${2:-3}
shift $(( $# > 2 ? 2 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] ||
  configs=(configs/cartpole_dqn.yaml configs/cartpole_ppo.yaml configs/cartpole_a2c.yaml
           "configs/cartpole_dqn.yaml@network.hidden_sizes=[1024, 1024];dqn.batch_size=2048;dqn.learning_starts=1000;dqn.gradient_steps=8;train.total_steps=4096"
           "configs/cartpole_ppo.yaml@network.hidden_sizes=[1024, 1024];ppo.n_steps=256;ppo.batch_size=2048;ppo.n_epochs=4;train.total_steps=16384")
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Trains config $2 (overrides $3, separated by ;) with $1 threads; prints "seconds final_return".
train() {
  local dir="$work/run-$1-$RANDOM" overrides=()
  if [ -n "$3" ]; then
    IFS=';' read -ra pairs <<< "$3"
    for pair in "${pairs[@]}"; do overrides+=(--set "$pair"); done
  fi
  "$mnrl" train "$2" --set train.threads="$1" --set train.eval_interval=0 \
    --set logging.tensorboard=false "${overrides[@]}" --progress none --run-dir "$dir" > /dev/null
  awk '/^seconds:/ { s = $2 } /mean_return:/ && !r { r = $2 } END { printf "%.2f %s", s, r }' \
    "$dir/summary.yaml"
}

echo "uptime before: $(uptime | sed 's/.*load average: //')"
for entry in "${configs[@]}"; do
  config=${entry%%@*}
  overrides=""
  [ "$entry" = "$config" ] || overrides=${entry#*@}
  for _ in $(seq "$runs"); do
    read -r one one_return <<< "$(train 1 "$config" "$overrides")"
    read -r two two_return <<< "$(train 2 "$config" "$overrides")"
    same=$([ "$one_return" = "$two_return" ] && echo "same final return" || echo "RETURNS DIFFER")
    awk -v c="$(basename "$config" .yaml)${overrides:+ (${overrides%%;*})}" -v a="$one" -v b="$two" -v s="$same" \
      'BEGIN { printf "%-40s 1 thread %7.2f s  2 threads %7.2f s  speed-up %.2fx  %s\n", c, a, b, a / b, s }'
  done
done
echo "uptime after: $(uptime | sed 's/.*load average: //')"
