// The tuning of the fiber patch kernels (patch_fiber.h) as data: for each kernel (dimension,
// degree, precision, kind, optimization) its launch shape, shared layout and code choices. One
// rule per line, each with the section of docs/performance/smoother.md that measured it. The
// kernel reads its row at compile time; the host (resolve_smoother) reads the same row at run
// time, so the two cannot disagree.
#pragma once

#include <kernels/measurement_knobs.h>
#include <kernels/smoothers/patch_common.h>

#include <tpmg/option_enums.h>

namespace tpmg
{
  /// Which fiber kernel: the kernel's template arguments that its tuning depends on.
  struct FiberKernelKey
  {
    int                dim, k;
    int                number_bytes; ///< 4 float, 8 double
    PatchKernelKind    kind;
    KernelOptimization optimization;

    constexpr bool single() const { return number_bytes == 4; }
    /// the unpadded layout of `linear_indexing` (the others pad against bank conflicts)
    constexpr bool padded() const { return optimization != KernelOptimization::linear_indexing; }
    constexpr bool fused_3d_li() const { return dim == 3 && kind == PatchKernelKind::fused && !padded(); }
  };

  /// The tuning of one fiber kernel.
  struct FiberPolicy
  {
    int  fibers_per_thread;          ///< 1, or 2 (a thread owns fibers f and f + T of a stage)
    int  threads_per_patch;          ///< T: the widest stage's fibers (np² in 3D) / fibers_per_thread
    bool in_place;                   ///< the stages overwrite two patch cubes instead of separate tensors
    bool turned;                     ///< kernel x is the mesh's z (2D: y), so b and x are accessed along the mesh's x
    int  resident_blocks;            ///< launch bounds: blocks per SM asked for (0: none)
    int  resident_patches;           ///< patches per block under those bounds
    int  max_block_threads;          ///< threads per block the register budget is made for
    int  max_patches_per_block;      ///< the most patches a block may take
    int  measured_patches_per_block; ///< fused 3D linear_indexing: P measured fastest (0: the rule)
    int  cube_plane_stride;          ///< in place: words between the planes of a patch cube (0: np²)
    int  cube_row_stride;            ///< in place: words between its rows (0: np)
    bool pointer_chain;              ///< global addresses along a line as a chain of pointer steps
    bool exclusive_update;           ///< x_I += c by exclusive_add where the old x is re-read
    bool prefetch_b;                 ///< b loaded one phase ahead of the residual's x-stage
    int  inverse_sums_entries;       ///< entries per fiber multiplied by a table of 1/eigenvalue sums (rest divide)
    bool eigenvectors_in_bank;       ///< S from the __constant__ bank instead of immediates
    bool approximate_division;       ///< float on the GPU: the eigenvalue division as reciprocal times value

    /// Patches per block when the user leaves it to the library: the measured P of the fused 3D
    /// linear_indexing kernels, else the most patches that keep a block at 256 threads (512
    /// for float patches of more than 128 threads), and at least 16 for 2D float.
    constexpr int automatic_patches_per_block(const FiberKernelKey &key) const
    {
      if (key.fused_3d_li() && measured_patches_per_block > 0)
        return cmin(measured_patches_per_block, max_patches_per_block);
      const int limit = key.single() && threads_per_patch > 128 ? 512 : 256;
      int       p     = 1;
      while (2 * p * threads_per_patch <= limit && 2 * p <= max_patches_per_block)
        p *= 2;
      if (key.dim == 2 && key.single())
        while (p < 16 && 2 * p <= max_patches_per_block)
          p *= 2;
      return p;
    }
  };

  /// Words between the planes of the in-place patch cube found best by a search over a model
  /// of the banks (smoother.md#padded-patch-cube); 0: np².
  constexpr int measured_cube_plane_stride(int dim, int k, bool single)
  {
    return dim != 3 ? 0 : single ? (k == 6 ? 175 : k == 7 ? 239 : 0) : (k == 6 ? 173 : 0);
  }

