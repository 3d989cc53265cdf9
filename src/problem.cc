// Right-hand sides, interpolant and error norms of the model problem (include/tpmg/problem.h).
#include <tpmg/dispatch.h>
#include <tpmg/fe_1d.h>
#include <tpmg/problem.h>

#include "../kernels/forall.h"
#include "../kernels/problem_kernels.h"
#include "instantiate.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  const char *to_string(RightHandSide rhs)
  {
    switch (rhs)
      {
        case RightHandSide::manufactured:
          return "manufactured";
        case RightHandSide::one:
          return "one";
        case RightHandSide::ones_vector:
          return "ones_vector";
      }
    return "?";
  }

  RightHandSide parse_right_hand_side(const std::string &name)
  {
    if (name == "manufactured")
      return RightHandSide::manufactured;
    if (name == "one")
      return RightHandSide::one;
    if (name == "ones_vector")
      return RightHandSide::ones_vector;
    throw std::invalid_argument("unknown right-hand side '" + name +
                                "' (expected manufactured, one or ones_vector)");
  }

  namespace
  {
    constexpr double pi = 3.14159265358979323846;

    void check_level(const CartesianLevel &level, const char *what)
    {
      if (level.dim != 2 && level.dim != 3)
        throw std::invalid_argument(std::string(what) + ": dimension must be 2 or 3");
      if (level.degree < 1 || level.degree > max_degree)
        throw std::invalid_argument(std::string(what) + ": degree outside 1.." +
                                    std::to_string(max_degree));
    }

    /// Argument of the manufactured solution's sine at local coordinate xi of cell `cell`:
    /// π (x - a)/L = π (cell + xi) / cells.
    double sine_argument(const CartesianLevel &level, int d, index_t cell, double xi)
    {
      return pi * (double(cell) + xi) / double(level.cells[d]);
    }

    /// The 1D factors of a separable nodal vector, one array per direction (a single 1 for
    /// the unused third direction in 2D), and the constant in front.
    struct Separable
    {
      std::vector<double> factor[3];
      double              scale = 1;
    };

    /// b1d[i] = ∫ g φ_i over the 1D mesh of direction d (g = 1 or the sine), boundary entries 0.
    std::vector<double> integrals_1d(const CartesianLevel &level, int d, bool sine)
    {
      const int           k = level.degree;
      const LagrangeBasis1D basis(k);
      const Quadrature1D  q   = gauss_quadrature(unsigned(k + 12));
      const Matrix1D      phi = basis.values(q.points);
      std::vector<double> b(std::size_t(level.nodes(d)), 0.0);
      for (index_t c = 0; c < level.cells[d]; ++c)
        for (std::size_t p = 0; p < q.size(); ++p)
          {
            const double g  = sine ? std::sin(sine_argument(level, d, c, q.points[p])) : 1.0;
            const double wg = q.weights[p] * level.h[d] * g;
            for (int i = 0; i <= k; ++i)
              b[std::size_t(c * k + i)] += wg * phi(unsigned(p), unsigned(i));
          }
      b.front() = 0;
      b.back()  = 0;
      return b;
    }

    /// The manufactured solution's 1D factor at the nodes of direction d, boundary 0.
    std::vector<double> sine_at_nodes(const CartesianLevel &level, int d)
    {
      const int             k = level.degree;
      const LagrangeBasis1D basis(k);
      const auto           &gll = basis.support_points();
      std::vector<double> v(std::size_t(level.nodes(d)), 0.0);
      for (index_t c = 0; c < level.cells[d]; ++c)
        for (int i = 1; i <= k; ++i) // node c*k is node k of the previous cell (or the boundary)
          v[std::size_t(c * k + i)] = std::sin(sine_argument(level, d, c, gll[std::size_t(i)]));
      v.front() = 0;
      v.back()  = 0;
      return v;
    }

    template <typename Number>
    void fill_separable(const CartesianLevel &level, const Separable &s, Backend backend, Vector<Number> &out)
    {
      std::vector<double> all;
      std::size_t         offset[3];
      for (int d = 0; d < 3; ++d)
        {
          offset[d] = all.size();
          all.insert(all.end(), s.factor[d].begin(), s.factor[d].end());
        }
      Vector<double> factors;
      factors.reinit(index_t(all.size()), backend, false);
      factors.from_host(all);
      out.reinit(level.n_dofs(), backend, false);
      const double *f = factors.data();
      problem_kernels::TensorProductFill<Number> fill{out.data(), f + offset[0], f + offset[1],
                                                      f + offset[2], level.nodes(0), level.nodes(1),
                                                      s.scale};
      forall(backend, level.n_dofs(), fill);
      synchronize(backend); // before `factors` goes away
    }
  } // namespace

  template <typename Number>
  void assemble_rhs(const CartesianLevel &level, RightHandSide rhs, Backend backend, Vector<Number> &b)
  {
    check_level(level, "assemble_rhs");
    Separable s;
    for (int d = 0; d < 3; ++d)
      {
        if (d >= level.dim)
          s.factor[d] = {1.0};
        else if (rhs == RightHandSide::ones_vector)
          {
            s.factor[d].assign(std::size_t(level.nodes(d)), 1.0);
            s.factor[d].front() = 0;
            s.factor[d].back()  = 0;
          }
        else
          s.factor[d] = integrals_1d(level, d, rhs == RightHandSide::manufactured);
      }
    if (rhs == RightHandSide::manufactured)
      {
        s.scale = 0;
        for (int d = 0; d < level.dim; ++d)
          {
            const double f = pi / (level.h[d] * double(level.cells[d]));
            s.scale += f * f;
          }
      }
    fill_separable(level, s, backend, b);
  }

  template <typename Number>
  void interpolate_exact_solution(const CartesianLevel &level, Backend backend, Vector<Number> &u)
  {
    check_level(level, "interpolate_exact_solution");
    Separable s;
    for (int d = 0; d < 3; ++d)
      s.factor[d] = d < level.dim ? sine_at_nodes(level, d) : std::vector<double>{1.0};
    fill_separable(level, s, backend, u);
  }

  namespace
  {
    template <int dim, int degree, int nq>
    ErrorNorms errors_with(const CartesianLevel &level, const Vector<double> &u_h)
    {
      using Kernel = problem_kernels::ManufacturedErrorKernel<dim, degree, nq>;
      const Backend backend = u_h.backend();

      Kernel kern{};
      kern.src = u_h.data();
      index_t n_cells = 1;
      for (int d = 0; d < 3; ++d)
        {
          const bool active   = d < dim;
          kern.box_begin[d]   = active ? level.cell_begin[d] : 0;
          kern.box_cells[d]   = active ? level.cell_end[d] - level.cell_begin[d] : 1;
          kern.nodes[d]       = level.nodes(d);
          kern.inv_h[d]       = active ? 1.0 / level.h[d] : 0.0;
          kern.arg_scale[d]   = active ? pi / double(level.cells[d]) : 0.0;
          kern.freq[d]        = active ? pi / (level.h[d] * double(level.cells[d])) : 0.0;
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
      double            sum_l2 = 0, sum_h1 = 0;
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
  } // namespace

  template <int dim, int degree>
  ErrorNorms compute_errors(const CartesianLevel &level, const Vector<double> &u_h, int n_quadrature)
  {
    if (level.dim != dim || level.degree != degree)
      throw std::invalid_argument("compute_errors: level does not match dim/degree");
    if (u_h.size() != level.n_dofs())
      throw std::invalid_argument("compute_errors: vector size " + std::to_string(u_h.size()) +
                                  " differs from the level's " + std::to_string(level.n_dofs()) +
                                  " nodes");
    switch (n_quadrature - degree)
      {
        case 1:
          return errors_with<dim, degree, degree + 1>(level, u_h);
        case 2:
          return errors_with<dim, degree, degree + 2>(level, u_h);
        case 3:
          return errors_with<dim, degree, degree + 3>(level, u_h);
        default:
          throw std::invalid_argument("compute_errors: " + std::to_string(n_quadrature) +
                                      " quadrature points per direction; supported are k+1, k+2 "
                                      "and k+3 (k = " + std::to_string(degree) + ")");
      }
  }

  ErrorNorms compute_errors(const CartesianLevel &level, const Vector<double> &u_h, int n_quadrature)
  {
    return dispatch_dim(level.dim, [&](auto D) {
      return dispatch_degree(level.degree, [&](auto K) {
        constexpr int d = decltype(D)::value, k = decltype(K)::value;
        return compute_errors<d, k>(level, u_h, n_quadrature > 0 ? n_quadrature : k + 3);
      });
    });
  }

  template void assemble_rhs<float>(const CartesianLevel &, RightHandSide, Backend, Vector<float> &);
  template void assemble_rhs<double>(const CartesianLevel &, RightHandSide, Backend, Vector<double> &);
  template void interpolate_exact_solution<float>(const CartesianLevel &, Backend, Vector<float> &);
  template void interpolate_exact_solution<double>(const CartesianLevel &, Backend, Vector<double> &);

#define TPMG_INST(dim, k, unused) \
  template ErrorNorms compute_errors<dim, k>(const CartesianLevel &, const Vector<double> &, int);
  TPMG_FOR_DEGREES(TPMG_INST, 2, _)
  TPMG_FOR_DEGREES(TPMG_INST, 3, _)
#undef TPMG_INST
} // namespace tpmg
