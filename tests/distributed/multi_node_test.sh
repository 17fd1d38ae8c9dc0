#!/usr/bin/env bash
# Two "hosts" for real (scripts/two_hosts.sh: network namespaces joined by a veth pair, mpirun
# reaching the second through an rsh agent). With 2 ranks per host it runs the communicator
# tests, a few hundred steps of PPO training and an IMPALA job with checkpoints (its actors'
# states collected over TCP) across the hosts. Exits 77 (ctest: skipped), saying why, where
# namespaces cannot be made (no root, no CAP_NET_ADMIN, no iproute2).
# Usage: multi_node_test.sh MNRL_BINARY DISTRIBUTED_TESTS SOURCE_DIR
set -uo pipefail
mnrl=$1 distributed_tests=$2 source_dir=$3
source "$source_dir/scripts/two_hosts.sh"
work=$(mktemp -d)
trap 'two_hosts_down; rm -rf "$work"' EXIT
skip() { echo "SKIPPED: $*"; exit 77; }
two_hosts_up "$work" || skip "$two_hosts_error"

across_hosts() { across_two_hosts 120 "$host_a:2,$host_b:2" 4 "$@"; }
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

hosts=$(across_hosts sh -c 'hostname' | sort | uniq -c | awk '{print $1 "x" $2}' | tr '\n' ' ')
echo "ranks per host: $hosts"
[[ $hosts == "2x$host_a 2x$host_b " ]] || fail "expected 2 ranks on each host, got: $hosts"

across_hosts "$distributed_tests" >"$work/collectives.log" 2>&1 ||
  { fail "communicator tests across hosts"; tail -30 "$work/collectives.log"; }

across_hosts "$mnrl" train "$source_dir/configs/cartpole_ppo.yaml" --set train.total_steps=1024 \
  --set train.eval_episodes=2 --run-dir "$work/run" >"$work/train.log" 2>&1 ||
  { fail "training across hosts"; tail -30 "$work/train.log"; }
grep -q "steps: 1024" "$work/run/summary.yaml" 2>/dev/null || fail "no summary of 1024 steps"
checkpoint=$(ls -d "$work"/run/checkpoints/step_* 2>/dev/null | tail -1)
for rank in 1 2 3; do
  [[ -f $checkpoint/rank$rank.agent.state ]] || fail "the checkpoint lacks rank $rank's state"
done

across_hosts "$mnrl" train "$source_dir/configs/cartpole_impala.yaml" \
  --set train.total_steps=20000 --set checkpoint.interval=5000 --set train.eval_episodes=2 \
  --run-dir "$work/impala" >"$work/impala.log" 2>&1 ||
  { fail "IMPALA across hosts"; tail -30 "$work/impala.log"; }
for checkpoint in "$work"/impala/checkpoints/step_*; do
  for rank in 1 2 3; do
    [[ -f $checkpoint/rank$rank.actor.state ]] ||
      fail "$(basename "$checkpoint") lacks actor rank $rank's state"
  done
done

(( failures == 0 )) || exit 1
echo "collectives and training ran across two hosts"
