#!/usr/bin/env bash
# Rainbow against mnrl's DQN on the five MinAtar games at 2M frames, seeds 1-3 (issue 47's
# table): configs/minatar_<game>_rainbow.yaml, and configs/minatar_breakout_dqn.yaml on the same
# game id (the minimal action sets, -v1) with the same budget and the same evaluations (10
# greedy episodes every 100k steps), epsilon annealed over the first 100k steps as the MinAtar
# paper's DQN. Each (game, agent) is one study (`mnrl train --seeds 1-3`) under RUNS/, which
# checkpoints every 100k steps: run the script again after a stop and it resumes the unfinished
# studies (finished seeds are left as they are), so the ~17 CPU hours can be spread over days.
#
#   [AGENTS="dqn rainbow"] bench/minatar_rainbow_vs_dqn.sh train [MNRL] [RUNS] [JOBS] [GAME ...]
#   bench/minatar_rainbow_vs_dqn.sh table [RUNS]
#
# `table` prints, per game and agent, each seed's final evaluation and the mean of its last five
# evaluations (1.6M-2M), with the mean over the seeds finished so far.
set -euo pipefail
mode=${1:?usage: $0 train|table ...}
shift
all_games=(breakout asterix freeway seaquest space_invaders)
game_id() {
  case $1 in
    breakout) echo Breakout ;; asterix) echo Asterix ;; freeway) echo Freeway ;;
    seaquest) echo Seaquest ;; space_invaders) echo SpaceInvaders ;;
    *) echo "unknown game '$1' (one of ${all_games[*]})" >&2; exit 2 ;;
  esac
}

train() {
  local mnrl runs jobs
  mnrl=$(realpath "${1:-build/apps/mnrl}")
  runs=$(realpath -m "${2:-runs/minatar_rainbow_vs_dqn}")
  jobs=${3:-1}
  shift $(( $# > 3 ? 3 : $# ))
  local games=("$@")
  [ ${#games[@]} -gt 0 ] || games=("${all_games[@]}")
  export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
  mkdir -p "$runs"
  local game agent study
  for game in "${games[@]}"; do
    for agent in ${AGENTS:-dqn rainbow}; do
      study="$runs/${game}_$agent"
      if [ -f "$study/study.yaml" ]; then
        "$mnrl" train --resume "$study" --jobs "$jobs"
      elif [ "$agent" = rainbow ]; then
        "$mnrl" train "configs/minatar_${game}_rainbow.yaml" --seeds 1-3 --jobs "$jobs" \
          --run-dir "$study" --set checkpoint.interval=100000 --set checkpoint.keep=1 \
          --set logging.tensorboard=false
      else
        "$mnrl" train configs/minatar_breakout_dqn.yaml --seeds 1-3 --jobs "$jobs" \
          --run-dir "$study" --set "name=minatar_${game}_dqn" \
          --set "env.id=MinAtar/$(game_id "$game")-v1" --set train.total_steps=2000000 \
          --set train.eval_interval=100000 --set train.eval_episodes=10 \
          --set dqn.exploration_fraction=0.05 --set checkpoint.interval=100000 \
          --set checkpoint.keep=1 --set logging.tensorboard=false
      fi
    done
  done
}

table() {
  local runs=${1:-runs/minatar_rainbow_vs_dqn}
  echo "| game | agent | seeds: final evaluation (mean of the last five) | mean over seeds |"
  echo "|---|---|---|---|"
  local game agent
  for game in "${all_games[@]}"; do
    for agent in dqn rainbow; do
      [ -d "$runs/${game}_$agent" ] || continue
      for metrics in "$runs/${game}_$agent"/seed_*/metrics.csv; do
        [ -f "$metrics" ] || continue
        awk -F, -v seed="$(basename "$(dirname "$metrics")")" '
          $3 == "eval/mean_return" { n++; e[n] = $4; step = $1 }
          END {
            if (n == 0) exit
            last5 = 0; k = n < 5 ? n : 5
            for (i = n - k + 1; i <= n; i++) last5 += e[i]
            printf "%s %d %.2f %.2f\n", seed, step, e[n], last5 / k
          }' "$metrics"
      done | awk -v game="$game" -v agent="$agent" '
        { cells = cells sprintf("%s%s %.1f (%.1f)%s", sep, $1, $3, $4, $2 < 2000000 ? " at " $2 / 1000 "k" : "")
          sep = ", "; if ($2 >= 2000000) { done++; sum += $3; sum5 += $4 } }
        END { printf "| %s | %s | %s | %s |\n", game, agent, cells,
                     done ? sprintf("%.1f (%.1f) over %d", sum / done, sum5 / done, done) : "-" }'
    done
  done
}

case $mode in
  train) train "$@" ;;
  table) table "$@" ;;
  *) echo "usage: $0 train|table ..." >&2; exit 2 ;;
esac
