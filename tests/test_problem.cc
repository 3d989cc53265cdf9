// Tests of the model problem: right-hand sides against direct cell-by-cell quadrature,
// the interpolant, error norms against a brute-force evaluation, known norms and
// convergence rates of the interpolation error.
#include <tpmg/dispatch.h>
#include <tpmg/fe_1d.h>
#include <tpmg/options.h>
#include <tpmg/problem.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace tpmg;

namespace
{

  // Anisotropic box and cell counts, so that every direction's scaling is exercised.
  Domain anisotropic_domain(int dim)
  {
    Domain d;
    d.dim          = dim;
    d.lower        = {0.0, -1.0, 0.25};
    d.upper        = {1.0, 1.0, 0.75};
    d.coarse_cells = {2, 3, 1};
    return d;
  }

  Domain unit_domain(int dim)
  {
    Domain d;
    d.dim = dim;
    return d;
  }

  CartesianLevel make_level(const Domain &d, int k, int level) { return make_hierarchy(d, k, level).back(); }

  // Manufactured solution written from the domain directly (not from the level's h, cells).
  struct Exact
  {
    Domain dom;
    double value(const double *x) const
    {
      double u = 1;
      for (int d = 0; d < dom.dim; ++d)
        u *= std::sin(pi * (x[d] - dom.lower[d]) / (dom.upper[d] - dom.lower[d]));
      return u;
    }
    double gradient(const double *x, int c) const
    {
      double g = 1;
      for (int d = 0; d < dom.dim; ++d)
        {
          const double L = dom.upper[d] - dom.lower[d];
          const double a = pi * (x[d] - dom.lower[d]) / L;
          g *= d == c ? pi / L * std::cos(a) : std::sin(a);
        }
      return g;
    }
    double laplacian_factor() const // f = factor * u
    {
      double s = 0;
      for (int d = 0; d < dom.dim; ++d)
        {
          const double f = pi / (dom.upper[d] - dom.lower[d]);
          s += f * f;
        }
      return s;
    }
  };

  bool is_boundary_node(const CartesianLevel &lev, index_t g)
  {
    const index_t i = g % lev.nodes(0), j = (g / lev.nodes(0)) % lev.nodes(1), l = g / (lev.nodes(0) * lev.nodes(1));
    return lev.on_boundary(i, j, l);
  }

