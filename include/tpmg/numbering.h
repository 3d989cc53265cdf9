// The bottom of the kernels' headers: the index type and the lexicographic numbering of a
// level's nodes, cells and vertices (docs/method.md, "Numbering"), host and device. Includes only
// tpmg/config.h; the levels themselves (CartesianLevel) are host objects in tpmg/mesh.h.
#pragma once

#include <tpmg/config.h>

#include <cstdint>

namespace tpmg
{
  using index_t = std::int64_t; ///< global DoF / cell index (levels exceed 2^31 DoFs)

  /// The cells [begin[d], end[d]) per direction of a level's grid of cells (d < 3; a 2D grid has
  /// one cell along z): the part of the cells one launch of a cell loop runs (cell_grid.h).
  struct CellBox
  {
    index_t begin[3] = {0, 0, 0}, end[3] = {1, 1, 1};
    index_t count() const
    {
      index_t n = 1;
      for (int d = 0; d < 3; ++d)
        n *= end[d] > begin[d] ? end[d] - begin[d] : 0;
      return n;
    }
  };

  /// The whole level's index of a node of a level or of a rank's part of one, for kernels
  /// (CartesianLevel::numbering): functions of the node that must not depend on the ranks.
  struct NodeNumbering
  {
    bool    identity = true; ///< a whole level: the index itself
    index_t nodes[3]{1, 1, 1}, whole_nodes[3]{1, 1, 1}, first[3]{0, 0, 0};
    /// per direction, the nodes of a period (periodic directions: a node and its copies k N
    /// apart are one node), 0 elsewhere
    index_t period[3]{0, 0, 0};

    TPMG_HD index_t operator()(index_t i) const
    {
      if (identity)
        return i;
      const index_t x = i % nodes[0], q = i / nodes[0], y = q % nodes[1], z = q / nodes[1];
      return wrap(0, first[0] + x) + whole_nodes[0] * (wrap(1, first[1] + y) + whole_nodes[1] * wrap(2, first[2] + z));
    }
    TPMG_HD index_t wrap(int d, index_t g) const
    {
      return period[d] > 0 ? ((g % period[d]) + period[d]) % period[d] : g;
    }
  };

  /// The most nodes a level may have, 2^53: every count is then exact in a double, and no
  /// product of node counts overflows.
  constexpr index_t max_level_dofs = index_t(1) << 53;

  /// The faces of a level (or of the box) as bits: bit 2d the lower face of direction d, bit
  /// 2d + 1 the upper one.
  constexpr unsigned all_faces = 0x3f;
  /// Whether the node at coordinates g (`nodes` per direction) lies on one of the faces `faces`.
  TPMG_HD inline bool on_faces(const index_t *nodes, int dim, const index_t *g, unsigned faces)
  {
    for (int d = 0; d < dim; ++d)
      if ((g[d] == 0 && (faces >> (2 * d) & 1u)) || (g[d] == nodes[d] - 1 && (faces >> (2 * d + 1) & 1u)))
        return true;
    return false;
  }
  /// Global index of local node (x, y, z) of the cell whose first node is c0 (cell_node below),
  /// -1 where the node lies on one of the faces `constrained` (the Dirichlet faces).
  TPMG_HD inline index_t cell_node_on(const index_t *nodes, int dim, const index_t *c0, int x, int y, int z,
                                      unsigned constrained)
  {
    const index_t g[3] = {c0[0] + x, c0[1] + y, c0[2] + z};
    return on_faces(nodes, dim, g, constrained) ? -1 : g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
  }

  /// Global index of local node (x, y, z) of the cell whose first node is c0, on a level with
  /// `nodes` per direction; -1 if `constrained` and the node lies on the (Dirichlet) boundary,
  /// which the cell kernels then neither read nor write.
  TPMG_HD inline index_t cell_node(const index_t *nodes, int dim, const index_t *c0, int x, int y, int z,
                                   bool constrained = true)
  {
    const index_t g[3] = {c0[0] + x, c0[1] + y, c0[2] + z};
    if (constrained)
      for (int d = 0; d < dim; ++d)
        if (g[d] == 0 || g[d] == nodes[d] - 1)
          return -1;
    return g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
  }

  /// Index of vertex a of cell (cx, cy, cz) in a level's lexicographic vertices (cells[d] + 1
  /// per direction); vertex a has bit d set on the upper side in direction d.
  TPMG_HD inline index_t cell_vertex(const index_t *cells, index_t cx, index_t cy, index_t cz, int a)
  {
    const index_t nvx = cells[0] + 1, nvy = cells[1] + 1;
    return (cx + (a & 1)) + nvx * ((cy + ((a >> 1) & 1)) + nvy * (cz + ((a >> 2) & 1)));
  }
  /// The 2^dim vertices of cell (cx, cy, cz) from a lexicographic array of a level's vertices
  /// (3 coordinates each) into v, numbered as in cell_vertex. Host and device.
  TPMG_HD inline void gather_cell_vertices(const double *vertices, const index_t *cells, int dim, index_t cx,
                                           index_t cy, index_t cz, double (&v)[8][3])
  {
    for (int a = 0; a < (dim == 3 ? 8 : 4); ++a)
      {
        const index_t vi = cell_vertex(cells, cx, cy, cz, a);
        for (int r = 0; r < 3; ++r)
          v[a][r] = vertices[3 * vi + r];
      }
  }
} // namespace tpmg
