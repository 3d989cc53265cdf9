// The level smoothers as the multigrid cycle sees them (Smoother: smooth(x, b)): the Cartesian
// vertex patches with their colour exchanges, the fitted patches (multiplicative or additive in a
// Chebyshev polynomial) and Chebyshev-Jacobi. Included by multigrid_impl.h.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/chebyshev_smoother.h>
#include <tpmg/fitted_patch_solver.h>
#include <tpmg/multigrid.h>
#include <tpmg/patch_smoother.h>

#include <src/smoothers/patch_split.h>

#include <memory>
#include <stdexcept>

namespace tpmg::internal
{
  template <int dim, int k, typename Number>
  class PatchSmootherAdapter final : public Smoother<Number>
  {
  public:
    /// `layout`: the level's, where it is distributed (the ghosts are exchanged after every
    /// colour, as the next colour reads them), else null. The patches read the ghost cells
    /// next to the rank's box, of which a colour's exchange moves what other ranks' patches
    /// wrote; the `global` kernel's residual of the stored part reads all of them. `overlap`:
    /// whether the colour's patches near the shared faces run first, then its exchange beside
    /// the others (split_patch_centres, overlap_exchanges; their geometries made here, once).
    PatchSmootherAdapter(const CartesianLevel &level, Backend b, const PatchSmootherSettings &s,
                         const PatchProblem &problem, const LinearOperator<Number> *op,
                         std::shared_ptr<const RobinFaces<Number>> robin, bool symmetric, const BoxLayout *layout,
                         ExchangeOverlap overlap)
      : smoother_(level, b, s, op, problem, std::move(robin)), symmetric_(symmetric), layout_(layout),
        layers_(s.kernel == SmootherKernel::global ? GhostLayers::all : GhostLayers::one)
    {
      if (layout_ && layers_ == GhostLayers::one)
        split_ = overlapped_colours(level, smoother_.n_colors(), b, overlap);
    }
    const SmootherConfiguration *configuration() const override { return &smoother_.configuration(); }
    void smooth(Vector<Number> &x, const Vector<Number> &b, bool post, bool x_is_zero) const override
    {
      const bool reverse = post && symmetric_;
      if (!layout_)
        {
          smoother_.smooth(x, b, reverse, x_is_zero);
          return;
        }
      if (layers_ == GhostLayers::all && !x_is_zero) // x may come up to date in one layer only
        layout_->update_ghosts(x, GhostLayers::all);
      const int n = smoother_.n_colors();
      for (int i = 0; i < n; ++i)
        {
          const int  colour = smoother_.color_at(reverse ? n - 1 - i : i);
          const bool zero   = x_is_zero && i == 0;
          if (split_.active())
            {
              for (const PatchColorGeometry &near : split_.near[std::size_t(colour)])
                smoother_.smooth_color(x, b, colour, zero, &near);
              smoother_.smooth_boundary_patches(x, b, colour); // (before the exchange, which sends them)
              layout_->start_update_ghosts_after_colour(x, colour);
              smoother_.smooth_color(x, b, colour, zero, &split_.inner[std::size_t(colour)]);
              layout_->finish_ghost_update();
              continue;
            }
          smoother_.smooth_color(x, b, colour, zero);
          if (layers_ == GhostLayers::one) // only what the colour's patches of other ranks wrote
            layout_->update_ghosts_after_colour(x, colour);
          else
            layout_->update_ghosts(x, layers_);
        }
    }

  private:
    VertexPatchSmoother<dim, k, Number> smoother_;
    bool                                symmetric_;
    const BoxLayout                    *layout_;
    GhostLayers                         layers_;
    OverlappedColours                   split_; ///< where the exchanges overlap the inner patches
  };

