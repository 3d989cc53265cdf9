#include <tpmg/partition.h>

#include <kernels/smoothers/patch_common.h>
#include <src/smoothers/patch_geometry.h>
#include <src/smoothers/patch_split.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tpmg
{
  PatchColorGeometry patch_color_geometry(const CartesianLevel &level, int color, const CentreBox *part)
  {
    PatchColorGeometry g{};
    g.n_patches   = 1;
    g.vertex_step = color == all_colours ? 1 : 2;
    for (int d = 0; d < 3; ++d)
      {
        g.nodes[d] = level.nodes(d);
        if (d < level.dim)
          {
            // the centre vertices of the patches (partition.h), in this level's vertex indices
            const index_t off   = level.global_offset(d);
            auto          range = patch_centres(level, d);
            if (part)
              range = {std::max(range.first, part->first[std::size_t(d)]),
                       std::min(range.second, part->last[std::size_t(d)])};
            const index_t first = range.first - off, last = range.second - off;
            // parity of the whole level's vertex index
            const index_t parity = (color >> d) & 1;
            g.first_vertex[d]    = color == all_colours ? first : first + (((first + off) ^ parity) & 1);
            g.count[d]           = last >= g.first_vertex[d] ? (last - g.first_vertex[d]) / g.vertex_step + 1 : 0;
          }
        else
          {
            g.first_vertex[d] = 1;
            g.count[d]        = 1;
          }
        g.n_patches *= g.count[d];
      }
    if (g.n_patches >= (index_t(1) << 31))
      throw std::length_error("a launch of the level with " + std::to_string(level.n_dofs()) +
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
        g.patch_step[d]  = unsigned(g.vertex_step * k * stride[d]);
        g.first_base += (g.first_vertex[d] - 1) * k * stride[d];
      }
    return g;
  }

  std::array<std::vector<index_t>, 8> boundary_patch_vertices(const CartesianLevel &level)
  {
    std::array<std::vector<index_t>, 8> lists;
    const int                           dim = level.dim;
    const index_t nv[3] = {level.cells[0] + 1, dim > 1 ? level.cells[1] + 1 : 1, dim > 2 ? level.cells[2] + 1 : 1};
    if (level.dirichlet_faces == all_faces)
      return lists;
    for (index_t v2 = 0; v2 < nv[2]; ++v2)
      for (index_t v1 = 0; v1 < nv[1]; ++v1)
        for (index_t v0 = 0; v0 < nv[0]; ++v0)
          {
            const index_t v[3] = {v0, v1, v2};
            bool          face = false, patch = true;
            int           colour = 0;
            for (int d = 0; d < dim; ++d)
              {
                const bool lower = v[d] == 0, upper = v[d] == level.cells[d];
                if ((lower && level.dirichlet(2 * d)) || (upper && level.dirichlet(2 * d + 1)) ||
                    v[d] < level.owned_begin(d) || v[d] > level.owned_end(d))
                  patch = false;
                face = face || lower || upper;
                colour |= int((v[d] + level.global_offset(d)) & 1) << d;
              }
            if (patch && face)
              lists[std::size_t(colour)].push_back(v0 + nv[0] * (v1 + nv[1] * v2));
          }
    return lists;
  }

  OverlappedColours overlapped_colours(const CartesianLevel &level, const std::vector<int> &colours, Backend backend,
                                       ExchangeOverlap overlap)
  {
    OverlappedColours result;
    if (overlap == ExchangeOverlap::never)
      return result;
    const CentreSplit split = split_patch_centres(level);
    if (!overlap_exchanges(split, level, backend, overlap))
      return result;
    for (const int c : colours)
      {
        std::vector<PatchColorGeometry> near;
        for (const CentreBox &part : split.near)
          near.push_back(patch_color_geometry(level, c, &part));
        result.near.push_back(std::move(near));
        result.inner.push_back(patch_color_geometry(level, c, &split.inner));
      }
    return result;
  }

  OverlappedColours overlapped_colours(const CartesianLevel &level, int n_colours, Backend backend,
                                       ExchangeOverlap overlap)
  {
    std::vector<int> colours(static_cast<std::size_t>(n_colours));
    for (int c = 0; c < n_colours; ++c)
      colours[std::size_t(c)] = c;
    return overlapped_colours(level, colours, backend, overlap);
  }
} // namespace tpmg
