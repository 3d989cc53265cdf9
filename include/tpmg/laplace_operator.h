// The `cartesian` level operator: matrix-free Laplacian on a uniform Cartesian level.
#pragma once

#include <tpmg/constant_coefficients.h>
#include <tpmg/fe_1d.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/robin_faces.h>
#include <tpmg/vector.h>

#include <memory>

namespace tpmg
{
  /// The Q_k Laplacian of a uniform Cartesian level, applied matrix-free in its Kronecker form
  /// on the level's backend, with the Robin term α ∫_F u v on the level's Robin faces;
  /// Dirichlet boundary rows act as the identity.
  template <int dim, int degree, typename Number>
  class CartesianLaplaceOperator final : public LinearOperator<Number>
  {
  public:
    using value_type = Number;

    CartesianLaplaceOperator() = default;
    /// `robin`: α on the level's Robin faces (required where level.robin_faces is not empty).
    /// `constants`: the operator of −∇·(a ∇u) + c u for numbers a and c (the Laplacian by
    /// default): a scales the stiffness, c adds c M; a Robin face's α ∫_F u v stays as it is (the
    /// natural conditions are on the flux: a ∂u/∂n + α u = h).
    CartesianLaplaceOperator(const CartesianLevel &level, Backend backend,
                             std::shared_ptr<const RobinFaces<Number>> robin     = nullptr,
                             const ConstantCoefficients               &constants = {});

    /// dst = A src (interior rows), dst = src on boundary nodes.
    void vmult(Vector<Number> &dst, const Vector<Number> &src) const override;
    /// r = b - A x: from k = 2 the cell kernel adds -A_K x_K to a copy of b (one copy
    /// instead of zeroing r and a pass r = b - r; docs/performance/operator.md, "Residual in one
    /// call")
    void residual(Vector<Number> &r, const Vector<Number> &b, const Vector<Number> &x) const override;
    /// vmult or residual with the exchange `between` the cells of split.near and split.inner
    /// (LinearOperator::apply_in_two_steps); not for the Q1 stencil between Dirichlet faces.
    bool apply_in_two_steps(Vector<Number> &dst, const Vector<Number> &src, const Vector<Number> *b,
                            const CellSplit &split, const std::function<void()> &between) const override;

    index_t size() const override { return level_.n_dofs(); }
    /// The diagonal from the 1D diagonals (chebyshev_smoother.h, laplace_diagonal, with a and c)
    /// and the Robin term's.
    bool                  diagonal(Vector<Number> &d) const override;
    const CartesianLevel &level() const { return level_; }
    Backend               backend() const { return backend_; }
    /// α on the Robin faces (null without).
    const std::shared_ptr<const RobinFaces<Number>> &robin() const { return robin_; }

  private:
    /// the cell kernel's scatter-add of `sign` A src into dst, then the boundary rows; with
    /// `split`, the near cells, the boundary rows, between(), the inner cells
    void apply_cells(Number *dst, const Number *src, Number sign, const Number *boundary_b,
                     const CellSplit *split = nullptr, const std::function<void()> &between = {}) const;

    CartesianLevel       level_;
    Backend              backend_ = Backend::cpu;
    ElementMatrices1D    matrices_;
    ConstantCoefficients constants_;
    /// a c_d per direction and s = c Π h_d (kronecker_scaling)
    std::array<double, 3>                     coef_{};
    double                                    shift_ = 0;
    std::shared_ptr<const RobinFaces<Number>> robin_;
  };
} // namespace tpmg
