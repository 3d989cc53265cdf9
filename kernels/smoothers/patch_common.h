// Vertex patches of a Cartesian level (docs/method.md, "Vertex-patch smoother"): patch j is the 2^d cells around
// interior vertex j, (2k+1)^d nodes of which (2k-1)^d are interior. Patches are colored by
// vertex parity per direction, color c = Σ_i parity_i 2^i.
#pragma once

#include <kernels/common/cell_grid.h>
#include <kernels/common/tensor.h>
#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>

namespace tpmg
{
  /// What a patch kernel does: `fused` local residual and solve, `residual` the local residual
  /// into a global vector, `solve` the local solve of a residual read from one (docs/kernels.md,
  /// "Smoother kernel variants": `separate` is residual + solve, `global` a global residual +
  /// solve).
  enum class PatchKernelKind
  {
    fused,
    residual,
    solve
  };

  template <int dim_, int k_>
  struct PatchShape
  {
    static constexpr int dim           = dim_;
    static constexpr int k             = k_;
    static constexpr int np            = 2 * k + 1; ///< patch nodes per direction
    static constexpr int ni            = 2 * k - 1; ///< interior patch nodes per direction
    static constexpr int nz            = dim == 3 ? np : 1;
    static constexpr int nzi           = dim == 3 ? ni : 1;
    static constexpr int patch_dofs    = ipow<np, dim>();
    static constexpr int interior_dofs = ipow<ni, dim>();
    /// patches per block of the basic kernels: about 128 threads in the column structure,
    /// (np, np) per patch (PatchKernel; the per-DoF structure multiplies the threads)
    static constexpr int threads_per_patch = np * np;
    static constexpr int patches_per_block = cmax(1, 128 / threads_per_patch);
  };

  /// The "colour" of a launch over every vertex patch of a level (patch_color_geometry): only
  /// for launches that add atomically, since neighbouring patches share unknowns.
  constexpr int all_colours = -1;

  /// Which patches a launch works on: those of one color of a level (or all_colours).
  struct PatchColorGeometry
  {
    index_t  nodes[3];        ///< level nodes per direction
    index_t  count[3];        ///< patches of this color per direction
    index_t  first_vertex[3]; ///< vertex index of the first patch of this color per direction
    index_t  vertex_step;     ///< vertex index from a patch to the next along d: 2 (1 for all_colours)
    index_t  n_patches;       ///< Π count
    CellGrid patches;         ///< patch coordinates (count per direction) from the patch index

    index_t  first_base;     ///< global index of the first node of the patch at coordinates (0, 0, 0)
    unsigned patch_step[3];  ///< global index from a patch to the next one along d: vertex_step k node_stride[d]
    unsigned node_stride[3]; ///< global index from a node to the next along d (0 where d ≥ dim)

    /// Global index of the first node (lowest corner) of patch p of this color; node (x, y, z) of
    /// the patch is at first_index(p) + offset(x, y, z). From the patch's coordinates in 32 bits
    /// without a division instruction (cell_grid.h; patch_color_geometry builds `patches`), then
    /// first_base + Σ q_d patch_step[d]: three 32 × 32 → 64-bit multiply-adds, where 64-bit
    /// products of the node coordinates took about 80 instructions per thread (Nsight Compute;
    /// docs/performance/smoother.md, "32-bit patch addressing"), paid by every thread of the patch.
    TPMG_HD TPMG_FORCEINLINE index_t first_index(index_t p) const
    {
      unsigned q[3];
      patches.coordinates(unsigned(p), q);
      return first_base + index_t(std::uint64_t(q[0]) * patch_step[0] + std::uint64_t(q[1]) * patch_step[1] +
                                  std::uint64_t(q[2]) * patch_step[2]);
    }
    TPMG_HD index_t offset(int x, int y, int z) const { return x + nodes[0] * (y + nodes[1] * z); }
    /// offset(x, y, z) for the nodes of a patch, in 32 bits (patch_color_geometry checks that a
    /// patch's span fits)
    TPMG_HD TPMG_FORCEINLINE unsigned offset32(int x, int y, int z) const
    {
      return unsigned(x) + node_stride[1] * unsigned(y) + node_stride[2] * unsigned(z);
    }
  };

  /// v + first, the patch's first node in vector v, as a pointer the compiler cannot take apart
  /// again: indexed by 32-bit offsets it gives one 32 × 32 → 64-bit multiply-add per address.
  /// Without the barrier nvcc folds the offsets back into 64-bit indices (first + offset, then
  /// scaled and added to v): four or five instructions per load (SASS; docs/performance/
  /// smoother.md, "32-bit patch addressing").
  template <typename T>
  TPMG_HD TPMG_FORCEINLINE T *patch_pointer(T *v, index_t first)
  {
    T *p = v + first;
#if TPMG_DEVICE_CODE
    asm("" : "+l"(p));
    __builtin_assume(__isGlobal(p)); // keeps the loads and reductions global (LDG, REDG)
#endif
    return p;
  }

} // namespace tpmg
