#include "../kernels/patch_common.h"
#include "../kernels/patch_sweep.h"

#include <algorithm>

#include <stdexcept>
#include <string>

namespace tpmg
{
  PatchColorGeometry patch_color_geometry(const CartesianLevel &level, int color)
  {
    PatchColorGeometry g{};
    g.n_patches = 1;
    for (int d = 0; d < 3; ++d)
      {
        g.nodes[d] = level.nodes(d);
        if (d < level.dim)
          {
            const int     parity = (color >> d) & 1;
            const index_t nv     = level.cells[d] - 1;          // interior vertices 1..nv
            g.first_vertex[d]    = parity ? 1 : 2;
            g.count[d]           = nv >= g.first_vertex[d] ? (nv - g.first_vertex[d]) / 2 + 1 : 0;
          }
        else
          {
            g.first_vertex[d] = 1;
            g.count[d]        = 1;
          }
        g.n_patches *= g.count[d];
      }
    if (g.n_patches >= (index_t(1) << 31))
      throw std::length_error("a color of the level with " + std::to_string(level.n_dofs()) +
                              " DoFs has 2^31 or more vertex patches (32-bit patch indices)");
    if (g.n_patches > 0)
      g.patches = CellGrid(g.count, "vertex patches");
    // the index arithmetic of first_index and offset32: per-direction steps and a patch's span
    // in 32 bits
    const index_t stride[3] = {1, g.nodes[0], level.dim == 3 ? g.nodes[0] * g.nodes[1] : 0};
    const index_t k         = level.degree;
    if (2 * k * (stride[0] + g.nodes[0] + stride[2]) >= (index_t(1) << 32))
      throw std::length_error("the vertex patches of a level with " + std::to_string(level.n_dofs()) +
                              " DoFs span more than 2^32 nodes (32-bit offsets within a patch)");
    g.first_base = 0;
    for (int d = 0; d < 3; ++d)
      {
        g.node_stride[d] = unsigned(stride[d]);
        g.patch_step[d]  = unsigned(2 * k * stride[d]);
        g.first_base += (g.first_vertex[d] - 1) * k * stride[d];
      }
    return g;
  }

  std::vector<SweepItem> patch_sweep_items(const CartesianLevel &level, const int *color_of, int first_position, int G,
                                           int P)
  {
    if (G < 1)
      throw std::invalid_argument("a sweep by slabs needs slabs of at least one vertex plane, not " + std::to_string(G));
    if (P < 1 || P > 255)
      throw std::invalid_argument("sweep items hold 1 to 255 patches, not " + std::to_string(P));
    const int     n = 1 << level.dim, d = level.dim - 1;
    const index_t nv = level.cells[d] - 1; // interior vertices 1..nv along the slab direction
    // ⌈a / 2⌉ for any sign of a
    auto ceil_half = [](index_t a) { return a >= 0 ? (a + 1) / 2 : -((-a) / 2); };
    std::vector<PatchColorGeometry> geo(n);
    for (int i = first_position; i < n; ++i)
      geo[i] = patch_color_geometry(level, color_of[i]);
    std::vector<SweepItem> items;
    for (index_t s = 0; s * G - 1 <= nv; ++s)
      for (int i = first_position; i < n; ++i)
        {
          const PatchColorGeometry &g = geo[i];
          if (g.n_patches == 0)
            continue;
          // this color's vertices along d in [lo, hi): fv + 2q there
          const index_t shift = i >= n / 2 ? 1 : 0, lo = s * G - shift, hi = (s + 1) * G - shift;
          const index_t q_lo = std::max<index_t>(0, ceil_half(lo - g.first_vertex[d]));
          const index_t q_hi = std::min<index_t>(g.count[d], ceil_half(hi - g.first_vertex[d]));
          const index_t plane = g.n_patches / g.count[d];
          for (index_t first = q_lo * plane; first < q_hi * plane; first += P)
            items.push_back(SweepItem{unsigned(first), unsigned(i) << 8 | unsigned(std::min<index_t>(P, q_hi * plane - first))});
        }
    return items;
  }
} // namespace tpmg
