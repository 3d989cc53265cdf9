// The error norms against the manufactured solution, a template of (dim, degree); instantiated
// from problem_errors.inst.in.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/problem.h>

#include <kernels/problem/problem_kernels.h>
#include <kernels/runtime/forall.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace internal
  {
    /// The error norms with nq Gauss points per direction.
    template <int dim, int degree, int nq>
    ErrorNorms errors_with(const CartesianLevel &level, const Vector<double> &u_h)
    {
      using Kernel          = problem_kernels::ManufacturedErrorKernel<dim, degree, nq>;
      const Backend backend = u_h.backend();

      Kernel kern{};
      kern.src        = u_h.data();
      index_t n_cells = 1;
      for (int d = 0; d < 3; ++d)
        {
          const bool active  = d < dim;
          kern.box_begin[d]  = active ? level.owned_begin(d) : 0;
          kern.box_cells[d]  = active ? level.owned_end(d) - level.owned_begin(d) : 1;
          kern.nodes[d]      = level.nodes(d);
          kern.inv_h[d]      = active ? 1.0 / level.h[d] : 0.0;
          kern.cell_shift[d] = active ? level.global_offset(d) : 0;
          kern.arg_scale[d]  = active ? pi / double(level.global_cells(d)) : 0.0;
          kern.freq[d]       = active ? pi / level.extent(d) : 0.0;
          n_cells *= kern.box_cells[d];
        }
      kern.cell_volume = 1;
      for (int d = 0; d < dim; ++d)
        kern.cell_volume *= level.h[d];

      const LagrangeBasis1D basis(degree);
      const Quadrature1D    q = gauss_quadrature(nq);
      kern.values             = make_small_matrix<double, nq, degree + 1>(basis.values(q.points));
      kern.derivatives        = make_small_matrix<double, nq, degree + 1>(basis.derivatives(q.points));
      for (int i = 0; i < nq; ++i)
        {
          kern.points[i]  = q.points[std::size_t(i)];
          kern.weights[i] = q.weights[std::size_t(i)];
        }

      // Launches of at most 2^20 blocks, so the partial sums stay small on huge levels.
      constexpr index_t max_blocks   = index_t(1) << 20;
      const index_t     total_blocks = (n_cells + Kernel::cells_per_block - 1) / Kernel::cells_per_block;
      const index_t     chunk_blocks = std::min(total_blocks, max_blocks);
      Vector<double>    partial;
      partial.reinit(2 * chunk_blocks, backend, false);
      double sum_l2 = 0, sum_h1 = 0;
      for (index_t first_block = 0; first_block < total_blocks; first_block += chunk_blocks)
        {
          const index_t blocks = std::min(chunk_blocks, total_blocks - first_block);
          kern.partial         = partial.data();
          kern.partial_stride  = blocks;
          kern.cell_offset     = first_block * Kernel::cells_per_block;
          kern.n_cells         = std::min(n_cells - kern.cell_offset, blocks * Kernel::cells_per_block);
          launch(backend, kern, Kernel::shape(blocks));
          sum_l2 += reduce_sum(backend, blocks, problem_kernels::ReadEntry{partial.data()});
          sum_h1 += reduce_sum(backend, blocks, problem_kernels::ReadEntry{partial.data() + blocks});
        }
      ErrorNorms e;
      e.l2      = std::sqrt(std::max(sum_l2, 0.0));
      e.h1_semi = std::sqrt(std::max(sum_h1, 0.0));
      return e;
    }
  } // namespace internal

  template <int dim, int degree>
  ErrorNorms compute_errors(const CartesianLevel &level, const Vector<double> &u_h, int n_quadrature)
  {
    if (level.dim != dim || level.degree != degree)
      throw std::invalid_argument("compute_errors: level does not match dim/degree");
    if (u_h.size() != level.n_dofs())
      throw std::invalid_argument("compute_errors: vector size " + std::to_string(u_h.size()) +
                                  " differs from the level's " + std::to_string(level.n_dofs()) + " nodes");
    switch (n_quadrature - degree)
      {
        case 1:
          return internal::errors_with<dim, degree, degree + 1>(level, u_h);
        case 2:
          return internal::errors_with<dim, degree, degree + 2>(level, u_h);
        case 3:
          return internal::errors_with<dim, degree, degree + 3>(level, u_h);
        default:
          throw std::invalid_argument("compute_errors: " + std::to_string(n_quadrature) +
                                      " quadrature points per direction; supported are k+1, k+2 "
                                      "and k+3 (k = " +
                                      std::to_string(degree) + ")");
      }
  }

} // namespace tpmg
