#!/usr/bin/env bash
# Quick start on a fresh Debian 12 machine (as root, like CI), or on any machine that has the
# prerequisites already:
#   scripts/quickstart.sh run    install what is missing, build, solve prm/default.prm
#   scripts/quickstart.sh test   install what is missing, build, run the whole test suite
# The CUDA backend is built when nvcc is found (/usr/local/cuda/bin or PATH); the run uses the
# GPU when one is present, the CPU otherwise. GPU tests (ctest label "gpu") run only where a GPU is.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
build=${BUILD_DIR:-build}
jobs=$(nproc)

# What the build needs, checked as commands, versions and headers (a machine may have them from
# elsewhere than Debian's packages: a CMake from pip, a compiler module); the Debian package that
# provides each is installed only where the check fails.
missing_packages="" missing_what=""
need() { # what, Debian packages, check command...
  local what=$1 pkgs=$2; shift 2
  "$@" > /dev/null 2>&1 && return
  missing_packages="$missing_packages $pkgs"
  missing_what="$missing_what; $what"
}
cmake_minimum=$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\)).*/\1/p' CMakeLists.txt)
cmake_ok() {
  local v; v=$(cmake --version | head -1 | awk '{print $3}') || return 1
  [ "$(printf '%s\n%s\n' "$cmake_minimum" "$v" | sort -V | head -1)" = "$cmake_minimum" ]
}
cxx17_ok() { echo 'int main() { if constexpr (true) return 0; }' | ${CXX:-c++} -std=c++17 -x c++ - -o /dev/null; }
any_file() { for f in "$@"; do [ -e "$f" ] && return 0; done; return 1; }
need "CMake >= $cmake_minimum" cmake cmake_ok
need "a C++17 compiler (c++ or CXX)" g++ cxx17_ok
need "make or ninja" make sh -c 'command -v make || command -v ninja'
need "Eigen 3 headers" libeigen3-dev any_file /usr/include/eigen3/Eigen/Dense /usr/local/include/eigen3/Eigen/Dense
if [ "$mode" = test ]; then
  need "GoogleTest" libgtest-dev any_file /usr/include/gtest/gtest.h /usr/local/include/gtest/gtest.h /usr/src/googletest
  need "deal.II (the cross-check)" libdeal.ii-dev any_file /usr/include/deal.II/base/config.h
  need "muparser (the expression cross-check)" libmuparser-dev any_file /usr/include/muParser.h
  need "MPI (mpirun, mpicxx)" "openmpi-bin libopenmpi-dev" sh -c 'command -v mpirun && command -v mpicxx'
fi
if [ -n "$missing_packages" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "== missing${missing_what#;}; installing:$missing_packages"
  if ! command -v apt-get > /dev/null 2>&1 || ! { $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing_packages > /dev/null; }; then
    echo "quickstart: cannot install$missing_packages here; provide${missing_what#;}" >&2
    exit 1
  fi
fi
generator=()
if [ ! -f "$build/CMakeCache.txt" ] && ! command -v make > /dev/null 2>&1; then
  generator=(-G Ninja)
fi

# Device code: optimized where a GPU can run it, else compiled for checking only (unoptimized PTX,
# about half the build time; CMakeLists.txt, TPMG_DEVICE_CODE). TPMG_DEVICE_CODE overrides.
has_gpu() { command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; }
device_code=${TPMG_DEVICE_CODE:-}
if [ -z "$device_code" ]; then
  device_code=check
  has_gpu && device_code=optimized
fi

require_dealii=OFF
[ "$mode" = test ] && require_dealii=ON
# `run` builds the solver alone (no GoogleTest needed); `test` everything
build_tests=OFF
[ "$mode" = test ] && build_tests=ON
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTPMG_REQUIRE_DEALII=$require_dealii \
  -DTPMG_BUILD_TESTS=$build_tests -DTPMG_DEVICE_CODE="$device_code" > /tmp/tpmg-configure.log 2>&1 \
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
    if has_gpu && [ -x tests/gpu_tests ]; then
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
