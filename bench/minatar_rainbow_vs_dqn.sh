#!/usr/bin/env bash
# Rainbow against mnrl's DQN on the five MinAtar games at 2M frames, seeds 1-3 (issue 47's
# table): configs/minatar_<game>_rainbow.yaml, and configs/minatar_breakout_dqn.yaml on the same
# game id (the minimal action sets, -v1) with the same budget and the same evaluations (10
# greedy episodes every 100k steps), epsilon annealed over the first 100k steps as the MinAtar
# paper's DQN.
#
# The ~17 CPU hours are spread over sessions: each (game, agent, seed) is a run of its own under
# RUNS/, checkpointed every 100k steps (run the script again after a stop and it resumes it),
# and a finished run's evaluations are saved to bench/results/minatar_rainbow_vs_dqn/
# <game>_<agent>_seed_<n>.csv (step,mean_return; its first line names the mnrl that trained
# it), which is kept with the sources: a saved run is not trained again. Seed 1 of every game
# comes first, then seed 2, then seed 3.
#
#   [AGENTS="dqn rainbow"] [SEEDS="1 2 3"] bench/minatar_rainbow_vs_dqn.sh train [MNRL] [RUNS] [GAME ...]
#   bench/minatar_rainbow_vs_dqn.sh table
#
# `table` prints, per game and agent, each saved seed's final evaluation and the mean of its
# last five evaluations (1.6M-2M), with the mean over those seeds.
set -euo pipefail
mode=${1:?usage: $0 train|table ...}
shift
results=$(cd "$(dirname "$0")" && pwd)/results/minatar_rainbow_vs_dqn
all_games=(breakout asterix freeway seaquest space_invaders)
game_id() {
  case $1 in
    breakout) echo Breakout ;; asterix) echo Asterix ;; freeway) echo Freeway ;;
    seaquest) echo Seaquest ;; space_invaders) echo SpaceInvaders ;;
    *) echo "unknown game '$1' (one of ${all_games[*]})" >&2; exit 2 ;;
  esac
}

# Trains (or resumes) one run into RUN: GAME AGENT SEED RUN.
train_run() {
  local game=$1 agent=$2 seed=$3 run=$4
  local common=(--set "seed=$seed" --set checkpoint.interval=100000 --set checkpoint.keep=1
                --set logging.tensorboard=false)
  if [ -f "$run/config.yaml" ]; then
    "$mnrl" train --resume "$run"
  elif [ "$agent" = rainbow ]; then
    "$mnrl" train "configs/minatar_${game}_rainbow.yaml" --run-dir "$run" "${common[@]}"
  else
    "$mnrl" train configs/minatar_breakout_dqn.yaml --run-dir "$run" "${common[@]}" \
      --set "name=minatar_${game}_dqn" --set "env.id=MinAtar/$(game_id "$game")-v1" \
      --set train.total_steps=2000000 --set train.eval_interval=100000 \
      --set train.eval_episodes=10 --set dqn.exploration_fraction=0.05
  fi
}

# Saves a finished run's evaluations: RUN FILE.
save_evaluations() {
  local run=$1 file=$2
  awk -F, '$3 == "eval/mean_return" { print $1 "," $4 }' "$run/metrics.csv" > "$file.tmp"
  local last
  last=$(tail -1 "$file.tmp" | cut -d, -f1)
  if [ "${last:-0}" -lt 2000000 ]; then
    echo "minatar_rainbow_vs_dqn: $run stopped at step ${last:-0}, before 2M: not saved" >&2
    rm -f "$file.tmp"; return 1
  fi
  { echo "# $("$mnrl" --version | head -1), trained $(date -u +%F)"; echo "step,mean_return"
    cat "$file.tmp"; } > "$file"
  rm -f "$file.tmp"
}

train() {
  mnrl=$(realpath "${1:-build/apps/mnrl}")
  local runs
  runs=$(realpath -m "${2:-runs/minatar_rainbow_vs_dqn}")
  shift $(( $# > 2 ? 2 : $# ))
  local games=("$@")
  [ ${#games[@]} -gt 0 ] || games=("${all_games[@]}")
  export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
  mkdir -p "$runs" "$results"
  local seed game agent name
  for seed in ${SEEDS:-1 2 3}; do
    for game in "${games[@]}"; do
      for agent in ${AGENTS:-dqn rainbow}; do
        name=${game}_${agent}_seed_$seed
        [ -f "$results/$name.csv" ] && continue
        train_run "$game" "$agent" "$seed" "$runs/$name"
        save_evaluations "$runs/$name" "$results/$name.csv"
      done
    done
  done
}

table() {
  echo "| game | agent | seeds: final evaluation (mean of the last five) | mean over seeds |"
  echo "|---|---|---|---|"
  local game agent
  for game in "${all_games[@]}"; do
    for agent in dqn rainbow; do
      for file in "$results/${game}_${agent}"_seed_*.csv; do
        [ -f "$file" ] || continue
        awk -F, -v seed="$(basename "$file" .csv | sed 's/.*_seed_/seed_/')" '
          NR > 2 { n++; e[n] = $2 }
          END {
            last5 = 0; k = n < 5 ? n : 5
            for (i = n - k + 1; i <= n; i++) last5 += e[i]
            printf "%s %.2f %.2f\n", seed, e[n], last5 / k
          }' "$file"
      done | awk -v game="$game" -v agent="$agent" '
        { cells = cells sprintf("%s%s %.1f (%.1f)", sep, $1, $2, $3); sep = ", "
          done++; sum += $2; sum5 += $3 }
        END { if (done) printf "| %s | %s | %s | %.1f (%.1f) over %d |\n", game, agent, cells,
                               sum / done, sum5 / done, done }'
    done
  done
}

case $mode in
  train) train "$@" ;;
  table) table ;;
  *) echo "usage: $0 train|table ..." >&2; exit 2 ;;
esac