  /// The vertex-patch Schwarz smoother of the fitted patch solves (tpmg/fitted_patch_solver.h):
  /// multiplicative, the level operator's residual before each colour, or the additive
  /// preconditioner inside a Chebyshev polynomial. `op` exchanges the ghosts where the level is
  /// distributed; a colour's patches read the residual one cell layer beyond the rank's box.
  template <int dim, int k, typename Number>
  class FittedSchwarzAdapter final : public Smoother<Number>
  {
  public:
    FittedSchwarzAdapter(const CartesianLevel &level, Backend b, const MultigridSettings &s,
                         const LinearOperator<Number> *op, const BoxLayout *layout,
                         std::shared_ptr<const RobinFaces<Number>> robin)
      : solver_(level, b, s.deformation, s.level_operator == LevelOperatorType::bp5, s.coefficients, std::move(robin),
                s.fitted_kernel),
        op_(op), symmetric_(s.symmetric), layout_(layout), smoothing_(s.fitted_smoothing)
    {
      if (smoothing_ == FittedSmoothing::chebyshev_additive)
        {
          // (the whole level's largest shear and contrast, so that every rank count runs the same
          // polynomial; a level that is not split, a periodic one on rank 0 among them, has all its
          // cells here)
          const bool split = layout && layout->split();
          shear_           = split ? layout->comm().max(solver_.shear()) : solver_.shear();
          contrast_        = split ? layout->comm().max(solver_.contrast()) : solver_.contrast();
          polynomial_      = fitted_chebyshev_polynomial(s.chebyshev, shear_, contrast_);
          additive_  = std::make_unique<AdditiveSchwarz<dim, k, Number>>(solver_, *op, s.overlap, s.fitted_launch);
          chebyshev_ = std::make_unique<ChebyshevSmoother<Number>>(*op, *additive_, polynomial_, b);
        }
    }
    const ChebyshevSettings *polynomial() const override { return chebyshev_ ? &polynomial_ : nullptr; }
    double                   shear() const override { return chebyshev_ ? shear_ : -1.0; }
    double                   contrast() const override { return chebyshev_ ? contrast_ : -1.0; }
    double eigenvalue_estimate_seconds() const override { return chebyshev_ ? chebyshev_->estimate_seconds() : 0.0; }
    void   smooth(Vector<Number> &x, const Vector<Number> &b, bool post, bool x_is_zero) const override
    {
      if (chebyshev_)
        {
          chebyshev_->smooth(x, b);
          return;
        }
      const bool reverse = post && symmetric_;
      const int  n       = solver_.n_colors();
      for (int i = 0; i < n; ++i)
        {
          const int c = reverse ? n - 1 - i : i;
          if (i == 0 && x_is_zero)
            solver_.solve_color(x, b, c); // the residual is b
          else
            {
              op_->residual(r_, b, x);
              solver_.solve_color(x, r_, c);
            }
          if (layout_)
            layout_->update_ghosts(x, GhostLayers::one);
        }
    }

  private:
    FittedPatchSolver<dim, k, Number>                solver_;
    const LinearOperator<Number>                    *op_;
    bool                                             symmetric_;
    const BoxLayout                                 *layout_;
    FittedSmoothing                                  smoothing_;
    double                                           shear_ = 0, contrast_ = 1;
    ChebyshevSettings                                polynomial_;
    std::unique_ptr<AdditiveSchwarz<dim, k, Number>> additive_;
    std::unique_ptr<ChebyshevSmoother<Number>>       chebyshev_;
    mutable Vector<Number>                           r_;
  };

  /// Chebyshev with the level operator's own diagonal (the Cartesian one from 1D diagonals, the
  /// bake-off operators' matrix-free on any mesh).
  template <typename Number>
  class ChebyshevAdapter final : public Smoother<Number>
  {
  public:
    ChebyshevAdapter(Backend b, const ChebyshevSettings &s, const LinearOperator<Number> *op)
      : smoother_(*op, diagonal(*op), s, b)
    {}
    void   smooth(Vector<Number> &x, const Vector<Number> &b, bool, bool) const override { smoother_.smooth(x, b); }
    double eigenvalue_estimate_seconds() const override { return smoother_.estimate_seconds(); }

  private:
    static Vector<Number> diagonal(const LinearOperator<Number> &op)
    {
      Vector<Number> d;
      if (!op.diagonal(d))
        throw std::invalid_argument("the Chebyshev-Jacobi smoother needs the level operator's diagonal");
      return d;
    }
    ChebyshevSmoother<Number> smoother_;
  };

  /// The smoother of one level as the settings choose it: the fitted patches, the Cartesian
  /// vertex patches or Chebyshev-Jacobi. `op` the level operator (with its exchange where the
  /// level is distributed), `local_op` the stored part's alone, `layout` the level's where it is
  /// distributed (else null).
  template <int dim, int k, typename Number>
  std::unique_ptr<Smoother<Number>>
  make_level_smoother(const MultigridSettings &settings, Backend backend, const CartesianLevel &mesh,
                      const LinearOperator<Number> &op, const LinearOperator<Number> &local_op,
                      std::shared_ptr<const RobinFaces<Number>> robin, const BoxLayout *layout)
  {
    if (settings.fitted_patches() || settings.smoother == SmootherType::vertex_patch)
      {
        if constexpr (VertexPatchSmoother<dim, k, Number>::supported())
          {
            if (settings.fitted_patches())
              return std::make_unique<FittedSchwarzAdapter<dim, k, Number>>(mesh, backend, settings, &op, layout,
                                                                            std::move(robin));
            const PatchProblem problem{settings.level_operator == LevelOperatorType::bp5, settings.color_order,
                                       settings.coefficients.constants().value_or(ConstantCoefficients{})};
            return std::make_unique<PatchSmootherAdapter<dim, k, Number>>(mesh, backend, settings.patch, problem,
                                                                          &local_op, std::move(robin),
                                                                          settings.symmetric, layout, settings.overlap);
          }
        else
          throw std::invalid_argument("the vertex-patch smoother supports degrees up to 8 in 3D");
      }
    return std::make_unique<ChebyshevAdapter<Number>>(backend, settings.chebyshev, &op);
  }
} // namespace tpmg::internal
