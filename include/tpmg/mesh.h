// Cartesian mesh hierarchy and the lexicographic numbering of Q_k nodes (DESIGN.md §3).
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
    int                   dim    = 3;
    int                   degree = 1;
    int                   level  = 0;
    std::array<index_t, 3> cells{{1, 1, 1}};      ///< global cells per direction
    std::array<index_t, 3> cell_begin{{0, 0, 0}}; ///< owned box of cells
    std::array<index_t, 3> cell_end{{1, 1, 1}};
    std::array<double, 3>  lower{{0, 0, 0}};
    std::array<double, 3>  h{{1, 1, 1}};          ///< cell widths per direction

    /// Nodes per direction: cells * k + 1.
    index_t nodes(int d) const { return d < dim ? cells[d] * degree + 1 : 1; }
    index_t n_dofs() const { return nodes(0) * nodes(1) * nodes(2); }
    index_t n_cells() const { return cells[0] * cells[1] * (dim == 3 ? cells[2] : 1); }
    /// Interior vertices per direction (= vertex patches per direction).
    index_t patches(int d) const { return d < dim ? cells[d] - 1 : 1; }
    index_t n_patches() const { return patches(0) * patches(1) * patches(2); }
    index_t n_interior_dofs() const;

    index_t dof_index(index_t i, index_t j, index_t l = 0) const
    {
      return i + nodes(0) * (j + nodes(1) * l);
    }
    bool on_boundary(index_t i, index_t j, index_t l) const;

    /// Coordinate of node i in direction d (GLL points inside each cell).
    double node_coordinate(int d, index_t i, const std::vector<double> &gll_points) const;

    std::string describe() const;
  };

  /// Levels 0..L, level ℓ with N0·2^ℓ cells per direction.
  std::vector<CartesianLevel> make_hierarchy(const Domain &domain, int degree, int finest_level);
} // namespace tpmg
