// Right-hand sides, interpolant and error norms of the model problem (include/tpmg/problem.h).
#include <tpmg/dispatch.h>
#include <tpmg/fe_1d.h>
#include <tpmg/problem.h>

#include <kernels/problem/problem_kernels.h>
#include <kernels/runtime/forall.h>
#include <src/discretization/problem_impl.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  namespace
  {

    void check_level(const CartesianLevel &level, const char *what)
    {
      if (level.dim != 2 && level.dim != 3)
        throw std::invalid_argument(std::string(what) + ": dimension must be 2 or 3");
      if (level.degree < 1 || level.degree > max_degree)
        throw std::invalid_argument(std::string(what) + ": degree outside 1.." + std::to_string(max_degree));
    }

    /// Argument of the manufactured solution's sine at local coordinate xi of cell `cell`:
    /// π (x - a)/L = π (cell + xi) / cells with the whole level's cell index and count.
    double sine_argument(const CartesianLevel &level, int d, index_t cell, double xi)
    {
      return pi * (double(level.global_offset(d) + cell) + xi) / double(level.global_cells(d));
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
      const int             k = level.degree;
      const LagrangeBasis1D basis(k);
      const Quadrature1D    q   = gauss_quadrature(unsigned(k + 12));
      const Matrix1D        phi = basis.values(q.points);
      std::vector<double>   b(std::size_t(level.nodes(d)), 0.0);
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
      std::vector<double>   v(std::size_t(level.nodes(d)), 0.0);
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
      const double                              *f = factors.data();
      problem_kernels::TensorProductFill<Number> fill{out.data(),     f + offset[0],  f + offset[1], f + offset[2],
                                                      level.nodes(0), level.nodes(1), s.scale};
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
            const double f = pi / level.extent(d);
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

} // namespace tpmg
