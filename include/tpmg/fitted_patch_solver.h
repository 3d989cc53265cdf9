// The patch solves of the geometry-fitted surrogates (tpmg/fitted_patches.h) on one level: the
// local solver of the vertex-patch Schwarz smoothers on deformed meshes, whose residuals come
// from the level operator itself (docs/method.md, "Fitted patch solves").
#pragma once

#include <tpmg/fitted_patches.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/options.h>
#include <tpmg/robin_faces.h>
#include <tpmg/vector.h>

#include <array>
#include <memory>
#include <vector>

namespace tpmg
{
  struct PatchColorGeometry;
  struct OverlappedColours;

  template <int dim, int k, typename Number>
  class FittedPatchSolver
  {
  public:
    /// `level` deformed by `deformation`; `lumped_mass` with the bp5 operator (GLL-lumped 1D
    /// masses in the surrogate); the surrogates scaled by the patches' mean coefficient, with the
    /// patches' mean reaction coefficient times their mass (fitted_patch_widths). A level with
    /// Neumann or Robin faces has patches on them too (fitted_boundary_patches), with α from
    /// `robin` on its Robin faces (std::invalid_argument where it has Robin faces but no α).
    /// `kernel`: how the interior patches' 1D products run (resolve_fitted_patch_kernel).
    FittedPatchSolver(const CartesianLevel &level, Backend backend, const DeformationSettings &deformation,
                      bool lumped_mass, const Coefficients &coefficients = {},
                      std::shared_ptr<const RobinFaces<Number>> robin  = nullptr,
                      FittedPatchKernel                         kernel = FittedPatchKernel::automatic);

    /// x += Σ_j R_jᵀ Ã_j⁻¹ R_j r over the patches j of one colour (their unknowns do not overlap),
    /// those on the Neumann and Robin faces included unless `interior_only`; with `part` only
    /// those of the colour's interior patches (patch_color_geometry with a CentreBox). `color`
    /// all_colours: every patch in one launch, adding atomically.
    void solve_color(Vector<Number> &x, const Vector<Number> &r, int color, const PatchColorGeometry *part = nullptr,
                     bool interior_only = false) const;
    /// The same on the colour's patches on the Neumann and Robin faces alone (all_colours: all).
    void solve_boundary_color(Vector<Number> &x, const Vector<Number> &r, int color) const;
    /// The patches on the Neumann and Robin faces of every colour (the additive step): on the GPU
    /// in one launch with atomic additions (one launch instead of 2^d: these few patches take a
    /// launch's latency, not its throughput), on the CPU colour by colour (the same sums on any
    /// thread count).
    void solve_boundary_patches(Vector<Number> &x, const Vector<Number> &r) const;
    /// The largest shear of the level's cells (FittedCellData::shear; this rank's cells).
    double shear() const { return shear_; }
    /// The coefficients' largest contrast within a patch (FittedCellData::contrast; this rank's cells).
    double contrast() const { return contrast_; }
    /// Whether the level has patches on Neumann or Robin faces.
    bool has_boundary_patches() const { return boundary_vertices_.size() > 0; }

    /// The kernel of the interior patches (never `automatic`).
    FittedPatchKernel     kernel() const { return kernel_; }
    int                   n_colors() const { return 1 << dim; }
    const CartesianLevel &level() const { return level_; }
    Backend               backend() const { return backend_; }

    /// Bytes on the backend: the ratio table, the per-vertex widths and the boundary patches'
    /// data.
    std::size_t memory_bytes() const;

  private:
    void set_up_boundary_patches(const FittedCellData &cells, bool lumped_mass, const RobinFaces<Number> *robin);

    CartesianLevel    level_;
    Backend           backend_;
    FittedPatchKernel kernel_;
    double            shear_ = 0, contrast_ = 1;
    Vector<Number>    eigenvectors_, eigenvalues_, ratio_index_, left_width_;
    /// FittedBoundaryPatchSolve of the patches [first, last) (a colour's, or all of them)
    void launch_boundary(Vector<Number> &x, const Vector<Number> &r, index_t first, index_t last, bool atomic) const;

    /// the patches on the Neumann and Robin faces, colour after colour (colour c: patches
    /// [boundary_first_[c], boundary_first_[c + 1]); kernels/smoothers/patch_fitted.h,
    /// FittedBoundaryPatchSolve): vertices, per direction the entry of its eigenpairs, the scales;
    /// the eigenpairs of the distinct directions
    std::array<index_t, 9> boundary_first_{};
    Vector<index_t>        boundary_vertices_;
    Vector<int>            boundary_pair_;
    Vector<Number>         boundary_scales_;
    Vector<Number>         boundary_pairs_;
  };

  /// The additive Schwarz preconditioner of the fitted patch solves, z = Σ_j R_jᵀ Ã_j⁻¹ R_j r (all
  /// colours), as an operator: the inner preconditioner of the Chebyshev-accelerated Schwarz
  /// smoother. With a layout, z is exchanged in one ghost layer (what the level operator reads).
  /// With `overlap` (Backend/Overlap exchanges; overlap_exchanges decides for the part) the
  /// exchange runs beside the last colour's patches away from the shared faces, in the same sums
  /// as without. `launch`: the patches colour by colour or all in one launch
  /// (fitted_patches_at_once).
  template <int dim, int k, typename Number>
  class AdditiveSchwarz final : public LinearOperator<Number>
  {
  public:
    AdditiveSchwarz(const FittedPatchSolver<dim, k, Number> &solver, const LinearOperator<Number> &op,
                    ExchangeOverlap   overlap = ExchangeOverlap::never,
                    FittedPatchLaunch launch  = FittedPatchLaunch::by_colour);
    void                                    vmult(Vector<Number> &z, const Vector<Number> &r) const override;
    index_t                                 size() const override { return op_->size(); }
    const std::shared_ptr<const BoxLayout> &layout() const override { return op_->layout(); }
    /// Whether the exchange runs beside the inner patches.
    bool overlapped() const;

  private:
    const FittedPatchSolver<dim, k, Number> *solver_;
    const LinearOperator<Number>            *op_;
    std::shared_ptr<const OverlappedColours> split_;   ///< null: no overlap
    std::vector<int>                         colours_; ///< the launches' colours (or all_colours)
  };
} // namespace tpmg
