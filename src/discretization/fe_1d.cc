#include <tpmg/fe_1d.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace
  {
    using ld = long double;

    // Legendre polynomial P_n and its derivative at x in [-1,1].
    void legendre(unsigned n, ld x, ld &p, ld &dp)
    {
      ld p0 = 1, p1 = x;
      if (n == 0)
        {
          p  = 1;
          dp = 0;
          return;
        }
      for (unsigned k = 2; k <= n; ++k)
        {
          const ld p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
          p0          = p1;
          p1          = p2;
        }
      p  = p1;
      dp = n * (x * p1 - p0) / (x * x - 1); // valid away from ±1
    }

    void check_degree(unsigned degree)
    {
      if (degree < 1 || degree > 30)
        throw std::invalid_argument("polynomial degree " + std::to_string(degree) +
                                    " is outside the supported range 1..30 of the 1D data");
    }
  } // namespace

  Quadrature1D gauss_quadrature(unsigned n)
  {
    if (n < 1)
      throw std::invalid_argument("Gauss quadrature needs at least one point");
    Quadrature1D q;
    q.points.resize(n);
    q.weights.resize(n);
    const ld pi = 3.141592653589793238462643383279502884L;
    for (unsigned i = 0; i < n; ++i)
      {
        ld x = std::cos(pi * (i + 0.75L) / (n + 0.5L)); // Tricomi initial guess
        ld p, dp;
        for (int it = 0; it < 100; ++it)
          {
            legendre(n, x, p, dp);
            const ld dx = p / dp;
            x -= dx;
            if (std::fabs(dx) < 1e-19L)
              break;
          }
        legendre(n, x, p, dp);
        // map from [-1,1] to [0,1], ascending order
        q.points[n - 1 - i]  = double((1 + x) / 2);
        q.weights[n - 1 - i] = double(1 / ((1 - x * x) * dp * dp));
      }
    return q;
  }

  Quadrature1D gauss_lobatto_quadrature(unsigned n)
  {
    if (n < 2)
      throw std::invalid_argument("Gauss-Lobatto quadrature needs at least two points");
    const unsigned m = n - 1; // interior points are the roots of P_m'
    Quadrature1D   q;
    q.points.resize(n);
    q.weights.resize(n);
    const ld pi = 3.141592653589793238462643383279502884L;
    for (unsigned i = 0; i < n; ++i)
      {
        ld x;
        if (i == 0)
          x = -1;
        else if (i == m)
          x = 1;
        else
          {
            x = -std::cos(pi * i / m); // Chebyshev–Gauss–Lobatto initial guess
            // Newton on P_m'(x), using (1-x^2) P_m'' = 2x P_m' - m(m+1) P_m
            for (int it = 0; it < 100; ++it)
              {
                ld p, dp;
                legendre(m, x, p, dp);
                const ld ddp = (2 * x * dp - m * (m + 1) * p) / (1 - x * x);
                const ld dx  = dp / ddp;
                x -= dx;
                if (std::fabs(dx) < 1e-19L)
                  break;
              }
          }
        ld p, dp;
        if (i == 0 || i == m)
          p = (i == 0 && (m % 2 == 1)) ? -1 : 1;
        else
          legendre(m, x, p, dp);
        q.points[i]  = double((1 + x) / 2);
        q.weights[i] = double(1 / (m * (m + 1) * p * p)); // 2/(m(m+1)P^2) scaled by 1/2
      }
    q.points.front() = 0.0;
    q.points.back()  = 1.0;
    return q;
  }

  LagrangeBasis1D::LagrangeBasis1D(unsigned degree) : degree_(degree)
  {
    check_degree(degree);
    support_points_ = gauss_lobatto_quadrature(degree + 1).points;
    // Recompute the points in long double for the basis evaluation.
    support_points_ld_.assign(support_points_.begin(), support_points_.end());
    denominators_.resize(degree + 1);
    for (unsigned i = 0; i <= degree; ++i)
      {
        ld d = 1;
        for (unsigned j = 0; j <= degree; ++j)
          if (j != i)
            d *= support_points_ld_[i] - support_points_ld_[j];
        denominators_[i] = d;
      }
  }

  double LagrangeBasis1D::value(unsigned i, double x) const
  {
    ld v = 1;
    for (unsigned j = 0; j <= degree_; ++j)
      if (j != i)
        v *= ld(x) - support_points_ld_[j];
    return double(v / denominators_[i]);
  }

  double LagrangeBasis1D::derivative(unsigned i, double x) const
  {
    ld sum = 0;
    for (unsigned m = 0; m <= degree_; ++m)
      {
        if (m == i)
          continue;
        ld prod = 1;
        for (unsigned j = 0; j <= degree_; ++j)
          if (j != i && j != m)
            prod *= ld(x) - support_points_ld_[j];
        sum += prod;
      }
    return double(sum / denominators_[i]);
  }

  Matrix1D LagrangeBasis1D::values(const std::vector<double> &points) const
  {
    Matrix1D m(points.size(), n_dofs());
    for (unsigned q = 0; q < points.size(); ++q)
      for (unsigned i = 0; i < n_dofs(); ++i)
        m(q, i) = value(i, points[q]);
    return m;
  }

  Matrix1D LagrangeBasis1D::derivatives(const std::vector<double> &points) const
  {
    Matrix1D m(points.size(), n_dofs());
    for (unsigned q = 0; q < points.size(); ++q)
      for (unsigned i = 0; i < n_dofs(); ++i)
        m(q, i) = derivative(i, points[q]);
    return m;
  }

  ElementMatrices1D element_matrices_1d(unsigned degree)
  {
    LagrangeBasis1D   basis(degree);
    const unsigned    n    = degree + 1;
    const auto        quad = gauss_quadrature(n + 1); // exact for degree 2n+1 >= 2k
    const Matrix1D    v    = basis.values(quad.points);
    const Matrix1D    d    = basis.derivatives(quad.points);
    ElementMatrices1D e;
    e.degree      = degree;
    e.mass        = Matrix1D(n, n);
    e.stiffness   = Matrix1D(n, n);
    e.lumped_mass = Matrix1D(n, n);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < n; ++j)
        {
          ld m = 0, a = 0;
          for (unsigned q = 0; q < quad.size(); ++q)
            {
              m += ld(quad.weights[q]) * v(q, i) * v(q, j);
              a += ld(quad.weights[q]) * d(q, i) * d(q, j);
            }
          e.mass(i, j)      = double(m);
          e.stiffness(i, j) = double(a);
        }
    const auto gll = gauss_lobatto_quadrature(n);
    for (unsigned i = 0; i < n; ++i)
      e.lumped_mass(i, i) = gll.weights[i];
    return e;
  }

  Matrix1D lagrange_derivative_matrix(const std::vector<double> &x)
  {
    const std::size_t n = x.size();
    std::vector<ld>   w(n, 1);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t m = 0; m < n; ++m)
        if (m != j)
          w[j] /= ld(x[j]) - ld(x[m]);
    Matrix1D D(static_cast<unsigned>(n), static_cast<unsigned>(n));
    for (std::size_t i = 0; i < n; ++i)
      {
        ld diag = 0;
        for (std::size_t j = 0; j < n; ++j)
          if (j != i)
            {
              const ld v                  = (w[j] / w[i]) / (ld(x[i]) - ld(x[j]));
              D(unsigned(i), unsigned(j)) = double(v);
              diag -= v;
            }
        D(unsigned(i), unsigned(i)) = double(diag);
      }
    return D;
  }

  Matrix1D prolongation_matrix_1d(unsigned degree)
  {
    LagrangeBasis1D basis(degree);
    const unsigned  k = degree;
    Matrix1D        p(2 * k + 1, k + 1);
    const auto     &s = basis.support_points();
    for (unsigned r = 0; r <= 2 * k; ++r)
      {
        const unsigned child = r / k == 2 ? 1 : r / k;
        const unsigned local = r - child * k;
        const double   x     = 0.5 * (child + s[local]);
        for (unsigned j = 0; j <= k; ++j)
          {
            double v = basis.value(j, x);
            if (std::fabs(v) < 1e-15)
              v = 0.0;
            if (std::fabs(v - 1.0) < 1e-15)
              v = 1.0;
            p(r, j) = v;
          }
      }
    return p;
  }
} // namespace tpmg
