#!/usr/bin/env bash
# Bank-recorder sweep of the plane stride of the in-place patch cube (FiberPatchKernel::
# cube_plane_stride) for one fused 3D linear_indexing kernel: builds
# tools/cube_stride_sweep.cc against a CPU build's libtpmg.a for each stride S2 =
# R·np..R·np+48 for each row stride R = np..np+ROWS (ROWS = 0: rows np apart) and prints
# "S2 wavefronts ideal S1", fewest wavefronts first.
#   tools/cube_stride_sweep.sh DEGREE float|double PATCHES_PER_BLOCK [BUILD_DIR=build] [ROWS=0]
set -euo pipefail
cd "$(dirname "$0")/.."
k=$1 prec=$2 P=$3 B=${4:-build} rows=${5:-0}
np=$((2 * k + 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s1 in $(seq $np $((np + rows))); do
  for s2 in $(seq $((s1 * np)) $((s1 * np + 48))); do
    g++ -std=c++17 -O1 -fopenmp -DTPMG_FIBER_CUBE_PLANE_STRIDE=$s2 -DTPMG_FIBER_CUBE_ROW_STRIDE=$s1 -DSWEEP_DEGREE=$k \
      -DSWEEP_NUMBER=$prec -DSWEEP_PATCHES=$P -Iinclude -I. -I$B/generated tools/cube_stride_sweep.cc $B/src/libtpmg.a \
      -o "$tmp/sweep"
    echo "$("$tmp/sweep") $s1"
  done
done | sort -k2,2n -k1,1n
