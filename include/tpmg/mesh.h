// The Cartesian mesh hierarchy: the box, its levels and the parts of them that ranks store (the
// numbering of their nodes: tpmg/numbering.h).
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tpmg
{
  /// The box [lower, upper] and the coarse mesh on it.
  struct Domain
  {
    int                   dim = 3;
    std::array<double, 3> lower{{0, 0, 0}};
    std::array<double, 3> upper{{1, 1, 1}};
    std::array<int, 3>    coarse_cells{{1, 1, 1}}; ///< N0 per direction
    /// The faces with Dirichlet data (numbering.h's face bits); the nodes of the others
    /// (Neumann, Robin) are unknowns.
    unsigned dirichlet_faces = all_faces;
    /// The faces with a Robin term α ∫_F u v in the operator (among those without Dirichlet data).
    unsigned robin_faces = 0;
    /// The directions (bit d) whose two faces are identified (CartesianLevel::periodic).
    unsigned periodic = 0;
  };

  /// One level of the hierarchy: a uniform Cartesian mesh of a box with Q_k nodes numbered
  /// lexicographically (x fastest), boundary nodes included.
  ///
  /// A level may also be the part of a whole level that one MPI rank stores (`part`, made by
  /// HierarchyPartition::stored): its cells are then a box of the whole level's cells,
  /// [offset, offset + cells) per direction, and every kernel works on it as on a level of its
  /// own, whose faces it treats as boundary. The cells this rank owns are [cell_begin, cell_end)
  /// in the level's own coordinates (all of them for a whole level); the functions of the
  /// coordinates (deformations, the manufactured solution) use the whole level's box through
  /// global_cells() and origin().
  struct CartesianLevel
  {
    int                    dim    = 3;
    int                    degree = 1;
    int                    level  = 0;
    std::array<index_t, 3> cells{{1, 1, 1}};      ///< cells per direction (of the part, for a part)
    std::array<index_t, 3> cell_begin{{0, 0, 0}}; ///< owned box of cells, in these coordinates
    std::array<index_t, 3> cell_end{{1, 1, 1}};
    std::array<double, 3>  lower{{0, 0, 0}}; ///< lower corner (of the part, for a part)
    std::array<double, 3>  h{{1, 1, 1}};     ///< cell widths per direction
    /// Faces of the box whose nodes carry Dirichlet data (numbering.h's face bits): their nodes
    /// are constrained, no unknowns; the nodes of the other faces (Neumann, Robin) are unknowns.
    unsigned dirichlet_faces = all_faces;
    /// Faces with a Robin term α ∫_F u v in the operator (among the faces without Dirichlet data;
    /// α: RobinFaces, tpmg/robin_faces.h).
    unsigned robin_faces = 0;
    /// Directions (bit d) in which the box is periodic: its two faces along d are one, node k N
    /// is node 0, and the whole level's unknowns along d are the nodes 0 ... k N - 1 (their
    /// faces carry no Dirichlet data or Robin term). Such a level is always stored as a part
    /// (HierarchyPartition::stored), with ghost_cells layers beyond both faces along d that copy
    /// the cells on the other side, so that every kernel sees the neighbours of the nodes next to
    /// the faces as it sees those of the nodes next to another rank's box.
    unsigned periodic = 0;

    /// A part of a whole level: its first cell in the whole level, the whole level's cells per
    /// direction and lower corner (unused for a whole level).
    bool                   part = false;
    std::array<index_t, 3> offset{{0, 0, 0}};
    std::array<index_t, 3> whole_cells{{1, 1, 1}};
    std::array<double, 3>  whole_lower{{0, 0, 0}};

    /// Cells per direction of the whole level.
    index_t global_cells(int d) const { return part ? whole_cells[std::size_t(d)] : cells[std::size_t(d)]; }
    /// First cell of this level in the whole level (0 for a whole level).
    index_t global_offset(int d) const { return part ? offset[std::size_t(d)] : 0; }
    /// Lower corner of the whole level's box.
    double origin(int d) const { return part ? whole_lower[std::size_t(d)] : lower[std::size_t(d)]; }
    /// Extent of the whole level's box in direction d.
    double extent(int d) const { return h[std::size_t(d)] * double(global_cells(d)); }
    /// Nodes per direction of the whole level.
    index_t global_nodes(int d) const { return d < dim ? global_cells(d) * degree + 1 : 1; }
    /// The cells this rank computes on, [owned_begin, owned_end) in direction d: the owned box of a
    /// part, every cell of a whole level.
    index_t owned_begin(int d) const { return part ? cell_begin[std::size_t(d)] : 0; }
    index_t owned_end(int d) const { return part ? cell_end[std::size_t(d)] : cells[std::size_t(d)]; }
    /// The whole level this is a part of (itself for a whole level; all cells owned).
    CartesianLevel whole() const;
    /// The numbering of its nodes in the whole level.
    NodeNumbering numbering() const;
    /// Parity of the offset per direction, bit d: a colour (parity of a vertex or cell index
    /// per direction) of the whole level is colour ^ offset_parity() in the part's coordinates.
    int offset_parity() const;

    /// Nodes per direction: cells * k + 1.
    index_t nodes(int d) const { return d < dim ? cells[d] * degree + 1 : 1; }
    index_t n_dofs() const { return nodes(0) * nodes(1) * nodes(2); }
    index_t n_cells() const { return cells[0] * cells[1] * (dim == 3 ? cells[2] : 1); }
    /// Whether face bit f (2d: lower face of direction d, 2d + 1: upper) has Dirichlet data.
    bool dirichlet(int f) const { return (dirichlet_faces >> f & 1u) != 0; }
    /// Whether face bit f carries a Robin term.
    bool robin(int f) const { return (robin_faces >> f & 1u) != 0; }
    /// Whether direction d is periodic.
    bool periodic_in(int d) const { return d < dim && (periodic >> d & 1u) != 0; }
    /// The whole level's nodes per period along d (k N) where d is periodic, else 0.
    index_t period_nodes(int d) const { return periodic_in(d) ? global_cells(d) * degree : 0; }
    /// Whether no face carries Dirichlet data or a Robin term: the constants solve the
    /// homogeneous problem, so the level operator is singular with the constant vector as its
    /// null space.
    bool singular() const { return ((dirichlet_faces | robin_faces) & ((1u << (2 * dim)) - 1u)) == 0; }
    /// Interior vertices per direction (= vertex patches per direction).
    index_t patches(int d) const { return d < dim ? cells[d] - 1 : 1; }
    index_t n_patches() const { return patches(0) * patches(1) * patches(2); }
    /// The unknowns: the nodes not on a Dirichlet face (of a whole level with periodic
    /// directions, the nodes 0 ... k N - 1 along them; of a part, whose faces in those
    /// directions are boundary, the nodes inside them).
    index_t n_interior_dofs() const;

    index_t dof_index(index_t i, index_t j, index_t l = 0) const { return i + nodes(0) * (j + nodes(1) * l); }
    /// Whether node (i, j, l) is constrained: on a Dirichlet face.
    bool on_boundary(index_t i, index_t j, index_t l) const;

    /// Coordinate of node i in direction d (GLL points inside each cell).
    double node_coordinate(int d, index_t i, const std::vector<double> &gll_points) const;

    std::string describe() const;
  };

  /// Π_d (cells_d k + 1) over the dim directions, or -1 where it exceeds max_level_dofs.
  index_t checked_level_dofs(int dim, int degree, const std::array<index_t, 3> &cells);

  /// Levels 0..L, level ℓ with N0·2^ℓ cells per direction. Throws std::invalid_argument for a
  /// level of more than max_level_dofs nodes.
  std::vector<CartesianLevel> make_hierarchy(const Domain &domain, int degree, int finest_level);

} // namespace tpmg
