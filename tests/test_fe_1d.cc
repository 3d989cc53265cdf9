#include <tpmg/fe_1d.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace tpmg;

// ∫_0^1 x^p dx = 1/(p+1)
static double integrate_monomial(const Quadrature1D &q, int p)
{
  double s = 0;
  for (std::size_t i = 0; i < q.size(); ++i)
    s += q.weights[i] * std::pow(q.points[i], p);
  return s;
}

TEST(Quadrature1D, GaussIsExactUpToDegree2nMinus1)
{
  for (unsigned n = 1; n <= 14; ++n)
    {
      const auto q = gauss_quadrature(n);
      for (int p = 0; p <= int(2 * n - 1); ++p)
        EXPECT_NEAR(integrate_monomial(q, p), 1.0 / (p + 1), 1e-14) << "n=" << n << " p=" << p;
      // one degree higher the error is the known remainder (n!)^4 / ((2n+1) ((2n)!)^2)
      if (n <= 6)
        {
          const double fn = std::tgamma(n + 1.0), f2n = std::tgamma(2 * n + 1.0);
          const double remainder = std::pow(fn, 4) / ((2 * n + 1) * f2n * f2n);
          EXPECT_NEAR(1.0 / (2 * n + 1) - integrate_monomial(q, 2 * n), remainder, 1e-6 * remainder);
        }
    }
}

TEST(Quadrature1D, GaussLobattoIsExactUpToDegree2nMinus3)
{
  for (unsigned n = 2; n <= 12; ++n)
    {
      const auto q = gauss_lobatto_quadrature(n);
      EXPECT_EQ(q.points.front(), 0.0);
      EXPECT_EQ(q.points.back(), 1.0);
      for (int p = 0; p <= int(2 * n - 3); ++p)
        EXPECT_NEAR(integrate_monomial(q, p), 1.0 / (p + 1), 1e-14) << "n=" << n << " p=" << p;
      for (unsigned i = 1; i < n; ++i)
        EXPECT_LT(q.points[i - 1], q.points[i]);
    }
}

TEST(LagrangeBasis1D, KnownSupportPoints)
{
  const LagrangeBasis1D b2(2);
  EXPECT_NEAR(b2.support_points()[1], 0.5, 1e-16);
  const LagrangeBasis1D b3(3);
  // GLL points of degree 3 on [-1,1]: ±1, ±1/sqrt(5)
  EXPECT_NEAR(b3.support_points()[1], 0.5 * (1 - 1 / std::sqrt(5.0)), 1e-15);
}

TEST(LagrangeBasis1D, NodalityAndPartitionOfUnity)
{
  for (unsigned k = 1; k <= 10; ++k)
    {
      const LagrangeBasis1D b(k);
      for (unsigned i = 0; i <= k; ++i)
        for (unsigned j = 0; j <= k; ++j)
          EXPECT_NEAR(b.value(i, b.support_points()[j]), i == j ? 1.0 : 0.0, 1e-13);
      for (double x : {0.0, 0.123, 0.5, 0.77, 1.0})
        {
          double s = 0, ds = 0;
          for (unsigned i = 0; i <= k; ++i)
            {
              s += b.value(i, x);
              ds += b.derivative(i, x);
            }
          EXPECT_NEAR(s, 1.0, 1e-13);
          EXPECT_NEAR(ds, 0.0, 1e-10);
        }
      // derivative against a central difference
      const double x = 0.3141, eps = 1e-6;
      for (unsigned i = 0; i <= k; ++i)
        EXPECT_NEAR(b.derivative(i, x), (b.value(i, x + eps) - b.value(i, x - eps)) / (2 * eps),
                    1e-6 * (1 + std::fabs(b.derivative(i, x))));
    }
}

