# Two "hosts" on one machine, for the multi-node test and benchmarks: Linux network namespaces
# joined by a veth pair, each with its own address ($host_a and $host_b, in 10.77.<n>.0/24) and
# host name. mpirun starts in the first and reaches the second over TCP through an rsh agent
# that runs the command inside that host's namespace (as ssh would on a cluster). Needs root (or
# CAP_NET_ADMIN) and iproute2.
#
# Source it, then:
#   two_hosts_up WORK_DIR || echo "$two_hosts_error"   # the agent goes into WORK_DIR
#   across_two_hosts SECONDS HOSTS NP COMMAND...        # HOSTS as mpirun -H: "$host_a:1,$host_b:8"
#   two_hosts_down                                      # also on exit, from the caller's trap
two_hosts_subnet=10.77.$(( $$ % 250 ))
host_a=$two_hosts_subnet.1 host_b=$two_hosts_subnet.2
two_hosts_veth=mnrl$(( $$ % 100000 ))
two_hosts_error=""

two_hosts_made=()  # the namespaces this shell made, and deletes

two_hosts_down() {
  local namespace
  for namespace in "${two_hosts_made[@]}"; do ip netns del "$namespace" 2>/dev/null; done
  two_hosts_made=()
  return 0
}

two_hosts_up() {
  local work=$1 side host
  command -v ip >/dev/null || { two_hosts_error="iproute2 (ip) is not installed"; return 1; }
  ip netns add "mnrl-$host_a" 2>/dev/null ||
    { two_hosts_error="cannot create network namespaces (needs root / CAP_SYS_ADMIN)"; return 1; }
  two_hosts_made+=("mnrl-$host_a")
  ip netns add "mnrl-$host_b" 2>/dev/null ||
    { two_hosts_error="cannot create a second network namespace"; return 1; }
  two_hosts_made+=("mnrl-$host_b")
  ip link add "${two_hosts_veth}a" type veth peer name "${two_hosts_veth}b" 2>/dev/null ||
    { two_hosts_error="cannot create a veth pair"; return 1; }
  for side in a b; do
    host=$([[ $side == a ]] && echo "$host_a" || echo "$host_b")
    ip link set "${two_hosts_veth}$side" netns "mnrl-$host"
    ip -n "mnrl-$host" addr add "$host/24" dev "${two_hosts_veth}$side"
    ip -n "mnrl-$host" link set "${two_hosts_veth}$side" up
    ip -n "mnrl-$host" link set lo up
  done
  # The rsh agent: HOST COMMAND... runs COMMAND in HOST's namespace, under HOST's host name.
  two_hosts_rsh=$work/rsh
  cat >"$two_hosts_rsh" <<'AGENT'
#!/bin/sh
host=$1; shift
exec ip netns exec "mnrl-$host" unshare --uts sh -c "hostname $host; $*"
AGENT
  chmod +x "$two_hosts_rsh"
}

# mpirun on host A, every rank's traffic over the veth pair's subnet, at most SECONDS. The two
# hosts share this machine's cores, so no rank is bound to one: each host's daemon would bind
# its first rank to core 0, the same core.
across_two_hosts() {
  local seconds=$1 hosts=$2 np=$3
  shift 3
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
    timeout "$seconds" ip netns exec "mnrl-$host_a" unshare --uts \
    sh -c "hostname $host_a; exec \"\$@\"" sh \
    mpirun --oversubscribe --bind-to none -H "$hosts" -np "$np" \
    --mca plm_rsh_agent "$two_hosts_rsh" \
    --mca btl tcp,self --mca btl_tcp_if_include "$two_hosts_subnet.0/24" \
    --mca oob_tcp_if_include "$two_hosts_subnet.0/24" \
    -x OMP_NUM_THREADS -x OPENBLAS_NUM_THREADS -x OMPI_ALLOW_RUN_AS_ROOT \
    -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM "$@"
}
