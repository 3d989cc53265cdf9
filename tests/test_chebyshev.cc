// Chebyshev–point-Jacobi smoother: diagonal against an assembled matrix, λ_max estimate against
// a dense eigenvalue computation, the Chebyshev error polynomial on eigenvectors, smoothing of
// high frequencies, fixed point at the exact solution, untouched boundary rows.
#include <tpmg/chebyshev_smoother.h>
#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/vector_ops.h>

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdio>
#include <memory>

#include "reference.h"

using namespace tpmg;
using namespace tpmg::test;

namespace
{
  template <typename N>
  Vector<N> to_vector(const std::vector<double> &v)
  {
    Vector<N> r(index_t(v.size()), Backend::cpu);
    r.from_host(std::vector<N>(v.begin(), v.end()));
    return r;
  }

  template <typename N>
  std::vector<double> to_double(const Vector<N> &v)
  {
    const auto h = v.to_host();
    return std::vector<double>(h.begin(), h.end());
  }

  template <typename N>
  std::unique_ptr<LinearOperator<N>> make_operator(const CartesianLevel &lev)
  {
    std::unique_ptr<LinearOperator<N>> op;
    dispatch_dim(lev.dim, [&](auto D) {
      dispatch_degree(lev.degree, [&](auto K) {
        op = std::make_unique<CartesianLaplaceOperator<decltype(D)::value, decltype(K)::value, N>>(lev, Backend::cpu);
      });
    });
    return op;
  }

  /// The level operator and a smoother on it.
  template <typename N>
  struct SmootherSetup
  {
    std::unique_ptr<LinearOperator<N>>    op;
    std::unique_ptr<ChebyshevSmoother<N>> smoother;
    SmootherSetup(const CartesianLevel &lev, const ChebyshevSettings &s = {})
    {
      op = make_operator<N>(lev);
      Vector<N> diag;
      laplace_diagonal(lev, Backend::cpu, false, diag);
      smoother = std::make_unique<ChebyshevSmoother<N>>(*op, std::move(diag), s, Backend::cpu);
    }
    std::vector<double> smooth(const std::vector<double> &x, const std::vector<double> &b) const
    {
      Vector<N> xv = to_vector<N>(x), bv = to_vector<N>(b);
      smoother->smooth(xv, bv);
      return to_double(xv);
    }
  };

  /// Interior indices of a level.
  std::vector<index_t> interior(const CartesianLevel &lev)
  {
    std::vector<index_t> idx;
    for (index_t g = 0; g < lev.n_dofs(); ++g)
      if (!is_boundary(lev, g))
        idx.push_back(g);
    return idx;
  }

  /// Dense eigen-decomposition of D^{-1}A on the interior: D^{-1}A v_j = λ_j v_j with
  /// v_j = D^{-1/2} w_j, w_j the orthonormal eigenvectors of D^{-1/2} A D^{-1/2}.
  struct DenseSpectrum
  {
    std::vector<index_t> idx;
    Eigen::VectorXd      lambda, dsqrt;
    Eigen::MatrixXd      w;
  };
  DenseSpectrum dense_spectrum(const CartesianLevel &lev, bool vectors = true)
  {
    DenseSpectrum s;
    s.idx                   = interior(lev);
    const int             n = int(s.idx.size());
    const Eigen::MatrixXd A(assemble_laplace(lev));
    Eigen::MatrixXd       S(n, n);
    s.dsqrt.resize(n);
    for (int a = 0; a < n; ++a)
      s.dsqrt(a) = std::sqrt(A(s.idx[a], s.idx[a]));
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < n; ++c)
        S(a, c) = A(s.idx[a], s.idx[c]) / (s.dsqrt(a) * s.dsqrt(c));
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(S, vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
    s.lambda = es.eigenvalues();
    if (vectors)
      s.w = es.eigenvectors();
    return s;
  }

  /// Chebyshev polynomial T_k(t) by the three-term recurrence (valid for every t).
  double chebyshev_t(int k, double t)
  {
    double t0 = 1, t1 = t;
    if (k == 0)
      return 1;
    for (int j = 1; j < k; ++j)
      {
        const double t2 = 2 * t * t1 - t0;
        t0              = t1;
        t1              = t2;
      }
    return t1;
  }

