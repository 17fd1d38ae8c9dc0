#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest. Extra arguments go to
# ctest, e.g. `scripts/test.sh -L unit` for the quick subset.
#
# Without arguments, the learning tests then run a second time under another OpenBLAS kernel:
# LibTorch multiplies through OpenBLAS, whose kernel (picked per CPU) decides the float
# rounding, and learning must hold under every rounding, not only this machine's. The second
# kernel is Sandybridge (Haswell where Sandybridge is the native one); MNRL_SECOND_KERNEL=NAME
# picks another, MNRL_SECOND_KERNEL=none skips the second pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
build=${MNRL_BUILD_DIR:-$root/build}
cd "$build"

# Names each test that ctest skipped in its last run, with the reason the test printed (a
# GTEST_SKIP() message, or a script's last line before it exited with the skip code).
print_skips() {
  awk '
    /^[0-9]+\/[0-9]+ Test: / { name = $3; reason = ""; previous = "" }
    /: Skipped$/ { if ((getline line) > 0 && reason == "") reason = line }
    /^<end of output>/ { if (reason == "") reason = previous }
    { previous = $0 }
    /Skip regular expression found|[Ss]kip return code|^Test Skipped/ { skipped[name] = reason }
    END { for (n in skipped) printf "  skipped: %s: %s\n", n, skipped[n] }
  ' Testing/Temporary/LastTest.log 2>/dev/null | sort
}

status=0
ctest --output-on-failure --parallel "$(nproc)" "$@" || status=$?
print_skips

if [ $# -eq 0 ]; then
  native=$("$build/apps/mnrl" --version | sed -n 's/^BLAS: .*, kernel //p')
  second=${MNRL_SECOND_KERNEL:-Sandybridge}
  [ "$second" = "$native" ] && second=Haswell
  if ! grep -qw avx /proc/cpuinfo; then second=none; fi  # Sandybridge and Haswell need AVX
  if [ -z "$native" ]; then
    echo "test.sh: libblas.so.3 is not OpenBLAS; the learning tests ran under one rounding only"
  elif [ "$second" != none ]; then
    echo "== the learning tests again, under OPENBLAS_CORETYPE=$second (this CPU's kernel: $native)"
    OPENBLAS_CORETYPE=$second ctest --output-on-failure --parallel "$(nproc)" -L learning ||
      status=$?
    print_skips
  fi
fi
exit $status
