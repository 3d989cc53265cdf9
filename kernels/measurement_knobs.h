// Build switches for measurements, the only ones the kernels have. Each turns a kernel into an
// instrument; none is for production builds, and the defaults are the measured kernels.
//
//   TPMG_SMOOTHER_MEMORY_SKELETON=1   the fused fiber kernels become their memory skeleton: they
//       load the patch and add b_I to x_I with the same layouts, launch shape and update, and
//       compute nothing; their time bounds the fused kernel's from below whatever the arithmetic
//       costs (benchmarks/reproduce.sh memory-floor; docs/performance/smoother.md, "Memory
//       skeleton").
//   TPMG_FIBER_CUBE_PLANE_STRIDE=S, TPMG_FIBER_CUBE_ROW_STRIDE=R   every in-place patch cube gets
//       plane stride S and row stride R (0: the measured ones, fiber_policy.h); for the CPU
//       recorder's sweep tools/cube_stride_sweep.sh (docs/performance/smoother.md, "Padded patch
//       cube").
//   TPMG_FIBER_STAGGER=1   the fiber kernels' blocks below `stagger_blocks` (the first wave) wait
//       (block mod 3) * `stagger_ns` ns before their loads, both read from the environment
//       (TPMG_STAGGER_NS, TPMG_STAGGER_BLOCKS; 0: no wait): whether blocks that start in step keep
//       their loads from overlapping their arithmetic (docs/performance/solve.md, "What the bytes
//       cost the smoother").
#pragma once

#ifndef TPMG_SMOOTHER_MEMORY_SKELETON
#define TPMG_SMOOTHER_MEMORY_SKELETON 0
#endif
#ifndef TPMG_FIBER_CUBE_PLANE_STRIDE
#define TPMG_FIBER_CUBE_PLANE_STRIDE 0
#endif
#ifndef TPMG_FIBER_CUBE_ROW_STRIDE
#define TPMG_FIBER_CUBE_ROW_STRIDE 0
#endif
#ifndef TPMG_FIBER_STAGGER
#define TPMG_FIBER_STAGGER 0
#endif
