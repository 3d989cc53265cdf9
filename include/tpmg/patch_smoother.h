// The multiplicative vertex-patch Schwarz smoother (docs/method.md, "Vertex-patch smoother")
// with the kernel variants of docs/kernels.md; resolve_smoother (smoother_configuration.h)
// decides which kernels run.
#pragma once

#include <tpmg/constant_coefficients.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/options.h>
#include <tpmg/patch_data.h>
#include <tpmg/robin_faces.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/vector.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tpmg
{
  struct PatchColorGeometry;
  template <typename Number>
  struct ColourLaunch;

  /// What a level's patch problems are and the order of their colours: set by the multigrid
  /// from the level operator and the conventions, beside the user's kernel choices.
  struct PatchProblem
  {
    bool       lumped_mass = false; ///< GLL-lumped 1D masses (those of the bp5 operator)
    ColorOrder color_order = ColorOrder::standard;
    /// Constant a and c of −∇·(a ∇u) + c u: the patch problems are a K + c M, with the same
    /// eigenvectors and eigenvalue sums a Σ c_d λ + c Π h_d (a c ≠ 0 not with the tensor_core
    /// kernels, whose products hold no mass term, nor with conflict_free, whose fiber kernels are
    /// not compiled with it; none with Neumann or Robin faces: std::invalid_argument).
    ConstantCoefficients coefficients = {};
  };

  template <int dim, int degree, typename Number>
  class VertexPatchSmoother
  {
  public:
    /// `op` (the level operator) is used by the `global` kernel variant; `robin`: α on the
    /// level's Robin faces (required where it has some: the level operator's).
    VertexPatchSmoother(const CartesianLevel &level, Backend backend, const PatchSmootherSettings &settings,
                        const LinearOperator<Number> *op, const PatchProblem &problem = {},
                        std::shared_ptr<const RobinFaces<Number>> robin = nullptr);

    /// One multiplicative sweep over all colors: x <- S(x, b). With `reverse` the colors
    /// run in the opposite order (post-smoothing of the symmetric V-cycle). With `x_is_zero`
    /// (the caller guarantees x = 0 on entry, as in a V-cycle's pre-smoothing) the first color's
    /// local residuals are b itself: its patches run the local solve alone, without loading x.
    void smooth(Vector<Number> &x, const Vector<Number> &b, bool reverse = false, bool x_is_zero = false) const;

    /// The patches of one color only; `x_is_zero` as in smooth(); `part`: only these patches of
    /// the colour (patch_color_geometry of a part of the centres, src/smoothers/patch_geometry.h),
    /// and none on the Neumann and Robin faces (smooth_boundary_patches), all where null.
    void smooth_color(Vector<Number> &x, const Vector<Number> &b, int color, bool x_is_zero = false,
                      const PatchColorGeometry *part = nullptr) const;
    /// The color's patches on the level's Neumann and Robin faces alone. Their unknowns are not
    /// the color's other patches', and neither reads what the other writes: in either order the
    /// same result.
    void smooth_boundary_patches(Vector<Number> &x, const Vector<Number> &b, int color) const;

    int n_colors() const { return 1 << dim; }
    /// The color processed at position `i` of a forward sweep.
    int color_at(int i) const;

    static constexpr bool supported() { return degree >= 1 && degree <= max_solver_degree(dim); }

    /// The kernels this smoother runs.
    const SmootherConfiguration &configuration() const { return config_; }

  private:
    /// The kernels of one colour, chosen once from the configuration (patch_smoother_impl.h).
    using Launcher = void (*)(const ColourLaunch<Number> &);
    static Launcher colour_launcher(const SmootherConfiguration &config, bool lumped_mass);
    /// The lists and data of the patches on the level's Neumann and Robin faces.
    void set_up_boundary_patches();
    /// The eigenpairs of the directions of those patches (`lists`, by colour) on Robin faces.
    void set_up_robin_patches(const std::array<std::vector<index_t>, 8> &lists);

    CartesianLevel                level_;
    Backend                       backend_;
    PatchSmootherSettings         settings_;
    PatchProblem                  problem_;
    SmootherConfiguration         config_;
    const LinearOperator<Number> *op_;
    Vector<Number>                data1d_, inverse_;
    Vector<Number>                inverse_sums_; ///< fiber kernels: fiber_inverse_eigenvalue_sums
    Vector<double>                mma_matrices_; ///< tensor_core: mma_patch_matrices (src/smoothers/patch_builders.h)
    /// the patches on Neumann and Robin faces by colour (their vertices) and their 1D data
    /// (kernels/smoothers/boundary_patch.h); α on the Robin faces
    std::array<Vector<index_t>, 8>            boundary_patches_;
    Vector<Number>                            boundary_data1d_;
    std::shared_ptr<const RobinFaces<Number>> robin_;
    /// per colour and patch the index of each direction's Robin eigenpairs (-1: none), the pairs
    std::array<Vector<int>, 8> robin_index_;
    Vector<Number>             robin_pairs_;
    mutable Vector<Number>     residual_;
    std::array<double, 3>      coef_;      ///< a c_d, c_d = (1/h_d) Π_{e≠d} h_e
    double                     shift_ = 0; ///< c Π h_d: the reaction term's eigenvalue shift
    PatchData1D                data_;
    Launcher                   launcher_ = nullptr;
  };
} // namespace tpmg
