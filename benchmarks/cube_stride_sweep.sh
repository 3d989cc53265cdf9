#!/usr/bin/env bash
# Bank-recorder sweep of the plane stride of the in-place patch cube (FiberPatchKernel::
# cube_plane_stride) for one fused 3D linear_indexing kernel: builds
# benchmarks/cube_stride_sweep.cc against a CPU build's libtpmg.a for each stride S2 =
# np²..np²+48 and prints "S2 wavefronts ideal", fewest wavefronts first.
#   benchmarks/cube_stride_sweep.sh DEGREE float|double PATCHES_PER_BLOCK [BUILD_DIR=build]
set -euo pipefail
cd "$(dirname "$0")/.."
k=$1 prec=$2 P=$3 B=${4:-build}
np=$((2 * k + 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s2 in $(seq $((np * np)) $((np * np + 48))); do
  g++ -std=c++17 -O1 -fopenmp -DTPMG_FIBER_CUBE_PLANE_STRIDE=$s2 -DSWEEP_DEGREE=$k -DSWEEP_NUMBER=$prec -DSWEEP_PATCHES=$P \
    -Iinclude -I$B/generated benchmarks/cube_stride_sweep.cc $B/src/libtpmg.a -o "$tmp/sweep"
  "$tmp/sweep"
done | sort -k2,2n -k1,1n
