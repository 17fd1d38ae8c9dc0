#!/usr/bin/env bash
# Installs this build into a fresh prefix, builds examples/custom_env out of tree against the
# installed package (find_package(mnrl)), and trains its GridWorld-v0 both through the plugin
# and through the embedding program. Each must learn: mean greedy return >= 0.9 after 8000
# steps (random actions get about 0.05; the optimum is about 0.97). Then exports a policy
# (`mnrl export`) and acts with it from examples/policy_export (act, built against LibTorch
# alone; play, with the installed env layer, a recurrent policy over whole episodes),
# and trains examples/custom_agent's REINFORCE, an algorithm registered outside mnrl's tree, in
# one process and (given MPIEXEC) with its own topology of a learner and two actor ranks.
# Usage: custom_env_example_test.sh BUILD_DIR SOURCE_DIR [MPIEXEC]
set -euo pipefail
build_dir=$1
source_dir=$2
mpiexec=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "== $*"; }
learned() {  # learned LABEL RETURN
  awk -v label="$1" -v r="$2" 'BEGIN {
    if (r == "" || r + 0 < 0.9) { print label ": mean return " r " < 0.9"; exit 1 }
    print label ": mean return " r }'
}

step "cmake --install into $work/prefix"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
mnrl="$work/prefix/bin/mnrl"

step "the installed package and configs"
! grep -q "if(NOT ON)\|if(NOT OFF)" "$(find "$work/prefix" -name mnrlConfig.cmake)" ||
  { echo "mnrlConfig.cmake tests a substituted constant"; exit 1; }
[[ -f $work/prefix/share/mnrl/configs/cartpole_ppo.yaml ]] || { echo "configs not installed"; exit 1; }
# From another directory, by name: the installed configs are found next to the program.
(cd "$work" && "$mnrl" bench --env-only --env-steps 1000 | tail -1)
(cd "$work" && "$mnrl" train cartpole_dqn --set train.total_steps=600 --set dqn.learning_starts=100 \
  --set train.eval_episodes=1 --run-dir "$work/by_name" | tail -1)

step "configure and build the example against the installed package"
cmake -S "$source_dir/examples/custom_env" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" --parallel "$(nproc)" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
plugin="$work/build/libgrid_world.so"

step "mnrl check-env --plugin"
"$mnrl" check-env --plugin "$plugin" GridWorld-v0 | tail -1

step "mnrl train with the plugin"
"$mnrl" train "$source_dir/examples/custom_env/grid_world_ppo.yaml" --run-dir "$work/run" \
  --set env.plugin="$plugin" --set train.total_steps=8000 > "$work/train.log" 2>&1 ||
  { cat "$work/train.log"; exit 1; }
tail -2 "$work/train.log"
learned plugin "$(sed -n 's/^final evaluation: mean return \([-0-9.]*\).*/\1/p' "$work/train.log")"

step "train_grid_world (embedding)"
"$work/build/train_grid_world" "$work/embedded" train.total_steps=8000 > "$work/embed.log" 2>&1 ||
  { cat "$work/embed.log"; exit 1; }
tail -1 "$work/embed.log"
learned embedded "$(sed -n 's/^GridWorld-v0: mean return \([-0-9.]*\).*/\1/p' "$work/embed.log")"

step "examples/custom_agent: REINFORCE, an algorithm registered out of tree, trained by mnrl's loop"
cmake -S "$source_dir/examples/custom_agent" -B "$work/agent_build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/agent_configure.log" || { cat "$work/agent_configure.log"; exit 1; }
cmake --build "$work/agent_build" --parallel "$(nproc)" > "$work/agent_build.log" || { cat "$work/agent_build.log"; exit 1; }
reinforce="$work/agent_build/train_reinforce"
agent_config="$source_dir/examples/custom_agent/reinforce_cartpole.yaml"
"$reinforce" "$agent_config" "$work/reinforce" > "$work/reinforce.log" 2>&1 ||
  { cat "$work/reinforce.log"; exit 1; }
tail -1 "$work/reinforce.log"
# Random actions get about 22; seed 1 ends at 448-500 on five BLAS kernels.
awk -v r="$(sed -n 's/^train_reinforce: mean return \([-0-9.]*\).*/\1/p' "$work/reinforce.log")" \
  'BEGIN { if (r == "" || r + 0 < 400) { print "reinforce: mean return " r " < 400"; exit 1 } }'
[[ -f $work/reinforce/checkpoints/best/manifest.yaml ]] || { echo "reinforce: no checkpoints/best"; exit 1; }
grep -q "^reinforce:" "$work/reinforce/config.yaml" || { echo "config.yaml lacks reinforce:"; exit 1; }
# Its section is checked as any built-in one's.
if "$reinforce" "$agent_config" "$work/bad" env.id=Pendulum-v1 > "$work/bad.log" 2>&1; then
  echo "reinforce accepted a Box action space"; exit 1
fi
grep -q "algo: reinforce needs Discrete actions; 'Pendulum-v1' has Box" "$work/bad.log" ||
  { cat "$work/bad.log"; exit 1; }

