#!/usr/bin/env bash
# A3C's parameter servers: a config trained by WORKERS worker ranks with its parameters on 1,
# then 2 servers (distributed.parameter_servers), RUNS times each; prints per job the env
# steps/s (summary.yaml), the updates/s rank 0 applied, and the share of its time rank 0
# waited for a push (the last charts/server_wait_share: near 0, the workers wait for it: it
# is the bottleneck). Ranks beyond the cores oversubscribe them (--oversubscribe): say so
# with the figures. Take them on a quiet machine.
#
#   bench/parameter_servers.sh [MNRL] [RUNS] WORKERS CONFIG STEPS [--set KEY=VALUE ...]
#   bench/parameter_servers.sh build/apps/mnrl 3 6 configs/cartpole_a3c.yaml 20000 \
#     --set "network.hidden_sizes=[1024,1024]" --set env.num_envs=1 --set a3c.n_steps=1
set -euo pipefail
mnrl=$(realpath "$1")
runs=$2 workers=$3 config=$4 steps=$5
shift 5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OPENBLAS_NUM_THREADS=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "uptime before: $(uptime | sed 's/.*load average: //')"
for servers in 1 2; do
  for _ in $(seq "$runs"); do
    dir="$work/run-$servers-$RANDOM"
    mpirun --oversubscribe -np $((servers + workers)) "$mnrl" train "$config" \
      --set distributed.parameter_servers="$servers" --set train.total_steps="$steps" \
      --set train.eval_interval=0 --set train.eval_episodes=1 --set logging.tensorboard=false \
      --progress none --run-dir "$dir" "$@" > /dev/null
    awk -v servers="$servers" -v workers="$workers" -F, '
      FILENAME ~ /summary/ && /^sps:/ { split($0, f, " "); sps = f[2] }
      FILENAME ~ /summary/ && /^seconds:/ { split($0, f, " "); seconds = f[2] }
      FILENAME ~ /metrics/ && $3 == "charts/server_wait_share" { updates++; wait = $4 }
      END { printf "servers %d  workers %d  env steps/s %8d  updates/s %6d  rank 0 waiting %4.1f%%\n",
                   servers, workers, sps, updates / seconds, 100 * wait }' \
      "$dir/summary.yaml" "$dir/metrics.csv"
  done
done
echo "uptime after: $(uptime | sed 's/.*load average: //')"
