#!/usr/bin/env bash
# Installs what mnrl needs from Debian's packages, once. A second run installs nothing.
# Also points the system BLAS (which Debian's LibTorch uses for matrix products) at OpenBLAS:
# the reference BLAS is about 18x slower.
set -euo pipefail
#
#   scripts/setup.sh [run|test]
#
# run: what building and running mnrl needs (scripts/run.sh); test (the default): that and the
# test extras (scripts/test.sh).

purpose=${1:-test}
case "$purpose" in
  run | test) ;;
  *) echo "scripts/setup.sh: unknown purpose '$purpose' (usage: scripts/setup.sh [run|test])" >&2; exit 2 ;;
esac

packages=(
  build-essential cmake git pkg-config
  libtorch-dev libopenblas0-pthread
  libyaml-cpp-dev libcli11-dev
  gnuplot-nox  # `mnrl plot`
  libgif-dev  # `mnrl eval --video`: evaluation episodes as an animated GIF
  libopenmpi-dev openmpi-bin  # multi-process training (mpirun)
  libbox2d-dev libmujoco-dev  # the physics envs (mnrl builds without them, minus those envs)
  libqhull-dev  # Debian's MuJoCo CMake package names qhull's header folder, without depending on it
  libmujoco-samples  # MuJoCo's sample models: the Humanoid env loads Debian's humanoid.xml
)
if [ "$purpose" = test ]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev
    protobuf-compiler  # the TensorBoard test decodes mnrl's event files with protoc
    procps iproute2  # the failure and multi-node tests: pgrep, ip netns
    slurm-wlm  # the Slurm test: slurmctld, slurmd, srun, sbatch (its munge stays unused: auth/none)
    python3-torch  # the export test loads an exported policy in Python, as a user would
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "mnrl setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# libblas.so.3 must resolve to OpenBLAS; the alternative is set by the package's priority but
# check it, since a machine may have pinned the reference BLAS by hand.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
blas=$(readlink -f "/usr/lib/$multiarch/libblas.so.3" 2>/dev/null || true)
case "$blas" in
  *openblas*) ;;
  *)
    target=$(update-alternatives --list "libblas.so.3-$multiarch" 2>/dev/null | grep openblas | head -n1 || true)
    if [ -n "$target" ]; then
      sudo_cmd=()
      [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
      "${sudo_cmd[@]}" update-alternatives --set "libblas.so.3-$multiarch" "$target"
    else
      echo "mnrl setup: warning: libblas.so.3 is $blas, not OpenBLAS; matrix products will be slow" >&2
    fi
    ;;
esac