  /// Error amplification of one smoothing step at eigenvalue λ of D^{-1}A.
  double error_factor(int degree, double lower, double upper, double lambda)
  {
    const double theta = 0.5 * (upper + lower), delta = 0.5 * (upper - lower);
    return chebyshev_t(degree, (theta - lambda) / delta) / chebyshev_t(degree, theta / delta);
  }
} // namespace

// ---------------------------------------------------------------------------------------------
// laplace_diagonal
// ---------------------------------------------------------------------------------------------

class ChebyshevDiagonalTest : public ::testing::TestWithParam<std::tuple<int, int>>
{};

TEST_P(ChebyshevDiagonalTest, EqualsAssembledDiagonal)
{
  const auto [dim, k] = GetParam();
  for (unsigned dirichlet : {all_faces, all_faces & ~(2u | 4u | 16u)}) // (x+, y-, z- Neumann)
    {
      auto lev            = anisotropic_level(dim, k, 1);
      lev.dirichlet_faces = dirichlet;
      const auto A        = assemble_laplace(lev);

      Vector<double> dd;
      Vector<float>  df;
      laplace_diagonal(lev, Backend::cpu, false, dd);
      laplace_diagonal(lev, Backend::cpu, false, df);
      ASSERT_EQ(dd.size(), lev.n_dofs());
      const auto hd = dd.to_host();
      const auto hf = df.to_host();
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        {
          const double ref = A.coeff(g, g);
          if (is_boundary(lev, g))
            {
              ASSERT_EQ(hd[g], 1.0);
              ASSERT_EQ(hf[g], 1.0f);
            }
          else
            {
              ASSERT_GT(ref, 0.0);
              ASSERT_NEAR(hd[g], ref, 1e-13 * ref) << "node " << g;
              ASSERT_NEAR(hf[g], ref, 1e-6 * ref) << "node " << g;
            }
        }
    }
}