  double rel_diff(const std::vector<double> &a, const std::vector<double> &b)
  {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
      }
    return std::sqrt(num / den);
  }

  /// Loops over the cells of a level and the points of a tensor Gauss rule with nq points per
  /// direction; calls f(global nodes of the cell, x, weight, values φ_I(x), gradients ∇φ_I(x)).
  template <class F>
  void for_each_quadrature_point(const Domain &dom, const CartesianLevel &lev, unsigned nq, F &&f)
  {
    const int             dim = lev.dim, k = lev.degree, n = k + 1;
    const LagrangeBasis1D basis{unsigned(k)};
    const Quadrature1D    q   = gauss_quadrature(nq);
    const Matrix1D        v   = basis.values(q.points);
    const Matrix1D        dv  = basis.derivatives(q.points);
    const int             nd  = dim == 3 ? n * n * n : n * n;
    const unsigned        nq3 = dim == 3 ? nq : 1;
    std::vector<index_t>  nodes(std::size_t(nd), 0);
    std::vector<double>   phi(static_cast<std::size_t>(nd)), grad(static_cast<std::size_t>(3 * nd));
    double                h[3];
    for (int d = 0; d < 3; ++d)
      h[d] = d < dim ? (dom.upper[d] - dom.lower[d]) / double(lev.cells[d]) : 1.0;
    for (index_t cz = 0; cz < (dim == 3 ? lev.cells[2] : 1); ++cz)
      for (index_t cy = 0; cy < lev.cells[1]; ++cy)
        for (index_t cx = 0; cx < lev.cells[0]; ++cx)
          {
            for (int I = 0; I < nd; ++I)
              {
                const int i = I % n, j = (I / n) % n, l = I / (n * n);
                nodes[std::size_t(I)] = lev.dof_index(cx * k + i, cy * k + j, dim == 3 ? cz * k + l : 0);
              }
            for (unsigned pz = 0; pz < nq3; ++pz)
              for (unsigned py = 0; py < nq; ++py)
                for (unsigned px = 0; px < nq; ++px)
                  {
                    const unsigned p[3] = {px, py, pz};
                    const index_t  c[3] = {cx, cy, cz};
                    double         x[3] = {0, 0, 0}, w = 1;
                    for (int d = 0; d < dim; ++d)
                      {
                        x[d] = dom.lower[d] + h[d] * (double(c[d]) + q.points[p[d]]);
                        w *= q.weights[p[d]] * h[d];
                      }
                    for (int I = 0; I < nd; ++I)
                      {
                        const unsigned i[3] = {unsigned(I % n), unsigned((I / n) % n), unsigned(I / (n * n))};
                        double         val  = 1;
                        for (int d = 0; d < dim; ++d)
                          val *= v(p[d], i[d]);
                        phi[std::size_t(I)] = val;
                        for (int g = 0; g < dim; ++g)
                          {
                            double t = 1;
                            for (int d = 0; d < dim; ++d)
                              t *= d == g ? dv(p[d], i[d]) / h[d] : v(p[d], i[d]);
                            grad[std::size_t(3 * I + g)] = t;
                          }
                      }
                    f(nodes, x, w, phi, grad);
                  }
          }
  }

  /// b_i = ∫ f φ_i by direct quadrature over the cells (boundary rows zeroed).
  std::vector<double> reference_rhs(const Domain &dom, const CartesianLevel &lev, RightHandSide rhs)
  {
    const Exact         ex{dom};
    std::vector<double> b(std::size_t(lev.n_dofs()), 0.0);
    for_each_quadrature_point(dom, lev, unsigned(lev.degree + 8),
                              [&](const std::vector<index_t> &nodes, const double *x, double w,
                                  const std::vector<double> &phi, const std::vector<double> &) {
                                const double f =
                                  rhs == RightHandSide::manufactured ? ex.laplacian_factor() * ex.value(x) : 1.0;
                                for (std::size_t I = 0; I < nodes.size(); ++I)
                                  b[std::size_t(nodes[I])] += w * f * phi[I];
                              });
    for (index_t g = 0; g < lev.n_dofs(); ++g)
      if (is_boundary_node(lev, g))
        b[std::size_t(g)] = 0;
    return b;
  }

  /// Brute-force squared errors of the nodal vector u against the manufactured solution.
  ErrorNorms reference_errors(const Domain &dom, const CartesianLevel &lev, const std::vector<double> &u, unsigned nq)
  {
    const Exact ex{dom};
    double      l2 = 0, h1 = 0;
    for_each_quadrature_point(dom, lev, nq,
                              [&](const std::vector<index_t> &nodes, const double *x, double w,
                                  const std::vector<double> &phi, const std::vector<double> &grad) {
                                double uh = 0, g[3] = {0, 0, 0};
                                for (std::size_t I = 0; I < nodes.size(); ++I)
                                  {
                                    const double ui = u[std::size_t(nodes[I])];
                                    uh += ui * phi[I];
                                    for (int d = 0; d < lev.dim; ++d)
                                      g[d] += ui * grad[3 * I + std::size_t(d)];
                                  }
                                const double e = ex.value(x) - uh;
                                l2 += w * e * e;
                                for (int d = 0; d < lev.dim; ++d)
                                  {
                                    const double ed = ex.gradient(x, d) - g[d];
                                    h1 += w * ed * ed;
                                  }
                              });
    return ErrorNorms{std::sqrt(l2), std::sqrt(h1)};
  }

  std::vector<double> random_interior(const CartesianLevel &lev, unsigned seed)
  {
    std::mt19937                           gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double>                    u(std::size_t(lev.n_dofs()), 0.0);
    for (index_t g = 0; g < lev.n_dofs(); ++g)
      if (!is_boundary_node(lev, g))
        u[std::size_t(g)] = dist(gen);
    return u;
  }

  ErrorNorms errors_of(const CartesianLevel &lev, const std::vector<double> &u, int nq)
  {
    Vector<double> v(lev.n_dofs(), Backend::cpu);
    v.from_host(u);
    return compute_errors(lev, v, nq);
  }
} // namespace

// ---------------------------------------------------------------------------------------
// Right-hand sides
// ---------------------------------------------------------------------------------------

class ProblemRhsTest : public ::testing::TestWithParam<std::tuple<int, int>>
{};

TEST_P(ProblemRhsTest, MatchesDirectCellQuadrature)
{
  // (no structured binding: lambdas capture these, which C++17 does not allow)
  const int    dim = std::get<0>(GetParam()), k = std::get<1>(GetParam());
  const Domain dom = anisotropic_domain(dim);
  const auto   lev = make_level(dom, k, 1);
  for (RightHandSide rhs : {RightHandSide::manufactured, RightHandSide::one})
    {
      SCOPED_TRACE(to_string(rhs));
      const auto     ref = reference_rhs(dom, lev, rhs);
      Vector<double> b;
      assemble_rhs(lev, rhs, Backend::cpu, b);
      ASSERT_EQ(b.size(), lev.n_dofs());
      EXPECT_EQ(b.backend(), Backend::cpu);
      const auto bh = b.to_host();
      EXPECT_LT(rel_diff(bh, ref), 1e-12);
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        if (is_boundary_node(lev, g))
          {
            ASSERT_EQ(bh[std::size_t(g)], 0.0) << "boundary node " << g;
          }

      Vector<float> bf;
      assemble_rhs(lev, rhs, Backend::cpu, bf);
      const auto          bfh = bf.to_host();
      std::vector<double> bfd(bfh.begin(), bfh.end());
      EXPECT_LT(rel_diff(bfd, ref), 1e-6);
    }
}

