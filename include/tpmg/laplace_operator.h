// The `cartesian` level operator: matrix-free Laplacian on a uniform Cartesian level.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

namespace tpmg
{
  template <int dim, int degree, typename Number>
  class CartesianLaplaceOperator final : public LinearOperator<Number>
  {
  public:
    using value_type = Number;

    CartesianLaplaceOperator() = default;
    CartesianLaplaceOperator(const CartesianLevel &level, Backend backend);

    /// dst = A src (interior rows), dst = src on boundary nodes.
    void vmult(Vector<Number> &dst, const Vector<Number> &src) const override;

    index_t               size() const override { return level_.n_dofs(); }
    const CartesianLevel &level() const { return level_; }
    Backend               backend() const { return backend_; }

    /// Scaling of the direction-d term: (1/h_d) Π_{e≠d} h_e.
    static std::array<double, 3> direction_coefficients(const CartesianLevel &level);

  private:
    CartesianLevel    level_;
    Backend           backend_ = Backend::cpu;
    ElementMatrices1D matrices_;
  };
} // namespace tpmg
