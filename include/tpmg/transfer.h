// Prolongation (interpolation) and restriction (its transpose) between consecutive levels.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

namespace tpmg
{
  /// The grid transfer between a level and the next finer one (twice the cells per direction).
  template <int dim, int degree, typename Number>
  class Transfer
  {
  public:
    Transfer() = default;
    Transfer(const CartesianLevel &coarse, const CartesianLevel &fine, Backend backend);

    /// fine += P coarse
    void prolongate_add(Vector<Number> &fine, const Vector<Number> &coarse) const;
    /// coarse = Pᵀ fine (entries of coarse on Dirichlet faces are zero)
    void restrict_to(Vector<Number> &coarse, const Vector<Number> &fine) const;

  private:
    /// run(part, natural) with the kernel variant for the levels (std::integral_constants).
    template <class Run>
    void dispatch_transfer(Run &&run) const;

    CartesianLevel coarse_, fine_;
    Backend        backend_ = Backend::cpu;
    Matrix1D       p1d_;
  };
} // namespace tpmg
