#!/usr/bin/env bash
# The checks CI runs after the test suite (scripts/quickstart.sh test calls this):
#   1. the format check, scripts/check_format.sh (every C++/CUDA source as .clang-format says);
#   2. the parameter fuzzer, scripts/fuzz.sh parameters, for TPMG_FUZZ_SECONDS (default 40)
#      seconds from the seed corpus (prm/, tests/bad_input/), and the expression fuzzer,
#      scripts/fuzz.sh expression, for TPMG_FUZZ_EXPRESSION_SECONDS (default 30), in
#      TPMG_FUZZ_DIR (default $BUILD_DIR/fuzz, build/fuzz), one fuzzing process per core (at
#      most 2).
# Any finding fails. Prerequisites missing on Debian are installed with apt-get, as
# quickstart.sh does: clang-14, libclang-rt-14-dev (libFuzzer) and clang-format-14.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

packages="clang-14 libclang-rt-14-dev clang-format-14"
missing=""
if command -v dpkg-query > /dev/null 2>&1; then
  for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
fi
if [ -n "$missing" ]; then
  echo "== ci_checks: installing:$missing"
  t0=$(date +%s)
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing > /dev/null
  echo "== ci_checks: installed in $(($(date +%s) - t0)) s"
fi

# 1. format
echo "== format check"
scripts/check_format.sh

# 2. fuzzer
jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -gt 2 ] && jobs=2
build=${BUILD_DIR:-build}
[[ "$build" = /* ]] || build=$PWD/$build
echo "== parameter fuzzer"
# (headers the build generates, for sources that include them)
[ -d "$build/generated" ] && export FUZZ_INCLUDE_DIRS="${FUZZ_INCLUDE_DIRS:-} $build/generated"
FUZZ_JOBS=${FUZZ_JOBS:-$jobs} scripts/fuzz.sh parameters "${TPMG_FUZZ_SECONDS:-40}" "${TPMG_FUZZ_DIR:-$build/fuzz}"
echo "== expression fuzzer"
FUZZ_JOBS=${FUZZ_JOBS:-$jobs} scripts/fuzz.sh expression "${TPMG_FUZZ_EXPRESSION_SECONDS:-30}" "${TPMG_FUZZ_DIR:-$build/fuzz}"
echo "== ci_checks: passed in $(($(date +%s) - start)) s"
