#!/usr/bin/env bash
# A static build (BUILD_SHARED_LIBS=OFF) keeps every registration that nothing names: builds
# mnrl with static libraries (the options of BUILD_DIR's build), checks that it lists the same
# envs and config keys (algorithms, backends) as BUILD_DIR's mnrl and trains A3C (a topology
# registered in the topologies library); then installs it and builds examples/custom_env's
# train_grid_world against the installed static package, which trains PPO on its own env.
# Usage: static_build_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { echo "== $*"; }
same() {  # same WHAT COMMAND...: COMMAND's output from both programs
  local what=$1
  shift
  "$build_dir/apps/mnrl" "$@" > "$work/shared.txt" 2>&1
  "$static" "$@" > "$work/static.txt" 2>&1
  diff "$work/shared.txt" "$work/static.txt" ||
    { echo "the static mnrl lists other $what"; exit 1; }
  echo "$what: the same $(wc -l < "$work/static.txt") lines"
}

step "configure and build mnrl with static libraries"
options=(-DBUILD_SHARED_LIBS=OFF -DMNRL_BUILD_TESTS=OFF -DMNRL_BUILD_BENCH=OFF)
while IFS= read -r entry; do options+=("-D$entry"); done < <(
  grep -E '^(MNRL_WITH_[A-Z0-9_]+|CMAKE_BUILD_TYPE|Torch_DIR|CMAKE_PREFIX_PATH|MNRL_UNITY_BUILD|MNRL_PRECOMPILE_TORCH):' \
    "$build_dir/CMakeCache.txt")
cmake -S "$source_dir" -B "$work/build" "${options[@]}" > "$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" --parallel "$(nproc)" > "$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
static="$work/build/apps/mnrl"
[[ -n $(find "$work/build" -name 'libmnrl_core.a') ]] || { echo "no static libmnrl_core.a"; exit 1; }

step "the static mnrl's registries"
same envs envs
same "config keys" config keys
"$static" train "$source_dir/configs/cartpole_a3c.yaml" --set train.total_steps=2000 \
  --set train.eval_episodes=1 --run-dir "$work/a3c" --progress none | tail -1

step "train_grid_world built against the installed static package"
cmake --install "$work/build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/examples/custom_env" -B "$work/example" -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/example_configure.log" || { cat "$work/example_configure.log"; exit 1; }
cmake --build "$work/example" --target train_grid_world > "$work/example_build.log" 2>&1 ||
  { cat "$work/example_build.log"; exit 1; }
"$work/example/train_grid_world" "$work/embedded" train.total_steps=2000 train.eval_episodes=2 \
  > "$work/embed.log" 2>&1 || { cat "$work/embed.log"; exit 1; }
tail -1 "$work/embed.log"
grep -q "^GridWorld-v0: mean return" "$work/embed.log"
