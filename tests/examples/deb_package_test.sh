#!/usr/bin/env bash
# The Debian package as a user gets it: builds mnrl_<version>_<arch>.deb from this build
# (cpack, as scripts/package.sh does), installs it with dpkg, and from a directory with no
# checkout runs `mnrl --version`, trains a bundled config with `mnrl` from the PATH, builds
# examples/custom_env (plugin and embedding program) and examples/policy_export against the
# installed package with no CMAKE_PREFIX_PATH, trains the plugin and acts with an exported
# policy; then removes the package and checks that nothing of it is left.
# Skips (77) where it cannot install packages: not root, or an mnrl already installed.
# Usage: deb_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2

if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: installing a .deb needs root"; exit 77
fi
if dpkg-query -W -f='${Status}' mnrl 2>/dev/null | grep -q "installed"; then
  echo "skipped: a package named mnrl is already installed (this test would replace it)"; exit 77
fi
if [ -e /usr/bin/mnrl ]; then
  echo "skipped: /usr/bin/mnrl exists outside any package"; exit 77
fi

work=$(mktemp -d)
installed=false
cleanup() {
  if $installed; then dpkg --purge mnrl > /dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { echo "== $*"; }
fail() { echo "$*"; exit 1; }
# Runs a command quietly, showing its log only when it fails.
logged() {  # logged NAME COMMAND...
  local name=$1; shift
  "$@" > "$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "$name failed"; }
}

step "cpack -G DEB"
logged cpack cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/package"
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build_dir/CPackConfig.cmake")
deb="$work/package/mnrl_${version}_$(dpkg --print-architecture).deb"
[[ -f $deb ]] || { ls "$work/package"; fail "no $deb"; }
dpkg-deb --field "$deb" Package Version Depends
dpkg-deb --contents "$deb" > "$work/contents"
for path in ./usr/bin/mnrl ./usr/share/mnrl/configs/cartpole_ppo.yaml ./usr/include/mnrl/envs/plugin.h \
            ./usr/share/doc/mnrl/README.md ./usr/share/doc/mnrl/examples/custom_env/CMakeLists.txt; do
  grep -q " $path$" "$work/contents" || fail "the package lacks $path"
done
grep -q " ./usr/lib/.*cmake/mnrl/mnrlConfig.cmake$" "$work/contents" ||
  fail "the package lacks the CMake package (mnrlConfig.cmake)"

step "dpkg -i"
installed=true
logged dpkg_install dpkg -i "$deb"
[[ $(command -v mnrl) == /usr/bin/mnrl ]] || fail "mnrl on the PATH is '$(command -v mnrl)'"

step "mnrl from the PATH, in a directory with no checkout"
mkdir "$work/user" && cd "$work/user"
mnrl --version | head -1
mnrl train cartpole_dqn --set train.total_steps=600 --set dqn.learning_starts=100 \
  --set train.eval_episodes=1 --run-dir by_name | tail -1
[[ -f by_name/summary.yaml ]] || fail "the bundled config trained nothing"

step "examples against the installed package (no CMAKE_PREFIX_PATH)"
examples=/usr/share/doc/mnrl/examples
logged configure_custom_env cmake -S "$examples/custom_env" -B custom_env
logged build_custom_env cmake --build custom_env
logged configure_policy_export cmake -S "$examples/policy_export" -B policy_export
logged build_policy_export cmake --build policy_export

step "train the plugin with mnrl from the PATH, export, act"
logged train_plugin mnrl train "$examples/custom_env/grid_world_ppo.yaml" --run-dir plugin_run \
  --set env.plugin="$PWD/custom_env/libgrid_world.so" --set train.total_steps=2000
tail -1 "$work/train_plugin.log"
logged embedded custom_env/train_grid_world embedded train.total_steps=1000
mnrl export by_name -o policy.pt | tail -1
action=$(policy_export/act policy.pt 0.01 0.02 0.03 0.04)
[[ $action == "action: 0" || $action == "action: 1" ]] || fail "act said '$action'"

step "dpkg --purge leaves nothing behind"
files=$(dpkg-query -L mnrl | grep -v '^/\.$')
logged dpkg_purge dpkg --purge mnrl
installed=false
left=()
while read -r file; do
  # Shared folders (/usr, /usr/lib ...) stay; every file and mnrl's own folders must go.
  if [[ -e $file && ( ! -d $file || $file == *mnrl* ) ]]; then left+=("$file"); fi
done <<< "$files"
((${#left[@]} == 0)) || fail "left after dpkg --purge: ${left[*]}"
hash -r
! command -v mnrl > /dev/null || fail "mnrl still on the PATH: $(command -v mnrl)"
echo "installed, used and removed cleanly"
