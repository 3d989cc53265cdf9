#!/usr/bin/env bash
# Fuzzes one of the input readers with libFuzzer, ASan and UBSan:
#
#   scripts/fuzz.sh TARGET [SECONDS] [WORKDIR]
#
# TARGET: `parameters` (tools/fuzz/fuzz_parameters.cc: src/base/parameters.cc and
# src/app/solver_parameters.cc with its checks, parameter_checks.cc, on poisson_solver's path; seeds
# prm/ and tests/bad_input/) or `expression` (tools/fuzz/fuzz_expression.cc: src/base/expression.cc,
# the Problem functions; seeds tools/fuzz/expression_seeds/). SECONDS (default 60) bounds the run
# (0: build, then run the seeds once); WORKDIR (default /tmp/tpmg-fuzz) holds the binary, the corpus
# the run grows (kept for the next run) and the findings. Needs clang++ (or clang++-14) and
# libFuzzer's runtime (Debian 12: clang-14 libclang-rt-14-dev). The target compiles in seconds
# from a few library sources; it needs a build's generated tpmg/degrees.h (FUZZ_INCLUDE_DIRS).
# Exit codes: 0 no finding, 1 a finding (its reproducer is printed), 2 no compiler or no build.
# Environment: CXX_FUZZ picks the compiler; FUZZ_JOBS > 1 runs that many fuzzing processes;
# FUZZ_EXTRA_SOURCES adds sources to the target, FUZZ_INCLUDE_DIRS include directories (a
# build's generated headers; scripts/ci_checks.sh passes $BUILD_DIR/generated).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${1:-}
seconds=${2:-60}
work=${3:-${TMPDIR:-/tmp}/tpmg-fuzz}
jobs=${FUZZ_JOBS:-1}
usage() { echo "usage: $0 parameters|expression [SECONDS] [WORKDIR]" >&2; exit 2; }
case "$seconds" in '' | *[!0-9]*) usage ;; esac

cxx=${CXX_FUZZ:-}
if [ -z "$cxx" ]; then
  for c in clang++ clang++-14 clang++-15 clang++-16; do
    if command -v "$c" > /dev/null 2>&1; then cxx=$c; break; fi
  done
fi
[ -n "$cxx" ] || { echo "fuzz: no clang++ found (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }

case "$target" in
  parameters)
    # the parameter reader, the declarations of poisson_solver and what their checks call: the
    # smoother rules, the expression parser, the mesh sizes, the coarse level, the deformations
    sources=("$root/tools/fuzz/fuzz_parameters.cc" "$root/src/base/parameters.cc" "$root/src/app/solver_parameters.cc"
             "$root/src/app/parameter_checks.cc"
             "$root/src/smoothers/smoother_configuration.cc" "$root/src/base/expression.cc"
             "$root/src/base/mesh.cc" "$root/src/discretization/geometry.cc"
             "$root/src/discretization/fe_1d.cc" "$root/src/multigrid/hierarchy.cc")
    seeds=("$root/prm" "$root/tests/bad_input")
    dict=(-dict="$root/tools/fuzz/parameters.dict")
    ;;
  expression)
    sources=("$root/tools/fuzz/fuzz_expression.cc" "$root/src/base/expression.cc")
    seeds=("$root/tools/fuzz/expression_seeds")
    dict=()
    ;;
  *) usage ;;
esac
work=$work/$target
mkdir -p "$work/corpus" "$work/findings"
exe=$work/fuzz_$target
# shellcheck disable=SC2206
sources+=(${FUZZ_EXTRA_SOURCES:-})
# rebuilt when a source or header is newer than the binary (the headers: include/tpmg, kernels/)
if [ ! -x "$exe" ] || [ -n "$(find "${sources[@]}" "$root/include/tpmg" "$root/kernels" "$0" -newer "$exe" -print -quit)" ]; then
  echo "== fuzz: building $exe with $cxx"
  start=$(date +%s)
  includes=(-I"$root/include" -I"$root")
  for d in ${FUZZ_INCLUDE_DIRS:-}; do includes+=(-I"$d"); done
  "$cxx" -std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -Wall -Wextra "${includes[@]}" "${sources[@]}" -o "$exe.tmp" \
    || { echo "fuzz: the build failed (the compiler's messages above; where it cannot link libFuzzer's runtime: apt-get install libclang-rt-14-dev)" >&2; exit 2; }
  mv "$exe.tmp" "$exe"
  echo "== fuzz: built in $(($(date +%s) - start)) s"
fi

# A finding is written to $work/findings/ (crash-*, leak-*, timeout-*, oom-*). Leak checks
# need ptrace, which some containers forbid: they are on where LeakSanitizer works.
detect_leaks=1
ASAN_OPTIONS=detect_leaks=1 "$exe" -runs=0 > /dev/null 2>&1 || detect_leaks=0
[ "$detect_leaks" = 1 ] || echo "== fuzz: LeakSanitizer does not work here; leaks are not checked"
# (a small quarantine and short allocation stacks: the target allocates many small strings,
# and page faults are what cost most on small virtual machines; ASAN_OPTIONS adds to these)
export ASAN_OPTIONS="detect_leaks=$detect_leaks:quarantine_size_mb=16:malloc_context_size=10${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
rm -f "$work/findings/"*
echo "== fuzz $target: $seconds s, corpus $work/corpus (+ seeds ${seeds[*]#"$root/"})"
limit=(-max_total_time="$seconds")
[ "$seconds" -gt 0 ] || { limit=(-runs=0); jobs=1; } # (-max_total_time=0 has no limit)
args=("${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=4096
      "${dict[@]}" -artifact_prefix="$work/findings/" -print_final_stats=1)
log=$work/fuzz.log
set +e
if [ "$jobs" -gt 1 ]; then
  (cd "$work" && "$exe" "${args[@]}" -fork="$jobs" -ignore_crashes=0 "$work/corpus" "${seeds[@]}") > "$log" 2>&1
else
  "$exe" "${args[@]}" "$work/corpus" "${seeds[@]}" > "$log" 2>&1
fi
rc=$?
set -e
# (the last progress line: executions, coverage, corpus; fork mode has no stat:: lines)
grep -E "^#[0-9]+" "$log" | tail -n 1 || true
grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done )" "$log" || true
findings=("$work/findings/"*)
if [ "$rc" -eq 0 ] && [ ! -e "${findings[0]}" ]; then
  echo "== fuzz: no finding"
  exit 0
fi
echo "== fuzz: FINDING (libFuzzer exit code $rc); the end of $log:" >&2
grep -v -E "^#[0-9]+" "$log" | tail -n 60 >&2
for f in "${findings[@]}"; do
  [ -e "$f" ] || continue
  echo "== reproducer $f ($(wc -c < "$f") bytes), as C escapes:" >&2
  od -An -c "$f" | head -n 40 >&2
  echo "== rerun: $exe $f" >&2
done
exit 1
