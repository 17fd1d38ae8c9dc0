#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest. Extra arguments go to
# ctest, e.g. `scripts/test.sh -L unit` for the quick subset. Each phase's time is printed at
# its end, and all of them at the end.
#
# A share of the learning tests runs under a second OpenBLAS kernel: LibTorch multiplies through
# OpenBLAS, whose kernel (picked per CPU) decides the float rounding, and learning must hold
# under every rounding, not only this machine's. Seed 2 of each three-seed config runs under it
# instead of this CPU's kernel, and each one-run config runs under both (tests/CMakeLists.txt).
# The second kernel is Sandybridge (Haswell where Sandybridge is the native one), if the CPU can
# run it; MNRL_SECOND_KERNEL=NAME picks another, MNRL_SECOND_KERNEL=none runs all under the
# CPU's own.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MNRL_BUILD_DIR:-$root/build}
started=$SECONDS
phases=()
# phase_done NAME START: prints and records how long the phase begun at START took.
phase_done() {
  local took=$((SECONDS - $2))
  phases+=("$1 $((took / 60)) min $((took % 60)) s")
  echo "== $1 took $((took / 60)) min $((took % 60)) s"
}

start=$SECONDS
"$root/scripts/setup.sh" test
phase_done setup $start
start=$SECONDS
"$root/scripts/build.sh" --for test
phase_done build $start
cd "$build"

# Names each test that ctest skipped (its summary, saved in $1), with the reason the test
# printed: a GTEST_SKIP() message, or else its last line of output (a script that exits with
# the skip code says why just before).
print_skips() {
  local summary=$1 log=Testing/Temporary/LastTest.log name reason
  sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$summary" | while read -r name; do
    reason=""
    if [ -f "$log" ]; then
      reason=$(awk -v name="${name%%  # GetParam*}" '
        /^[0-9]+\/[0-9]+ Test: / { mine = ($3 == name) }  # $3: the name without its "# GetParam()"
        mine && /: Skipped$/ { getline; gtest = $0 }
        mine && /^<end of output>/ { last = previous; mine = 0 }
        { previous = $0 }
        END { print (gtest != "" ? gtest : last) }
      ' "$log")
    fi
    echo "  skipped: $name: ${reason:-(no reason printed)}"
  done
}

# The kernel OPENBLAS_CORETYPE=$1 gives (the CPU's own without $1), as mnrl sees it; "" when
# the BLAS is not OpenBLAS.
kernel_under() {
  if [ -n "$1" ]; then
    OPENBLAS_CORETYPE=$1 "$build/apps/mnrl" --version
  else
    env -u OPENBLAS_CORETYPE "$build/apps/mnrl" --version
  fi | sed -n 's/^BLAS: .*, kernel //p'
}

# A forced kernel runs its instructions whatever the CPU has: only offer what it can run.
cpu_runs() {
  case $1 in
    Sandybridge) grep -qw avx /proc/cpuinfo ;;
    Haswell | Zen) grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo ;;
    SkylakeX | Cooperlake) grep -qw avx512f /proc/cpuinfo ;;
    *) true ;;
  esac
}

# The second kernel: the one asked for, else the first of Sandybridge and Haswell that differs
# from this CPU's own and that this CPU can run; none where the BLAS cannot be switched.
second_kernel() {
  local native second candidate
  native=$(kernel_under "")
  if [ -n "${MNRL_SECOND_KERNEL:-}" ]; then
    second=$MNRL_SECOND_KERNEL
  else
    second=none
    for candidate in Sandybridge Haswell; do
      if [ "$candidate" != "$native" ] && cpu_runs "$candidate"; then
        second=$candidate
        break
      fi
    done
  fi
  if [ -z "$native" ]; then
    echo "test.sh: libblas.so.3 is not OpenBLAS: the learning tests run under its rounding only" >&2
  elif [ "${MNRL_SECOND_KERNEL:-}" = none ]; then
    echo "test.sh: MNRL_SECOND_KERNEL=none: every learning test under this CPU's kernel ($native)" >&2
  elif [ "$second" = none ]; then
    echo "test.sh: no second OpenBLAS kernel to try on this CPU (kernel $native)" >&2
  elif [ "$(kernel_under "$second")" != "$second" ]; then
    echo "test.sh: this OpenBLAS cannot be switched to kernel $second (no DYNAMIC_ARCH?)" >&2
  else
    echo "== a share of the learning tests under OPENBLAS_CORETYPE=$second (this CPU's kernel: $native)" >&2
    echo "$second"
  fi
}

second=$(second_kernel)
if ! grep -qx "MNRL_SECOND_KERNEL:STRING=$second" CMakeCache.txt; then
  cmake -DMNRL_SECOND_KERNEL="$second" . > /dev/null
fi

start=$SECONDS
status=0
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
ctest --output-on-failure --parallel "$(nproc)" "$@" | tee "$summary" || status=$?
print_skips "$summary"
phase_done tests $start
echo "== phases: $(IFS=,; echo "${phases[*]}" | sed 's/,/, /g'); in all $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s"
exit $status
