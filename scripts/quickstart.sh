#!/usr/bin/env bash
# Quick start on a fresh Debian 12 machine (as root, like CI):
#   scripts/quickstart.sh run    install prerequisites, build, solve prm/default.prm
#   scripts/quickstart.sh test   install prerequisites, build, run the whole test suite
# The CUDA backend is built when nvcc is found (/usr/local/cuda/bin or PATH); the run uses the
# GPU when one is present, the CPU otherwise. GPU tests (ctest label "gpu") run only where a GPU is.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
build=${BUILD_DIR:-build}
jobs=$(nproc)

packages="cmake g++ make libgtest-dev libeigen3-dev"
[ "$mode" = test ] && packages="$packages libdeal.ii-dev libmuparser-dev libopenmpi-dev openmpi-bin"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing > /dev/null
fi

require_dealii=OFF
[ "$mode" = test ] && require_dealii=ON
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTPMG_REQUIRE_DEALII=$require_dealii > /tmp/tpmg-configure.log 2>&1 \
  || { cat /tmp/tpmg-configure.log; exit 1; }
grep -E "tpmg:|deal.II" /tmp/tpmg-configure.log || true

case "$mode" in
  run)
    cmake --build "$build" -j "$jobs" --target poisson_solver
    "$build/apps/poisson_solver" prm/default.prm
    ;;
  test)
    cmake --build "$build" -j "$jobs"
    cd "$build"
    ctest --output-on-failure -j "$jobs" -LE gpu
    if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 && [ -x tests/gpu_tests ]; then
      ctest --output-on-failure -L gpu
    else
      echo "== no GPU here: the tests labelled 'gpu' were not run"
    fi
    "$OLDPWD/scripts/ci_checks.sh" # format check, parameter fuzzer ($OLDPWD: the root, before cd "$build")
    ;;
  *)
    echo "usage: $0 run|test" >&2
    exit 2
    ;;
esac
