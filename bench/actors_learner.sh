#!/usr/bin/env bash
# Actors-and-learner scaling: a config trained with 1, 2, 4 and 8 actor ranks (plus the
# learner, rank 0), RUNS times each; prints per job the env steps/s (summary.yaml), the
# learner's updates/s, the mean policy lag (updates) and the share of its time the learner
# spent waiting for the actors (the last charts/learner_wait_share). Ranks beyond the cores
# oversubscribe them (--oversubscribe): say so with the figures. Take them on a quiet machine.
# With TWO_HOSTS=1 the learner runs on one "host" and the actors on another, over TCP
# (scripts/two_hosts.sh: network namespaces; needs root).
#
#   bench/actors_learner.sh [MNRL] [RUNS] CONFIG STEPS UPDATE_METRIC [--set KEY=VALUE ...]
#   bench/actors_learner.sh build/apps/mnrl 3 configs/cartpole_impala.yaml 300000 losses/value_loss
#   bench/actors_learner.sh build/apps/mnrl 2 configs/cartpole_apex.yaml 100000 losses/td_loss \
#     --set apex_dqn.steps_per_update=0
set -euo pipefail
mnrl=$(realpath "$1")
runs=$2 config=$3 steps=$4 update_metric=$5
shift 5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch() {  # ACTORS COMMAND...: the learner and ACTORS actors
  local actors=$1
  shift
  if [[ ${TWO_HOSTS:-0} == 1 ]]; then
    across_two_hosts 900 "$host_a:1,$host_b:$actors" $((actors + 1)) "$@"
  else
    mpirun --oversubscribe -np $((actors + 1)) "$@"
  fi
}
if [[ ${TWO_HOSTS:-0} == 1 ]]; then
  source "$(dirname "$0")/../scripts/two_hosts.sh"
  trap 'two_hosts_down; rm -rf "$work"' EXIT
  two_hosts_up "$work" || { echo "TWO_HOSTS: $two_hosts_error" >&2; exit 1; }
  echo "learner on $host_a, actors on $host_b (TCP over a veth pair)"
fi

echo "uptime before: $(uptime | sed 's/.*load average: //')"
for actors in 1 2 4 8; do
  for _ in $(seq "$runs"); do
    dir="$work/run-$actors-$RANDOM"
    launch "$actors" "$mnrl" train "$config" \
      --set train.total_steps="$steps" --set train.eval_interval=0 --set train.eval_episodes=1 \
      --set logging.tensorboard=false --progress none --run-dir "$dir" "$@" > /dev/null
    awk -v actors="$actors" -v metric="$update_metric" -F, '
      FNR == 1 && FILENAME ~ /summary/ { }
      FILENAME ~ /summary/ && /^sps:/ { split($0, f, " "); sps = f[2] }
      FILENAME ~ /summary/ && /^seconds:/ { split($0, f, " "); seconds = f[2] }
      FILENAME ~ /metrics/ && $3 == metric { updates++ }
      FILENAME ~ /metrics/ && $3 == "charts/policy_lag" { lag += $4; lags++ }
      FILENAME ~ /metrics/ && $3 == "charts/learner_wait_share" { wait = $4 }
      END { printf "actors %d  env steps/s %8d  updates/s %6d  policy lag %5.1f  learner waiting %4.1f%%\n",
                   actors, sps, updates / seconds, lags ? lag / lags : 0, 100 * wait }' \
      "$dir/summary.yaml" "$dir/metrics.csv"
  done
done
echo "uptime after: $(uptime | sed 's/.*load average: //')"
