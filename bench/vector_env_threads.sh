#!/usr/bin/env bash
# Threaded against serial vector env for every registered env id (`mnrl envs`): `mnrl bench env`
# with NUM_ENVS envs and THREADS threads, RUNS times each, measurements of about a second
# (the step count comes from a short first run). Prints per id the median serial and threaded
# steps/s and their ratio; with envs/step_threading.h the ratio stays near 1 for cheap envs and
# rises with the cost of a step. Take it on a quiet machine.
#
#   bench/vector_env_threads.sh [MNRL] [NUM_ENVS] [THREADS] [RUNS]
set -euo pipefail
mnrl=${1:-build/apps/mnrl}
num_envs=${2:-8}
threads=${3:-2}
runs=${4:-3}

# Prints "serial threaded" steps/s of one bench run of $1 with $2 steps per measurement.
measure() {
  "$mnrl" bench env "$1" --num-envs "$num_envs" --threads "$threads" --steps "$2" |
    awk '/1 thread/ { serial = $(NF-1) } /threads/ { threaded = $(NF-1) }
         END { printf "%d %d\n", serial, threaded }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf "%-30s %14s %14s %8s\n" "id ($num_envs envs, $threads threads)" "serial/s" "threaded/s" "ratio"
for id in $("$mnrl" envs | grep -v '^ '); do
  read -r rate _ < <(measure "$id" 2000)
  steps=$(( rate > 2000 ? rate : 2000 ))  # about one second serial
  serial=() threaded=()
  for _ in $(seq "$runs"); do
    read -r s t < <(measure "$id" "$steps")
    serial+=("$s") threaded+=("$t")
  done
  s=$(printf "%s\n" "${serial[@]}" | median)
  t=$(printf "%s\n" "${threaded[@]}" | median)
  printf "%-30s %14d %14d %8.2f\n" "$id" "$s" "$t" "$(awk -v s="$s" -v t="$t" 'BEGIN { print t / s }')"
done
