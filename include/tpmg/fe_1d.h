// 1D finite element data on the reference interval [0,1] (docs/method.md, "Discretization").
#pragma once

#include <vector>

namespace tpmg
{
  /// Quadrature rule on [0,1].
  struct Quadrature1D
  {
    std::vector<double> points;
    std::vector<double> weights;
    std::size_t         size() const { return points.size(); }
  };

  /// n-point Gauss–Legendre rule on [0,1] (exact for degree 2n-1).
  Quadrature1D gauss_quadrature(unsigned n);

  /// n-point Gauss–Lobatto rule on [0,1] (n >= 2, exact for degree 2n-3).
  Quadrature1D gauss_lobatto_quadrature(unsigned n);

  /// Dense row-major matrix used for the small 1D operators.
  struct Matrix1D
  {
    unsigned            rows = 0, cols = 0;
    std::vector<double> data;
    Matrix1D() = default;
    Matrix1D(unsigned r, unsigned c) : rows(r), cols(c), data(std::size_t(r) * c, 0.0) {}
    double &operator()(unsigned i, unsigned j) { return data[std::size_t(i) * cols + j]; }
    double  operator()(unsigned i, unsigned j) const { return data[std::size_t(i) * cols + j]; }
  };

  /// Lagrange basis of degree k with support points at the k+1 Gauss–Lobatto points.
  class LagrangeBasis1D
  {
  public:
    explicit LagrangeBasis1D(unsigned degree);

    unsigned                   degree() const { return degree_; }
    unsigned                   n_dofs() const { return degree_ + 1; }
    const std::vector<double> &support_points() const { return support_points_; }

    /// phi_i(x) and phi_i'(x), evaluated in long double.
    double value(unsigned i, double x) const;
    double derivative(unsigned i, double x) const;

    /// values(q, i) = phi_i(points[q]), derivatives(q, i) = phi_i'(points[q]).
    Matrix1D values(const std::vector<double> &points) const;
    Matrix1D derivatives(const std::vector<double> &points) const;

  private:
    unsigned                 degree_;
    std::vector<double>      support_points_;
    std::vector<long double> support_points_ld_;
    std::vector<long double> denominators_;
  };

  /// The 1D element matrices of one degree on the unit interval; for a cell of width h,
  /// mass scales with h and stiffness with 1/h.
  struct ElementMatrices1D
  {
    unsigned degree = 0;
    Matrix1D mass;        ///< M_ij = ∫ φ_i φ_j (exact, Gauss with k+1 points)
    Matrix1D lumped_mass; ///< diagonal GLL-quadrature mass (spectral elements, bp5)
    Matrix1D stiffness;   ///< A_ij = ∫ φ_i' φ_j'
  };

  ElementMatrices1D element_matrices_1d(unsigned degree);

  /// Derivative matrix of the Lagrange basis on the given (distinct) points, evaluated at
  /// those points: D(i, j) = ℓ_j'(x_i) (collocation derivative; barycentric formula).
  Matrix1D lagrange_derivative_matrix(const std::vector<double> &points);

  /// Prolongation from one coarse cell to its two children in 1D: a (2k+1) x (k+1) matrix
  /// whose row r is the coarse basis evaluated at fine node r of the two children (fine node
  /// r of the child c = r / k at local position r % k). Exact zeros and ones are snapped.
  Matrix1D prolongation_matrix_1d(unsigned degree);
} // namespace tpmg
