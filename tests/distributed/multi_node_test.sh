#!/usr/bin/env bash
# Two "hosts" for real: Linux network namespaces joined by a veth pair, each with its own
# address (10.77.<n>.1 and .2) and host name. mpirun starts in the first and reaches the second
# over TCP through an rsh agent that runs the command inside that host's namespace (as ssh
# would on a cluster). With 2 ranks per host it runs the communicator tests and a few hundred
# steps of PPO training across the hosts. Exits 77 (ctest: skipped), saying why, where
# namespaces cannot be made (no root, no CAP_NET_ADMIN, no iproute2).
# Usage: multi_node_test.sh MNRL_BINARY DISTRIBUTED_TESTS SOURCE_DIR
set -uo pipefail
mnrl=$1 distributed_tests=$2 source_dir=$3
subnet=10.77.$(( $$ % 250 ))
host_a=$subnet.1 host_b=$subnet.2
work=$(mktemp -d)
veth=mnrl$(( $$ % 100000 ))

cleanup() {
  ip netns del "mnrl-$host_a" 2>/dev/null
  ip netns del "mnrl-$host_b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
skip() { echo "SKIPPED: $*"; exit 77; }

command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
ip netns add "mnrl-$host_a" 2>/dev/null || skip "cannot create network namespaces (needs root / CAP_SYS_ADMIN)"
ip netns add "mnrl-$host_b" 2>/dev/null || skip "cannot create a second network namespace"
ip link add "${veth}a" type veth peer name "${veth}b" 2>/dev/null || skip "cannot create a veth pair"
for side in a b; do
  host=$([[ $side == a ]] && echo "$host_a" || echo "$host_b")
  ip link set "${veth}$side" netns "mnrl-$host"
  ip -n "mnrl-$host" addr add "$host/24" dev "${veth}$side"
  ip -n "mnrl-$host" link set "${veth}$side" up
  ip -n "mnrl-$host" link set lo up
done

# The rsh agent: HOST COMMAND... runs COMMAND in HOST's namespace, under HOST's host name.
cat >"$work/rsh" <<'AGENT'
#!/bin/sh
host=$1; shift
exec ip netns exec "mnrl-$host" unshare --uts sh -c "hostname $host; $*"
AGENT
chmod +x "$work/rsh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
# mpirun on host A; every rank's traffic over the veth pair's subnet.
across_hosts() {
  timeout 120 ip netns exec "mnrl-$host_a" unshare --uts sh -c "hostname $host_a; exec \"\$@\"" sh \
    mpirun --oversubscribe -H "$host_a:2,$host_b:2" -np 4 --mca plm_rsh_agent "$work/rsh" \
    --mca btl tcp,self --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" \
    -x OMP_NUM_THREADS -x OPENBLAS_NUM_THREADS -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    "$@"
}
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

(( failures == 0 )) || exit 1
echo "collectives and training ran across two hosts"