INSTANTIATE_TEST_SUITE_P(Degrees, ProblemRhsTest,
                         ::testing::Values(std::make_tuple(2, 1), std::make_tuple(2, 2), std::make_tuple(2, 3),
                                           std::make_tuple(2, 5), std::make_tuple(2, 10), std::make_tuple(3, 1),
                                           std::make_tuple(3, 2), std::make_tuple(3, 4)),
                         [](const auto &tp) {
                           return std::to_string(std::get<0>(tp.param)) + "D_k" + std::to_string(std::get<1>(tp.param));
                         });

TEST(ProblemRhs, OnesVectorIsOneInsideZeroOnBoundary)
{
  for (int dim : {2, 3})
    for (int k : {1, 3})
      {
        const auto    lev = make_level(anisotropic_domain(dim), k, 1);
        Vector<float> b;
        assemble_rhs(lev, RightHandSide::ones_vector, Backend::cpu, b);
        ASSERT_EQ(b.size(), lev.n_dofs());
        const auto bh       = b.to_host();
        index_t    interior = 0;
        for (index_t g = 0; g < lev.n_dofs(); ++g)
          {
            const bool bd = is_boundary_node(lev, g);
            ASSERT_EQ(bh[std::size_t(g)], bd ? 0.0f : 1.0f) << "dim " << dim << " k " << k << " node " << g;
            interior += bd ? 0 : 1;
          }
        EXPECT_EQ(interior, lev.n_interior_dofs());
      }
}

TEST(ProblemRhs, ParseAndNames)
{
  for (RightHandSide r : {RightHandSide::manufactured, RightHandSide::one, RightHandSide::ones_vector})
    EXPECT_EQ(from_string<RightHandSide>(to_string(r)), r);
  EXPECT_FALSE(from_string<RightHandSide>("sine").has_value());
}

// ---------------------------------------------------------------------------------------
// Interpolant and error norms
// ---------------------------------------------------------------------------------------

TEST(ProblemInterpolation, EqualsSineAtNodes)
{
  for (int dim : {2, 3})
    for (int k : {1, 2, 5})
      {
        const Domain   dom = anisotropic_domain(dim);
        const auto     lev = make_level(dom, k, 1);
        const Exact    ex{dom};
        const auto     gll = LagrangeBasis1D(unsigned(k)).support_points();
        Vector<double> u;
        interpolate_exact_solution(lev, Backend::cpu, u);
        ASSERT_EQ(u.size(), lev.n_dofs());
        const auto uh = u.to_host();
        for (index_t l = 0; l < lev.nodes(2); ++l)
          for (index_t j = 0; j < lev.nodes(1); ++j)
            for (index_t i = 0; i < lev.nodes(0); ++i)
              {
                const index_t g        = lev.dof_index(i, j, l);
                const double  x[3]     = {lev.node_coordinate(0, i, gll), lev.node_coordinate(1, j, gll),
                                     dim == 3 ? lev.node_coordinate(2, l, gll) : 0.0};
                const double  expected = lev.on_boundary(i, j, l) ? 0.0 : ex.value(x);
                ASSERT_NEAR(uh[std::size_t(g)], expected, 1e-14) << dim << "D k=" << k << " node " << g;
                if (lev.on_boundary(i, j, l))
                  {
                    ASSERT_EQ(uh[std::size_t(g)], 0.0);
                  }
              }
      }
}

class ProblemErrorsTest : public ::testing::TestWithParam<std::tuple<int, int>>
{};

