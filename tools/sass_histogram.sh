#!/usr/bin/env bash
# Static SASS opcode counts of the kernels in a CUDA object whose mangled names contain PATTERN
# (e.g. the fused 3D float k = 4 linear_indexing fiber kernel:
#  'FiberPatchKernelILi3ELi4EfLNS_15PatchKernelKindE0ELNS_18KernelOptimizationE1ELb0E').
# The fiber kernels are fully unrolled, so these are the instructions one thread issues per patch.
#   tools/sass_histogram.sh OBJECT PATTERN...
set -euo pipefail
obj=$1
shift
for pat in "$@"; do
  echo "== $pat"
  cuobjdump -sass "$obj" | awk -v pat="$pat" '
    /Function :/ { keep = index($0, pat) > 0; next }
    keep && /^[[:space:]]+\/\*[0-9a-f]+\*\// {
      line = $0; sub(/^[[:space:]]+\/\*[0-9a-f]+\*\/[[:space:]]+/, "", line)
      n = split(line, t, /[[:space:]]+/); op = t[1]; if (op ~ /^@/) op = t[2]
      sub(/\..*/, "", op); sub(/;$/, "", op); c[op]++; total++ }
    END { for (o in c) printf "%7d %s\n", c[o], o; printf "%7d TOTAL\n", total }' | sort -rn | head -25
done