  /// The tuning rules, measured on the H100 (docs/performance/smoother.md, the section after #).
  constexpr FiberPolicy fiber_policy(const FiberKernelKey &key)
  {
    const int   dim = key.dim, k = key.k, np = 2 * k + 1, ni = 2 * k - 1;
    const bool  single = key.single(), fused = key.kind == PatchKernelKind::fused;
    FiberPolicy p{};
    // #two-fibers-per-thread: only 3D float k = 2, unpadded
    p.fibers_per_thread = dim == 3 && k == 2 && single && !key.padded() ? 2 : 1;
    p.threads_per_patch = ((dim == 3 ? np * np : np) + p.fibers_per_thread - 1) / p.fibers_per_thread;
    // #in-place: 3D unpadded, double always, float k = 5..7, fused float k = 4 and 8
    p.in_place = dim == 3 && !key.padded() && (!single || (k >= 5 && k <= 7) || (fused && (k == 4 || k == 8)));
    // #turned-patch: unpadded from k = 3 (3D) and k = 4 (2D)
    p.turned = !key.padded() && k >= (dim == 3 ? 3 : 4);
    // #resident-blocks: one in-place patch of more than 256 threads: the 2 blocks its shared
    // memory allows; fused 3D linear_indexing k = 7: 3 blocks; float k = 6: 8 blocks
    const bool one_big_patch = p.in_place && p.threads_per_patch > 256;
    p.resident_blocks        = one_big_patch ? 2 : !key.fused_3d_li() ? 0 : k == 7 ? 3 : k == 6 && single ? 8 : 0;
    // #resident-blocks: float k = 7 puts two patches in each of its 3 blocks
    p.resident_patches      = p.resident_blocks > 0 && !one_big_patch && single && key.fused_3d_li() && k == 7 ? 2 : 1;
    p.max_block_threads     = p.resident_blocks > 0 ? p.threads_per_patch * p.resident_patches : 512;
    p.max_patches_per_block = cmax(1, p.max_block_threads / p.threads_per_patch);
    // #patches-per-block: fused 3D linear_indexing, float k = 4: 4, k = 5: 2, k = 6: 1; double k = 5: 1
    p.measured_patches_per_block = dim != 3                 ? 0
                                   : p.resident_patches > 1 ? p.resident_patches
                                   : single                 ? (k == 4   ? 4
                                                               : k == 5 ? 2
                                                               : k == 6 ? 1
                                                                        : 0)
                                                            : (k == 5 ? 1 : 0);
    // #padded-patch-cube: float k = 6, 7 and double k = 6 (TPMG_FIBER_CUBE_*_STRIDE: the sweep)
    p.cube_plane_stride = !p.in_place                        ? 0
                          : TPMG_FIBER_CUBE_PLANE_STRIDE > 0 ? TPMG_FIBER_CUBE_PLANE_STRIDE
                                                             : measured_cube_plane_stride(dim, k, single);
    p.cube_row_stride   = p.in_place ? TPMG_FIBER_CUBE_ROW_STRIDE : 0;
    // #pointer-chains: 3D fused linear_indexing, float
    p.pointer_chain = single && key.fused_3d_li();
    // #exclusive-update: the fused kernels, the others from k = 4
    p.exclusive_update = fused || k >= 4;
    // #prefetch-of-b: 3D fused double k = 5 (needs a thread for every x-fiber)
    p.prefetch_b = key.kind != PatchKernelKind::solve && p.threads_per_patch >= ni * (dim == 3 ? ni : 1) && fused &&
                   dim == 3 && k == 5 && !single;
    // #inverse-eigenvalue-sums: 3D double; from k = 7 the last entry of each fiber divides
    p.inverse_sums_entries = !(dim == 3 && !single) ? 0 : k <= 6 ? ni : cmax(ni - 1, 0);
    // #eigenvectors-from-the-constant-bank: double (a DFMA takes no immediate)
    p.eigenvectors_in_bank = !single;
    // #approximate-division: float
    p.approximate_division = single;
    return p;
  }
} // namespace tpmg
