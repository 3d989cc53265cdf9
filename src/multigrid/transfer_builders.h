// The host side of the grid-transfer kernels (kernels/transfer/): their arguments made from the
// levels (CartesianLevel) they connect, the whole levels or the parts of them a rank stores.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/mesh.h>

#include <kernels/transfer/degree_transfer.h>
#include <kernels/transfer/transfer.h>

#include <stdexcept>

namespace tpmg
{
  /// The coarse cells [first, first + count) per direction, in the coarse level's coordinates,
  /// whose refinement is exactly the fine level's cells (the whole levels, or the parts of two
  /// levels that one rank stores); throws std::invalid_argument where there are none.
  inline void transfer_cells(const CartesianLevel &coarse, const CartesianLevel &fine, index_t (&first)[3],
                             index_t (&count)[3])
  {
    for (int d = 0; d < 3; ++d)
      {
        first[d] = 0;
        count[d] = 1;
        if (d >= coarse.dim)
          continue;
        const index_t fo = fine.global_offset(d), co = coarse.global_offset(d);
        first[d] = fo / 2 - co;
        count[d] = fine.cells[d] / 2;
        if (fine.global_cells(d) != 2 * coarse.global_cells(d) || fo % 2 != 0 || fine.cells[d] % 2 != 0 ||
            first[d] < 0 || first[d] + count[d] > coarse.cells[d])
          throw std::invalid_argument("grid transfer: the fine level does not refine the coarse one's cells once");
      }
  }

  /// Whether `level` (a whole level, or a rank's part of one) reaches face f of the box.
  inline bool reaches_face(const CartesianLevel &level, int f)
  {
    const int d = f / 2;
    return f % 2 ? level.global_offset(d) + level.cells[std::size_t(d)] == level.global_cells(d)
                 : level.global_offset(d) == 0;
  }

  /// The transfer kernel between two consecutive levels, or between the parts of them that a rank
  /// stores (`part`; host side).
  template <int dim, int k, typename Number, bool restriction, bool part = false, bool natural = false>
  TransferKernel<dim, k, Number, restriction, part, natural>
  make_transfer_kernel(const CartesianLevel &coarse, const CartesianLevel &fine, const Matrix1D &p1d)
  {
    TransferKernel<dim, k, Number, restriction, part, natural> kern;
    index_t                                                    first[3], cells[3];
    transfer_cells(coarse, fine, first, cells);
    if (!part && (coarse.part || fine.part))
      throw std::invalid_argument("make_transfer_kernel: the parts of levels need the `part` kernel");
    // the box's faces that the fine part reaches have the same conditions on both levels (a
    // coarse part may reach a face in its ghost layers that the fine part does not: no matter)
    for (int f = 0; f < 2 * dim; ++f)
      if (reaches_face(fine, f) && coarse.dirichlet(f) != fine.dirichlet(f))
        throw std::invalid_argument("grid transfer: the levels have different Dirichlet faces");
    if (natural != (fine.dirichlet_faces != all_faces))
      throw std::invalid_argument("make_transfer_kernel: levels with Neumann faces need the `natural` kernel, "
                                  "others the plain one");
    // open faces: a part's faces towards a neighbour (fine level), and the Neumann faces the fine
    // level reaches, whose nodes are unknowns (both levels). Each fine node is owned by one coarse
    // cell, the nodes on an upper Neumann face by a cell past the face, of which only the face
    // lies inside the level (bounded_line): one more coarse cell in that direction.
    kern.fine_open   = 0;
    kern.coarse_open = 0;
    for (int d = 0; d < 3; ++d)
      {
        kern.coarse_nodes[d] = coarse.nodes(d);
        kern.fine_nodes[d]   = fine.nodes(d);
        kern.coarse_shift[d] = index_t(k) * first[d];
        if (d >= dim)
          continue;
        const bool lower = reaches_face(fine, 2 * d), upper = reaches_face(fine, 2 * d + 1);
        if (!lower || !fine.dirichlet(2 * d))
          kern.fine_open |= 1u << (2 * d);
        if (!upper || !fine.dirichlet(2 * d + 1))
          kern.fine_open |= 2u << (2 * d);
        if (lower && !fine.dirichlet(2 * d))
          kern.coarse_open |= 1u << (2 * d);
        if (upper && !fine.dirichlet(2 * d + 1))
          {
            kern.coarse_open |= 2u << (2 * d);
            cells[d] += 1;
          }
      }
    kern.n_coarse_cells = cells[0] * cells[1] * cells[2];
    kern.grid           = CellGrid(cells, "grid transfer");
    using EO            = EvenOddMatrix<Number, 2 * k + 1, k + 1>;
    using EOt           = EvenOddMatrix<Number, k + 1, 2 * k + 1>;
    kern.constants.P    = EO::from([&](int i, int j) { return p1d(unsigned(i), unsigned(j)); });
    kern.constants.Pt   = EOt::from([&](int i, int j) { return p1d(unsigned(j), unsigned(i)); });
    return kern;
  }

  namespace transfer_kernels
  {
    /// The shape of the transfer between the Q_k level `lk` and its Q_1 level (host).
    inline DegreeTransferShape degree_transfer_shape(const CartesianLevel &lk)
    {
      DegreeTransferShape s;
      s.dim         = lk.dim;
      s.k           = lk.degree;
      s.constrained = lk.dirichlet_faces;
      for (int d = 0; d < 3; ++d)
        {
          s.nodes[d]    = lk.nodes(d);
          s.vertices[d] = d < lk.dim ? lk.cells[d] + 1 : 1;
        }
      const Quadrature1D gll = gauss_lobatto_quadrature(unsigned(lk.degree + 1));
      for (int i = 0; i <= lk.degree; ++i)
        s.xi[i] = gll.points[std::size_t(i)];
      return s;
    }
  } // namespace transfer_kernels
} // namespace tpmg
