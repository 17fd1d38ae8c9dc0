#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest. Extra arguments go to
# ctest, e.g. `scripts/test.sh -L unit` for the quick subset.
#
# Without arguments, the learning tests then run a second time under another OpenBLAS kernel:
# LibTorch multiplies through OpenBLAS, whose kernel (picked per CPU) decides the float
# rounding, and learning must hold under every rounding, not only this machine's. The second
# kernel is Sandybridge (Haswell where Sandybridge is the native one), if the CPU can run it;
# MNRL_SECOND_KERNEL=NAME picks another, MNRL_SECOND_KERNEL=none skips the second pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${MNRL_BUILD_DIR:-$root/build}
cd "$build"

# Names each test that ctest skipped (its summary, saved in $1), with the reason the test
# printed: a GTEST_SKIP() message, or else its last line of output (a script that exits with
# the skip code says why just before).
print_skips() {
  local summary=$1 log=Testing/Temporary/LastTest.log name reason
  sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$summary" | while read -r name; do
    reason=""
    if [ -f "$log" ]; then
      reason=$(awk -v name="$name" '
        /^[0-9]+\/[0-9]+ Test: / { mine = ($3 == name) }
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

status=0
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
ctest --output-on-failure --parallel "$(nproc)" "$@" | tee "$summary" || status=$?
print_skips "$summary"

if [ $# -eq 0 ]; then
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
    echo "test.sh: libblas.so.3 is not OpenBLAS: the learning tests ran under its rounding only"
  elif [ "$second" = none ]; then
    echo "test.sh: no second OpenBLAS kernel to try on this CPU (kernel $native)"
  elif [ "$(kernel_under "$second")" != "$second" ]; then
    echo "test.sh: this OpenBLAS cannot be switched to kernel $second (no DYNAMIC_ARCH?)"
  else
    echo "== the learning tests again, under OPENBLAS_CORETYPE=$second (this CPU's kernel: $native)"
    OPENBLAS_CORETYPE=$second ctest --output-on-failure --parallel "$(nproc)" -L learning |
      tee "$summary" || status=$?
    print_skips "$summary"
  fi
fi
exit $status
