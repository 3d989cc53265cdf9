// The patch solves of the geometry-fitted surrogates (tpmg/fitted_patches.h) on one level: the
// local solver of the vertex-patch Schwarz smoothers on deformed meshes, whose residuals come
// from the level operator itself (docs/method.md, "Fitted patch solves").
#pragma once

#include <tpmg/fitted_patches.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

namespace tpmg
{
  template <int dim, int k, typename Number>
  class FittedPatchSolver
  {
  public:
    /// `level` deformed by `deformation`; `lumped_mass` with the bp5 operator (GLL-lumped 1D
    /// masses in the surrogate).
    FittedPatchSolver(const CartesianLevel &level, Backend backend, const DeformationSettings &deformation,
                      bool lumped_mass);

    /// x += Σ_j R_jᵀ Ã_j⁻¹ R_j r over the patches j of one colour (their interiors do not overlap).
    void solve_color(Vector<Number> &x, const Vector<Number> &r, int color) const;

    int n_colors() const { return 1 << dim; }

    /// Bytes on the backend: the ratio table and the per-vertex widths.
    std::size_t memory_bytes() const;

  private:
    CartesianLevel level_;
    Backend        backend_;
    Vector<Number> eigenvectors_, eigenvalues_, ratio_index_, left_width_;
  };

  /// The additive Schwarz preconditioner of the fitted patch solves, z = Σ_j R_jᵀ Ã_j⁻¹ R_j r (all
  /// colours), as an operator: the inner preconditioner of the Chebyshev-accelerated Schwarz
  /// smoother. With a layout, z is exchanged in one ghost layer (what the level operator reads).
  template <int dim, int k, typename Number>
  class AdditiveSchwarz final : public LinearOperator<Number>
  {
  public:
    AdditiveSchwarz(const FittedPatchSolver<dim, k, Number> &solver, const LinearOperator<Number> &op)
      : solver_(&solver), op_(&op)
    {}
    void                                    vmult(Vector<Number> &z, const Vector<Number> &r) const override;
    index_t                                 size() const override { return op_->size(); }
    const std::shared_ptr<const BoxLayout> &layout() const override { return op_->layout(); }

  private:
    const FittedPatchSolver<dim, k, Number> *solver_;
    const LinearOperator<Number>            *op_;
  };
} // namespace tpmg
