#!/usr/bin/env bash
# Two `mnrl tune` processes on one study as two hosts would run them: the second under a host
# name of its own (a UTS namespace), so the first can only tell it is gone by its heartbeat.
# The second is killed (kill -9) while it runs a trial; the first must take that trial over and
# finish the study: every trial created once, every trial complete. Exits 77 (ctest: skipped),
# saying why, where a UTS namespace cannot be made (no root).
# Usage: tune_two_hosts_test.sh MNRL_BINARY SOURCE_DIR
set -uo pipefail
mnrl=$1 source_dir=$2
work=$(mktemp -d)
trap 'kill -9 $first $second 2>/dev/null; rm -rf "$work"' EXIT
first="" second=""
unshare --uts true 2>/dev/null || { echo "SKIPPED: cannot make a UTS namespace (needs root)"; exit 77; }
fail() { echo "FAIL: $*"; for f in "$work"/*.out; do echo "== $f"; tail -n 20 "$f"; done; exit 1; }

cd "$work" || exit 1
echo 'ppo.learning_rate: {type: log_uniform, low: 1.0e-4, high: 3.0e-3}' >space.yaml
tune=(tune "$source_dir/configs/cartpole_ppo.yaml" --space space.yaml --study study --trials 4
      --jobs 1 --pruner none --worker-timeout 10 --set train.total_steps=40000
      --set train.eval_interval=20000 --set train.eval_episodes=2)
unshare --uts sh -c 'hostname mnrl-tune-b && exec "$@"' sh "$mnrl" "${tune[@]}" >second.out 2>&1 &
second=$!
for _ in $(seq 600); do
  grep -q 'worker: "mnrl-tune-b:' study/journal.yaml 2>/dev/null && break
  sleep 0.05
done
grep -q 'worker: "mnrl-tune-b:' study/journal.yaml 2>/dev/null || fail "the second host took no trial"
"$mnrl" "${tune[@]}" >first.out 2>&1 &
first=$!
sleep 1
kill -9 "$second"
wait "$second" 2>/dev/null
timeout 240 tail --pid="$first" -f /dev/null
wait "$first" || fail "the first process failed"
grep -q "its process mnrl-tune-b:[0-9@]* is gone; taking it over" first.out ||
  fail "the first process never took the second's trial over"
created=$(grep -c 'event: "created"' study/journal.yaml)
distinct=$(grep -o 'event: "created", trial: [0-9]*' study/journal.yaml | sort -u | wc -l)
complete=$(grep -c 'state: "complete"' study/journal.yaml)
[[ $created == 4 && $distinct == 4 ]] || fail "$created trials created, $distinct distinct (4 expected)"
[[ $complete == 4 ]] || fail "$complete trials complete (4 expected)"
echo "a trial of a killed host was taken over; 4 trials, each created once, all complete"