TEST_P(ChebyshevDiagonalTest, LumpedMassEqualsElementLoop)
{
  // Independent assembly of the diagonal with GLL-lumped masses (the bp5 operator), cell by
  // cell: element diagonal Σ_d (S_ii/h_d) Π_{e≠d} w_i h_e, w the GLL weights.
  const auto [dim, k]     = GetParam();
  const auto          lev = anisotropic_level(dim, k, 1);
  const auto          r1  = reference_1d(k);
  const auto          gll = gauss_lobatto_quadrature(unsigned(k + 1));
  const int           n   = k + 1;
  const int           nd  = dim == 3 ? n * n * n : n * n;
  std::vector<double> ref(lev.n_dofs(), 0.0);
  for (index_t cz = 0; cz < (dim == 3 ? lev.cells[2] : 1); ++cz)
    for (index_t cy = 0; cy < lev.cells[1]; ++cy)
      for (index_t cx = 0; cx < lev.cells[0]; ++cx)
        for (int I = 0; I < nd; ++I)
          {
            const int i[3] = {I % n, (I / n) % n, dim == 3 ? I / (n * n) : 0};
            double    v    = 0;
            for (int d = 0; d < dim; ++d)
              {
                double t = r1.stiffness(i[d], i[d]) / lev.h[d];
                for (int e = 0; e < dim; ++e)
                  if (e != d)
                    t *= gll.weights[i[e]] * lev.h[e];
                v += t;
              }
            ref[cell_node(lev, cx, cy, cz, I)] += v;
          }
  Vector<double> dd;
  laplace_diagonal(lev, Backend::cpu, true, dd);
  const auto h = dd.to_host();
  for (index_t g = 0; g < lev.n_dofs(); ++g)
    if (is_boundary(lev, g))
      ASSERT_EQ(h[g], 1.0);
    else
      ASSERT_NEAR(h[g], ref[g], 1e-13 * ref[g]) << "node " << g;
  // the lumped and the consistent diagonal differ (so the flag is honored)
  Vector<double> exact;
  laplace_diagonal(lev, Backend::cpu, false, exact);
  EXPECT_GT(rel_diff(exact.to_host(), std::vector<double>(h.begin(), h.end())), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Degrees, ChebyshevDiagonalTest,
                         ::testing::Values(std::make_tuple(2, 1), std::make_tuple(2, 2), std::make_tuple(2, 3),
                                           std::make_tuple(2, 5), std::make_tuple(2, 8), std::make_tuple(3, 1),
                                           std::make_tuple(3, 2), std::make_tuple(3, 3), std::make_tuple(3, 4)));

// ---------------------------------------------------------------------------------------------
// λ_max estimate
// ---------------------------------------------------------------------------------------------

class ChebyshevEigenvalueTest : public ::testing::TestWithParam<std::tuple<int, int, int>>
{};

TEST_P(ChebyshevEigenvalueTest, EstimateCloseToDenseLambdaMax)
{
  const auto [dim, k, level] = GetParam();
  const auto   lev           = anisotropic_level(dim, k, level);
  const auto   spec          = dense_spectrum(lev, false);
  const double exact         = spec.lambda.maxCoeff();

  const SmootherSetup<double> sd(lev);
  const SmootherSetup<float>  sf(lev);
  const double                ratio_d = sd.smoother->max_eigenvalue() / exact;
  const double                ratio_f = sf.smoother->max_eigenvalue() / exact;
  std::printf("  dim %d k %d level %d (%zu interior): lambda_max %.6f, estimate/exact double %.5f float %.5f "
              "(%d CG steps)\n",
              dim, k, level, spec.idx.size(), exact, ratio_d, ratio_f, sd.smoother->eigenvalue_iterations_done());
  // Lanczos Ritz values lie inside the spectrum: the estimate is a lower bound, close to it.
  EXPECT_LE(ratio_d, 1.0 + 1e-10);
  EXPECT_GE(ratio_d, 0.95);
  EXPECT_LE(ratio_f, 1.0 + 1e-5);
  EXPECT_GE(ratio_f, 0.95);
  // ... and the interval's upper end 1.2 λ_est covers the whole spectrum.
  EXPECT_GE(sd.smoother->interval_upper(), exact);
  EXPECT_NEAR(sd.smoother->interval_upper(), 1.2 * sd.smoother->max_eigenvalue(), 1e-14 * exact);
  EXPECT_NEAR(sd.smoother->interval_lower(), sd.smoother->max_eigenvalue() / 15.0, 1e-14 * exact);
}

INSTANTIATE_TEST_SUITE_P(SmallLevels, ChebyshevEigenvalueTest,
                         ::testing::Values(std::make_tuple(2, 1, 3), std::make_tuple(2, 2, 2), std::make_tuple(2, 5, 1),
                                           std::make_tuple(3, 1, 2), std::make_tuple(3, 2, 1),
                                           std::make_tuple(3, 3, 1)));

// ---------------------------------------------------------------------------------------------
// smoothing
// ---------------------------------------------------------------------------------------------

// With b = 0 one step maps an eigenvector v of D^{-1}A with eigenvalue λ to
// T_deg((θ-λ)/δ)/T_deg(θ/δ) v: this checks the whole three-term recurrence.
TEST(ChebyshevSmootherTest, ErrorPolynomialOnEigenvectors)
{
  for (const auto &[dim, k, level] : {std::make_tuple(2, 2, 2), std::make_tuple(3, 2, 1)})
    {
      const auto lev  = anisotropic_level(dim, k, level);
      const auto spec = dense_spectrum(lev);
      const int  n    = int(spec.idx.size());
      for (int degree : {1, 2, 3, 5})
        {
          ChebyshevSettings s;
          s.degree = degree;
          const SmootherSetup<double> sd(lev, s);
          const std::vector<double>   zero(lev.n_dofs(), 0.0);
          for (int j : {0, n / 8, n / 4, n / 2, 3 * n / 4, n - 1})
            {
              std::vector<double> v(lev.n_dofs(), 0.0);
              for (int a = 0; a < n; ++a)
                v[spec.idx[a]] = spec.w(a, j) / spec.dsqrt(a);
              const double f =
                error_factor(degree, sd.smoother->interval_lower(), sd.smoother->interval_upper(), spec.lambda(j));
              const auto x   = sd.smooth(v, zero);
              double     num = 0, den = 0;
              for (index_t g = 0; g < lev.n_dofs(); ++g)
                {
                  num += (x[g] - f * v[g]) * (x[g] - f * v[g]);
                  den += v[g] * v[g];
                }
              EXPECT_LT(std::sqrt(num / den), 1e-11)
                << "dim " << dim << " degree " << degree << " eigenvalue " << spec.lambda(j) << " factor " << f;
            }
        }
    }
}

// b = 0, random x: the energy norm drops; its high-frequency part (eigenvalues of D^{-1}A in
// the smoothing interval) by at least 1/T_deg(θ/δ), the low part is not amplified.
TEST(ChebyshevSmootherTest, ReducesHighFrequencyEnergy)
{
  const auto                  lev  = anisotropic_level(2, 2, 2);
  const auto                  spec = dense_spectrum(lev);
  const int                   n    = int(spec.idx.size());
  const auto                  A    = assemble_laplace(lev);
  const SmootherSetup<double> sd(lev);
  const double                lower = sd.smoother->interval_lower(), upper = sd.smoother->interval_upper();
  const double                bound = 1.0 / chebyshev_t(3, (upper + lower) / (upper - lower));

  const auto x0 = random_vector(lev, 11);
  const auto x1 = sd.smooth(x0, std::vector<double>(lev.n_dofs(), 0.0));
  // coefficients in the D-orthonormal eigenbasis: c = Wᵀ D^{1/2} x
  auto coefficients = [&](const std::vector<double> &x) {
    Eigen::VectorXd y(n);
    for (int a = 0; a < n; ++a)
      y(a) = spec.dsqrt(a) * x[spec.idx[a]];
    return Eigen::VectorXd(spec.w.transpose() * y);
  };
  const Eigen::VectorXd c0 = coefficients(x0), c1 = coefficients(x1);
  double                high0 = 0, high1 = 0, low0 = 0, low1 = 0;
  for (int j = 0; j < n; ++j)
    {
      const double e0j = spec.lambda(j) * c0(j) * c0(j), e1j = spec.lambda(j) * c1(j) * c1(j);
      if (spec.lambda(j) >= lower)
        {
          high0 += e0j;
          high1 += e1j;
        }
      else
        {
          low0 += e0j;
          low1 += e1j;
        }
    }
  const double high_ratio = std::sqrt(high1 / high0), low_ratio = std::sqrt(low1 / low0);
  const double e0 = std::sqrt(to_eigen(x0).dot(A * to_eigen(x0)));
  const double e1 = std::sqrt(to_eigen(x1).dot(A * to_eigen(x1)));
  std::printf("  energy norm ratio %.4f; high-frequency part %.4f (bound 1/T_3 = %.4f), low part %.4f\n", e1 / e0,
              high_ratio, bound, low_ratio);
  EXPECT_LE(high_ratio, bound * (1 + 1e-9));
  EXPECT_LE(low_ratio, 1.0);
  EXPECT_LT(e1 / e0, 0.45);
}

// The same on larger levels without dense algebra, 2D and 3D, double and float.
TEST(ChebyshevSmootherTest, ReducesEnergyOfRandomVector)
{
  for (const auto &[dim, k, level] :
       {std::make_tuple(2, 1, 4), std::make_tuple(2, 4, 2), std::make_tuple(3, 2, 2), std::make_tuple(3, 3, 1)})
    {
      const auto                lev = anisotropic_level(dim, k, level);
      const auto                x0  = random_vector(lev, 5);
      const std::vector<double> zero(lev.n_dofs(), 0.0);
      auto                      energy = [&](const LinearOperator<double> &op, const std::vector<double> &x) {
        Vector<double> xv = to_vector<double>(x), ax;
        op.vmult(ax, xv);
        return std::sqrt(dot(xv, ax));
      };
      const SmootherSetup<double> sd(lev);
      const SmootherSetup<float>  sf(lev);
      const auto                  xd = sd.smooth(x0, zero);
      const auto                  xf = sf.smooth(x0, zero);
      const double                rd = energy(*sd.op, xd) / energy(*sd.op, x0);
      const double                rf = energy(*sd.op, xf) / energy(*sd.op, x0);
      std::printf("  dim %d k %d level %d: energy norm ratio double %.4f float %.4f\n", dim, k, level, rd, rf);
      EXPECT_LT(rd, 0.45);
      EXPECT_NEAR(rf, rd, 1e-4);
      EXPECT_LT(rel_diff(xf, xd), 1e-5);
    }
}

// x = A^{-1} b is a fixed point of the smoother.
TEST(ChebyshevSmootherTest, ExactSolutionIsFixedPoint)
{
  for (const auto &[dim, k, level] : {std::make_tuple(2, 3, 2), std::make_tuple(3, 2, 1)})
    {
      const auto                                         lev = anisotropic_level(dim, k, level);
      const auto                                         A   = assemble_laplace(lev);
      const auto                                         b   = random_vector(lev, 3);
      Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(A);
      ASSERT_EQ(solver.info(), Eigen::Success);
      const auto x = to_std(solver.solve(to_eigen(b)));

      const SmootherSetup<double> sd(lev);
      const auto                  y      = sd.smooth(x, b);
      const double                change = rel_diff(y, x);
      std::printf("  dim %d k %d: relative change of the exact solution %.2e\n", dim, k, change);
      EXPECT_LT(change, 1e-12);
      // a perturbed solution moves (the test can fail)
      auto       xp    = x;
      const auto inner = interior(lev);
      xp[inner[inner.size() / 2]] += 1e-3;
      EXPECT_GT(rel_diff(sd.smooth(xp, b), xp), 1e-8);
    }
}

// Boundary rows: inverse diagonal 0, boundary values never change, interior result does not
// depend on them.
TEST(ChebyshevSmootherTest, BoundaryUntouched)
{
  const auto lev = anisotropic_level(3, 2, 1);
  const auto xi = random_vector(lev, 21), bi = random_vector(lev, 22);
  auto       xb = random_vector(lev, 23, true), bb = random_vector(lev, 24, true);
  for (index_t g = 0; g < lev.n_dofs(); ++g)
    if (!is_boundary(lev, g))
      {
        xb[g] = xi[g];
        bb[g] = bi[g];
      }
  const SmootherSetup<double> sd(lev);
  const SmootherSetup<float>  sf(lev);
  Vector<double>              diag;
  laplace_diagonal(lev, Backend::cpu, false, diag);
  const auto inv_d = sd.smoother->inverse_diagonal().to_host();
  const auto inv_f = sf.smoother->inverse_diagonal().to_host();
  const auto dh    = diag.to_host();
  for (index_t g = 0; g < lev.n_dofs(); ++g)
    if (is_boundary(lev, g))
      {
        ASSERT_EQ(inv_d[g], 0.0);
        ASSERT_EQ(inv_f[g], 0.0f);
      }
    else
      {
        ASSERT_EQ(inv_d[g], 1.0 / dh[g]);
        ASSERT_NEAR(inv_f[g], 1.0 / dh[g], 1e-6 / dh[g]);
      }

  const auto y_clean = sd.smooth(xi, bi);
  const auto y_dirty = sd.smooth(xb, bb);
  const auto f_dirty = sf.smooth(xb, bb);
  for (index_t g = 0; g < lev.n_dofs(); ++g)
    if (is_boundary(lev, g))
      {
        ASSERT_EQ(y_clean[g], 0.0);
        ASSERT_EQ(y_dirty[g], xb[g]);
        ASSERT_EQ(f_dirty[g], double(float(xb[g])));
      }
    else
      ASSERT_NEAR(y_dirty[g], y_clean[g], 1e-12 * (1 + std::fabs(y_clean[g])));
  EXPECT_GT(rel_diff(y_clean, xi), 1e-3); // the interior did change
}

TEST(ChebyshevSmootherTest, RejectsBadInput)
{
  const auto     lev = anisotropic_level(2, 2, 1);
  auto           op  = make_operator<double>(lev);
  Vector<double> diag;
  laplace_diagonal(lev, Backend::cpu, false, diag);
  ChebyshevSettings s;
  s.smoothing_range = 1.0;
  auto bad_range    = [&] { ChebyshevSmoother<double> sm(*op, std::move(diag), s, Backend::cpu); };
  EXPECT_THROW(bad_range(), std::invalid_argument);
  auto bad_size = [&] {
    Vector<double>            short_diag(lev.n_dofs() - 1, Backend::cpu);
    ChebyshevSmoother<double> sm(*op, std::move(short_diag), ChebyshevSettings{}, Backend::cpu);
  };
  EXPECT_THROW(bad_size(), std::invalid_argument);
}
