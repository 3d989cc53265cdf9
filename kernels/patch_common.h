// Vertex patches of a Cartesian level (DESIGN.md §4): patch j is the 2^d cells around
// interior vertex j, (2k+1)^d nodes of which (2k-1)^d are interior. Patches are colored by
// vertex parity per direction, color c = Σ_i parity_i 2^i.
#pragma once

#include "cell_grid.h"
#include "runner.h"
#include "tensor.h"

#include <tpmg/mesh.h>

namespace tpmg
{
  template <int dim_, int k_>
  struct PatchShape
  {
    static constexpr int dim = dim_;
    static constexpr int k   = k_;
    static constexpr int np  = 2 * k + 1; ///< patch nodes per direction
    static constexpr int ni  = 2 * k - 1; ///< interior patch nodes per direction
    static constexpr int nz  = dim == 3 ? np : 1;
    static constexpr int nzi = dim == 3 ? ni : 1;
    static constexpr int patch_dofs    = ipow<np, dim>();
    static constexpr int interior_dofs = ipow<ni, dim>();
    /// patches per block of the basic kernels: about 128 threads in the column structure,
    /// (np, np) per patch (PatchKernel; the per-DoF structure multiplies the threads)
    static constexpr int threads_per_patch = np * np;
    static constexpr int patches_per_block = cmax(1, 128 / threads_per_patch);
  };

  /// Which patches a launch works on: those of one color of a level.
  struct PatchColorGeometry
  {
    index_t nodes[3];      ///< level nodes per direction
    index_t count[3];      ///< patches of this color per direction
    index_t first_vertex[3]; ///< vertex index of the first patch of this color per direction
    index_t n_patches;     ///< Π count
    int     degree;
    CellGrid patches;      ///< patch coordinates (count per direction) from the patch index

    /// First node (lowest corner) of patch p of this color, from its coordinates in 32 bits
    /// without a division instruction (cell_grid.h; patch_color_geometry builds `patches`).
    TPMG_HD void first_node(index_t p, index_t *c0) const
    {
      unsigned q[3];
      patches.coordinates(unsigned(p), q);
      c0[0] = (first_vertex[0] + 2 * index_t(q[0]) - 1) * degree;
      c0[1] = (first_vertex[1] + 2 * index_t(q[1]) - 1) * degree;
      c0[2] = count[2] > 0 && nodes[2] > 1 ? (first_vertex[2] + 2 * index_t(q[2]) - 1) * degree : 0;
    }
    TPMG_HD index_t global(const index_t *c0, int x, int y, int z) const
    {
      return (c0[0] + x) + nodes[0] * ((c0[1] + y) + nodes[1] * (c0[2] + z));
    }
    /// Global index of the first node of patch p; node (x, y, z) of the patch is at
    /// first_index(p) + offset(x, y, z).
    TPMG_HD index_t first_index(index_t p) const
    {
      index_t c0[3];
      first_node(p, c0);
      return global(c0, 0, 0, 0);
    }
    TPMG_HD index_t offset(int x, int y, int z) const { return x + nodes[0] * (y + nodes[1] * z); }
  };

  /// Geometry of color `color` of a level (parity bit d of the color = vertex parity in d).
  PatchColorGeometry patch_color_geometry(const CartesianLevel &level, int color);
} // namespace tpmg
