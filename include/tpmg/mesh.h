// Cartesian mesh hierarchy and the lexicographic numbering of Q_k nodes (docs/method.md, "Numbering").
#pragma once

#include <tpmg/config.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tpmg
{
  using index_t = std::int64_t; ///< global DoF / cell index (levels exceed 2^31 DoFs)

  /// The box [lower, upper] and the coarse mesh on it.
  struct Domain
  {
    int                   dim = 3;
    std::array<double, 3> lower{{0, 0, 0}};
    std::array<double, 3> upper{{1, 1, 1}};
    std::array<int, 3>    coarse_cells{{1, 1, 1}}; ///< N0 per direction
  };

  /// One level of the hierarchy: a uniform Cartesian mesh of a box with Q_k nodes numbered
  /// lexicographically (x fastest), boundary nodes included. The cells this process owns form
  /// the box [cell_begin, cell_end) of the global mesh (the whole mesh for now), so a later
  /// split into one box per MPI rank keeps these data.
  struct CartesianLevel
  {
    int                    dim    = 3;
    int                    degree = 1;
    int                    level  = 0;
    std::array<index_t, 3> cells{{1, 1, 1}};      ///< global cells per direction
    std::array<index_t, 3> cell_begin{{0, 0, 0}}; ///< owned box of cells
    std::array<index_t, 3> cell_end{{1, 1, 1}};
    std::array<double, 3>  lower{{0, 0, 0}};
    std::array<double, 3>  h{{1, 1, 1}}; ///< cell widths per direction

    /// Nodes per direction: cells * k + 1.
    index_t nodes(int d) const { return d < dim ? cells[d] * degree + 1 : 1; }
    index_t n_dofs() const { return nodes(0) * nodes(1) * nodes(2); }
    index_t n_cells() const { return cells[0] * cells[1] * (dim == 3 ? cells[2] : 1); }
    /// Interior vertices per direction (= vertex patches per direction).
    index_t patches(int d) const { return d < dim ? cells[d] - 1 : 1; }
    index_t n_patches() const { return patches(0) * patches(1) * patches(2); }
    index_t n_interior_dofs() const;

    index_t dof_index(index_t i, index_t j, index_t l = 0) const { return i + nodes(0) * (j + nodes(1) * l); }
    bool    on_boundary(index_t i, index_t j, index_t l) const;

    /// Coordinate of node i in direction d (GLL points inside each cell).
    double node_coordinate(int d, index_t i, const std::vector<double> &gll_points) const;

    std::string describe() const;
  };

  /// The most nodes a level may have, 2^53: every count is then exact in a double, and no
  /// product of node counts overflows.
  constexpr index_t max_level_dofs = index_t(1) << 53;

  /// Π_d (cells_d k + 1) over the dim directions, or -1 where it exceeds max_level_dofs.
  index_t checked_level_dofs(int dim, int degree, const std::array<index_t, 3> &cells);

  /// Levels 0..L, level ℓ with N0·2^ℓ cells per direction. Throws std::invalid_argument for a
  /// level of more than max_level_dofs nodes.
  std::vector<CartesianLevel> make_hierarchy(const Domain &domain, int degree, int finest_level);

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