step "examples/custom_agent: REINFORCE's own topology (reinforce_actors.cpp), a learner and two actors"
if [[ -n $mpiexec ]]; then
  # Judged as the learning tests are, by an evaluation that reaches a score within the budget
  # (the run then stops): 150, where random actions get 22. Not 475: REINFORCE is on-policy,
  # its actors' steps lag the learner by a few updates (more on a loaded machine), and the
  # importance weights only partly correct that; quiet runs reached 475 in 14 of 14, a run
  # beside two other tests peaked at 230.
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
    "$mpiexec" --oversubscribe -np 3 "$reinforce" "$agent_config" "$work/reinforce_mpi" \
    train.stop_at_return=150 > "$work/reinforce_mpi.log" 2>&1 ||
    { cat "$work/reinforce_mpi.log"; exit 1; }
  grep "training reinforce on" "$work/reinforce_mpi.log"
  grep -q "(1 learner (rank 0) + 2 actors x 8 envs (mpi))" "$work/reinforce_mpi.log" ||
    { cat "$work/reinforce_mpi.log"; exit 1; }
  grep "^stopped early at step" "$work/reinforce_mpi.log" ||
    { cat "$work/reinforce_mpi.log"; echo "reinforce, mpirun: no evaluation reached 150"; exit 1; }
else
  echo "(skipped: this mnrl was built without MPI)"
fi

step "mnrl export, and examples/policy_export acting with the module"
"$mnrl" export "$work/by_name" -o "$work/policy.pt" | tail -1
cmake -S "$source_dir/examples/policy_export" -B "$work/act_build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/act_configure.log" || { cat "$work/act_configure.log"; exit 1; }
cmake --build "$work/act_build" --parallel "$(nproc)" > "$work/act_build.log" || { cat "$work/act_build.log"; exit 1; }
action=$("$work/act_build/act" "$work/policy.pt" 0.01 0.02 0.03 0.04)
echo "$action"
[[ $action == "action: 0" || $action == "action: 1" ]] ||
  { echo "expected a CartPole action (0 or 1)"; exit 1; }
# play (LibTorch and the installed env layer): whole episodes with a recurrent policy's memory.
"$mnrl" train cartpole_novel_ppo_lstm --set train.total_steps=2048 --set train.eval_episodes=1 \
  --set network.recurrent.hidden_size=16 --run-dir "$work/lstm" | tail -1
"$mnrl" export "$work/lstm" -o "$work/lstm.pt" | tail -1
played=$("$work/act_build/play" "$work/lstm.pt" CartPoleNoVel-v1 3)
echo "$played"
# CartPole pays 1 per step: each episode's return is its length.
[[ $(grep -cE '^episode [1-3]: return ([0-9]+)\.00 in \1 steps$' <<< "$played") == 3 ]] ||
  { echo "expected 3 CartPoleNoVel episodes whose returns are their lengths"; exit 1; }

step "examples/mujoco_robot: a MuJoCo robot from its own MJCF file, as a plugin"
if grep -q "set(mnrl_WITH_MUJOCO ON)" "$(find "$work/prefix" -name mnrlConfig.cmake)"; then
  robot="$source_dir/examples/mujoco_robot"
  cmake -S "$robot" -B "$work/robot_build" -DCMAKE_PREFIX_PATH="$work/prefix" \
    > "$work/robot_configure.log" || { cat "$work/robot_configure.log"; exit 1; }
  cmake --build "$work/robot_build" --parallel "$(nproc)" > "$work/robot_build.log" || { cat "$work/robot_build.log"; exit 1; }
  robot_plugin="$work/robot_build/libpoint_reach.so"
  "$mnrl" check-env --plugin "$robot_plugin" --kwarg model_path="$robot/point_mass.xml" PointReach-v0 | tail -1
  # A broken model file is refused with MuJoCo's message and exit 2, before anything is written.
  printf '<mujoco>\n  <worldbody>\n</mujoco>\n' > "$work/broken.xml"
  status=0
  "$mnrl" train "$robot/point_reach_ppo.yaml" --run-dir "$work/broken_run" \
    --set env.plugin="$robot_plugin" --set env.kwargs.model_path="$work/broken.xml" \
    > "$work/broken.log" 2>&1 || status=$?
  [[ $status == 2 ]] || { cat "$work/broken.log"; echo "broken model: exit $status, not 2"; exit 1; }
  grep -q "broken.xml: MuJoCo cannot load this model" "$work/broken.log" || { cat "$work/broken.log"; exit 1; }
  [[ ! -e $work/broken_run ]] || { echo "broken model: a run directory was written"; exit 1; }
  "$mnrl" train "$robot/point_reach_ppo.yaml" --run-dir "$work/robot_run" \
    --set env.plugin="$robot_plugin" --set env.kwargs.model_path="$robot/point_mass.xml" \
    > "$work/robot.log" 2>&1 || { cat "$work/robot.log"; exit 1; }
  tail -2 "$work/robot.log"
  # A puck left in the middle scores about -23: 100 steps at the mean distance (0.23) to a goal
  # uniform in the square [-0.3, 0.3]^2.
  awk -v r="$(sed -n 's/^final evaluation: mean return \([-0-9.]*\).*/\1/p' "$work/robot.log")" \
    'BEGIN { if (r == "" || r + 0 < -10) { print "point reach: mean return " r " < -10"; exit 1 }
             print "point reach: mean return " r }'
else
  echo "(skipped: this mnrl was built without MuJoCo)"
fi
