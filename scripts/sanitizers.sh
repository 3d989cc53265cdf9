#!/usr/bin/env bash
# The CPU code under the compilers' sanitizers, in a build folder of its own (CPU backend):
#
#   scripts/sanitizers.sh KIND tests [CTEST ARGS]   the test suite (default: every test but the GPU ones)
#   scripts/sanitizers.sh KIND solves               poisson_solver alone, on 4 OpenMP threads: every
#                                                   smoother kernel and optimization, Chebyshev-Jacobi,
#                                                   the outer solvers, BP3/BP5 and the fitted patches on
#                                                   deformed meshes, 2D and 3D
#   KIND: address   AddressSanitizer + UndefinedBehaviorSanitizer (build type Sanitize)
#         thread    ThreadSanitizer (build type ThreadSanitize): clang with LLVM's OpenMP (Debian:
#                   clang, libomp-dev), whose Archer tool tells TSan about OpenMP's synchronization
#
# Every finding ends its run with a failure (-fno-sanitize-recover, halt_on_error), so 0 failed
# runs is 0 findings; the summary also counts the reports in the output. BUILD: the build folder
# (build-<kind>), JOBS: parallel compile and test jobs (nproc), CXX: the compiler (thread: clang++).
set -uo pipefail
cd "$(dirname "$0")/.."
kind=${1:-}
what=${2:-}
case "$kind" in
  address) type=Sanitize ;;
  thread)
    type=ThreadSanitize
    export CXX=${CXX:-$(command -v clang++ || command -v clang++-14 || echo clang++)}
    ;;
  *) kind="" ;;
esac
case "$what" in tests | solves) ;; *) kind="" ;; esac
[ -n "$kind" ] || { sed -n '2,/^set /p' "$0" | sed '$d'; exit 2; }
shift 2
B=${BUILD:-build-$kind}
JOBS=${JOBS:-$(nproc)}
tests=ON; targets=""
[ "$what" = solves ] && { tests=OFF; targets="--target poisson_solver"; }
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=$type -DTPMG_ENABLE_CUDA=OFF -DTPMG_BUILD_TESTS=$tests > "$B.configure.log" 2>&1 ||
  { tail -20 "$B.configure.log"; exit 1; }
start=$(date +%s)
cmake --build "$B" -j "$JOBS" $targets > "$B.build.log" 2>&1 || { grep -E "error" "$B.build.log" | head -20; exit 1; }
echo "build ($kind, $type, $("${CXX:-c++}" --version | head -1)): $(($(date +%s) - start)) s"
# leaks: Open MPI's and the OpenMP runtime's own allocations at exit are not the library's
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:ignore_noninstrumented_modules=1:exitcode=66}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} # several threads on any machine
# deal.II (the cross-check's reference) runs its own tasks on TBB threads, whose synchronization
# TSan does not see in the uninstrumented library: one thread there (ours keep OMP_NUM_THREADS)
[ "$kind" = thread ] && export DEAL_II_NUM_THREADS=${DEAL_II_NUM_THREADS:-1}
pattern="ERROR: AddressSanitizer|runtime error:|WARNING: ThreadSanitizer"
start=$(date +%s)
if [ "$what" = tests ]; then
  [ $# -gt 0 ] || set -- -LE gpu
  (cd "$B" && ctest -j "$JOBS" --timeout 3000 "$@" > ctest.log 2>&1)
  rc=$?
  reports=$(grep -c -E "$pattern" "$B/Testing/Temporary/LastTest.log" 2>/dev/null)
  echo "tests ($kind): $(grep -E "tests passed|tests failed" "$B/ctest.log" | tail -1), ${reports:-0} sanitizer reports, $(($(date +%s) - start)) s"
  grep -E "^\s+[0-9]+ - .*(Failed|Timeout|Exception)" "$B/ctest.log" | head -20
  exit $rc
fi
# solves: small problems whose launches are large enough to run on all threads (config.h)
rc=0; n=0; failed=0
: > "$B/solves.log"
solve() {
  n=$((n + 1))
  "$B/apps/poisson_solver" prm/default.prm --set "Backend/Device=cpu" --set "Output/Verbose=false" "$@" \
    >> "$B/solves.log" 2>&1 || { failed=$((failed + 1)); rc=1; echo "failed: $*"; }
}
for kernel in fused separate global; do
  for opt in basic linear_indexing conflict_free reduced_residual; do
    [ "$kernel/$opt" = global/reduced_residual ] && continue
    solve --set "Mesh/Refinement level=4" --set "Polynomial degree=2" --set "Multigrid/Smoother kernel=$kernel" \
      --set "Multigrid/Kernel optimization=$opt"
  done
done
solve --set "Mesh/Refinement level=4" --set "Polynomial degree=1" # the tile kernel
solve --set "Mesh/Refinement level=4" --set "Polynomial degree=2" --set "Multigrid/Smoother=chebyshev_jacobi"
for s in cg fmg; do
  solve --set "Mesh/Refinement level=4" --set "Polynomial degree=3" --set "Solver/Type=$s"
done
for op in bp3 bp5; do
  solve --set "Mesh/Refinement level=4" --set "Polynomial degree=2" --set "Mesh/Deformation=sine" \
    --set "Mesh/Deformation amplitude=0.1" --set "Multigrid/Level operator=$op"
done
solve --set "Dimension=2" --set "Mesh/Refinement level=6" --set "Polynomial degree=4"
reports=$(grep -c -E "$pattern" "$B/solves.log")
echo "solves ($kind, OMP_NUM_THREADS=$OMP_NUM_THREADS): $n run, $failed failed, ${reports:-0} sanitizer reports, $(($(date +%s) - start)) s"
exit $rc