// The phased kernel against a brute-force evaluation of a random Q_k function.
TEST_P(ProblemErrorsTest, MatchesBruteForceQuadrature)
{
  // (no structured binding: lambdas capture these, which C++17 does not allow)
  const int    dim = std::get<0>(GetParam()), k = std::get<1>(GetParam());
  const Domain dom = anisotropic_domain(dim);
  const auto   lev = make_level(dom, k, 1);
  const auto   u   = random_interior(lev, 11);
  for (int nq = k + 1; nq <= k + 3; ++nq)
    {
      const ErrorNorms ref = reference_errors(dom, lev, u, unsigned(nq));
      const ErrorNorms e   = errors_of(lev, u, nq);
      EXPECT_NEAR(e.l2, ref.l2, 1e-12 * ref.l2) << "nq " << nq;
      EXPECT_NEAR(e.h1_semi, ref.h1_semi, 1e-12 * ref.h1_semi) << "nq " << nq;
    }
  // default: k+3 points
  Vector<double> v(lev.n_dofs(), Backend::cpu);
  v.from_host(u);
  const ErrorNorms e3  = dispatch_dim(dim, [&](auto D) {
    return dispatch_degree(k, [&](auto K) { return compute_errors<decltype(D)::value, decltype(K)::value>(lev, v); });
  });
  const ErrorNorms ref = reference_errors(dom, lev, u, unsigned(k + 3));
  EXPECT_NEAR(e3.l2, ref.l2, 1e-12 * ref.l2);
  EXPECT_NEAR(e3.h1_semi, ref.h1_semi, 1e-12 * ref.h1_semi);
  EXPECT_THROW(errors_of(lev, u, k), std::invalid_argument);
  EXPECT_THROW(errors_of(lev, u, k + 4), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Degrees, ProblemErrorsTest,
                         ::testing::Values(std::make_tuple(2, 1), std::make_tuple(2, 2), std::make_tuple(2, 4),
                                           std::make_tuple(2, 7), std::make_tuple(2, 10), std::make_tuple(3, 1),
                                           std::make_tuple(3, 2), std::make_tuple(3, 3), std::make_tuple(3, 5)),
                         [](const auto &tp) {
                           return std::to_string(std::get<0>(tp.param)) + "D_k" + std::to_string(std::get<1>(tp.param));
                         });

// u_h = 0: the errors are the norms of u, ‖u‖² = Π_d L_d/2, |u|²_H1 = Σ_d (π/L_d)² Π_e L_e/2;
// on the unit box (1/2)^(dim/2) and sqrt(dim) π (1/2)^(dim/2).
TEST(ProblemErrors, ZeroFunctionGivesNormsOfExactSolution)
{
  for (int dim : {2, 3})
    {
      const double unit_l2 = std::pow(0.5, 0.5 * dim);
      const double unit_h1 = std::sqrt(double(dim)) * pi * unit_l2;
      for (int k : {1, 3})
        {
          const auto     lev = make_level(unit_domain(dim), k, 3);
          Vector<double> zero(lev.n_dofs(), Backend::cpu);
          const auto     e = compute_errors(lev, zero);
          EXPECT_NEAR(e.l2, unit_l2, 1e-9) << dim << "D k=" << k;
          EXPECT_NEAR(e.h1_semi, unit_h1, 1e-8) << dim << "D k=" << k;
        }
      // anisotropic box
      const Domain dom  = anisotropic_domain(dim);
      double       l2sq = 1, h1sq = 0;
      for (int d = 0; d < dim; ++d)
        l2sq *= 0.5 * (dom.upper[d] - dom.lower[d]);
      for (int d = 0; d < dim; ++d)
        {
          const double f = pi / (dom.upper[d] - dom.lower[d]);
          h1sq += f * f * l2sq;
        }
      const auto     lev = make_level(dom, 2, 2);
      Vector<double> zero(lev.n_dofs(), Backend::cpu);
      const auto     e = compute_errors(lev, zero);
      EXPECT_NEAR(e.l2, std::sqrt(l2sq), 1e-9 * std::sqrt(l2sq)) << dim << "D anisotropic";
      EXPECT_NEAR(e.h1_semi, std::sqrt(h1sq), 1e-9 * std::sqrt(h1sq)) << dim << "D anisotropic";
    }
}

// The interpolation error converges at rate k+1 in L2 and k in H1.
TEST(ProblemErrors, InterpolationErrorConvergesAtOptimalRates)
{
  struct Case
  {
    int dim, k;
  };
  for (const Case c : {Case{2, 1}, Case{2, 2}, Case{2, 3}, Case{2, 4}, Case{3, 1}, Case{3, 2}, Case{3, 3}})
    {
      const Domain            dom = unit_domain(c.dim);
      std::vector<ErrorNorms> e;
      for (int level = 2; level <= 4; ++level)
        {
          const auto     lev = make_level(dom, c.k, level);
          Vector<double> u;
          interpolate_exact_solution(lev, Backend::cpu, u);
          e.push_back(compute_errors(lev, u));
        }
      for (std::size_t i = 1; i < e.size(); ++i)
        {
          const double rate_l2 = std::log2(e[i - 1].l2 / e[i].l2);
          const double rate_h1 = std::log2(e[i - 1].h1_semi / e[i].h1_semi);
          std::printf("  %dD k=%d level %zu: L2 %.3e (rate %.2f)  H1 %.3e (rate %.2f)\n", c.dim, c.k, i + 2, e[i].l2,
                      rate_l2, e[i].h1_semi, rate_h1);
          EXPECT_NEAR(rate_l2, c.k + 1, 0.2) << c.dim << "D k=" << c.k << " level " << i + 2;
          EXPECT_NEAR(rate_h1, c.k, 0.2) << c.dim << "D k=" << c.k << " level " << i + 2;
        }
    }
}