TEST(ElementMatrices1D, ClosedFormsDegree1And2)
{
  const auto   e1       = element_matrices_1d(1);
  const double m1[2][2] = {{1.0 / 3, 1.0 / 6}, {1.0 / 6, 1.0 / 3}};
  const double a1[2][2] = {{1, -1}, {-1, 1}};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      {
        EXPECT_NEAR(e1.mass(i, j), m1[i][j], 1e-15);
        EXPECT_NEAR(e1.stiffness(i, j), a1[i][j], 1e-14);
      }
  // Q2 on [0,1] with nodes 0, 1/2, 1
  const auto   e2       = element_matrices_1d(2);
  const double m2[3][3] = {{4.0 / 30, 2.0 / 30, -1.0 / 30},
                           {2.0 / 30, 16.0 / 30, 2.0 / 30},
                           {-1.0 / 30, 2.0 / 30, 4.0 / 30}};
  const double a2[3][3] = {{7.0 / 3, -8.0 / 3, 1.0 / 3}, {-8.0 / 3, 16.0 / 3, -8.0 / 3}, {1.0 / 3, -8.0 / 3, 7.0 / 3}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      {
        EXPECT_NEAR(e2.mass(i, j), m2[i][j], 1e-15);
        EXPECT_NEAR(e2.stiffness(i, j), a2[i][j], 1e-14);
      }
  EXPECT_NEAR(e2.lumped_mass(1, 1), 4.0 / 6, 1e-15); // Simpson weight
}

TEST(ElementMatrices1D, PropertiesAllDegrees)
{
  for (unsigned k = 1; k <= 10; ++k)
    {
      const auto e          = element_matrices_1d(k);
      double     total_mass = 0, lumped = 0;
      for (unsigned i = 0; i <= k; ++i)
        {
          double row_a = 0;
          for (unsigned j = 0; j <= k; ++j)
            {
              EXPECT_NEAR(e.mass(i, j), e.mass(j, i), 1e-15);
              EXPECT_NEAR(e.stiffness(i, j), e.stiffness(j, i), 1e-12);
              total_mass += e.mass(i, j);
              row_a += e.stiffness(i, j);
            }
          lumped += e.lumped_mass(i, i);
          EXPECT_NEAR(row_a, 0.0, 1e-10) << "constants are in the kernel of A";
        }
      EXPECT_NEAR(total_mass, 1.0, 1e-14);
      EXPECT_NEAR(lumped, 1.0, 1e-14);
    }
}

TEST(Prolongation1D, ReproducesCoarsePolynomials)
{
  for (unsigned k = 1; k <= 10; ++k)
    {
      const LagrangeBasis1D b(k);
      const Matrix1D        p = prolongation_matrix_1d(k);
      ASSERT_EQ(p.rows, 2 * k + 1);
      // coarse function u(x) = x^k - 0.3 x + 0.1 interpolated, then prolongated
      auto u = [k](double x) { return std::pow(x, int(k)) - 0.3 * x + 0.1; };
      for (unsigned r = 0; r <= 2 * k; ++r)
        {
          const unsigned child = r / k == 2 ? 1 : r / k;
          const double   x     = 0.5 * (child + b.support_points()[r - child * k]);
          double         v     = 0;
          for (unsigned j = 0; j <= k; ++j)
            v += p(r, j) * u(b.support_points()[j]);
          EXPECT_NEAR(v, u(x), 1e-12);
        }
      // the nodes shared with the coarse cell are copied exactly
      EXPECT_EQ(p(0, 0), 1.0);
      EXPECT_EQ(p(2 * k, k), 1.0);
      EXPECT_EQ(p(2 * k, 0), 0.0);
    }
}

TEST(LagrangeDerivative, ExactForPolynomialsOnTheirPoints)
{
  for (unsigned n : {2u, 5u, 9u})
    {
      const auto     q = gauss_quadrature(n);
      const Matrix1D D = lagrange_derivative_matrix(q.points);
      // p(x) = x^(n-1) - 2x + 1 has degree n-1: differentiated exactly
      for (unsigned i = 0; i < n; ++i)
        {
          double d = 0;
          for (unsigned j = 0; j < n; ++j)
            d += D(i, j) * (std::pow(q.points[j], int(n) - 1) - 2 * q.points[j] + 1);
          const double exact = (n - 1) * std::pow(q.points[i], int(n) - 2) - 2;
          EXPECT_NEAR(d, exact, 1e-11) << n;
        }
    }
}
