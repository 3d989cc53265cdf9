// Multiplicative vertex-patch Schwarz smoother (DESIGN.md §4) with the kernel variants of
// DESIGN.md §5.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <string>
#include <vector>

namespace tpmg
{
  enum class SmootherKernel
  {
    global,
    separate,
    fused
  };
  enum class KernelOptimization
  {
    basic,
    linear_indexing,
    conflict_free,
    boundary,
    tensor_core ///< 3D fused: the 1D products as 8×8×4 double tile products (DMMA), patch_smoother_mma.h
  };
  enum class LocalSolver
  {
    fast_diagonalization,
    inverse_matrix
  };
  /// Thread structure of the basic kernels (the paper's Fig. 5): one thread per column of
  /// 2k+1 nodes along the last direction, or one thread per DoF (3D: a (2k+1)^3 block per
  /// patch, z strided from k = 5 on, where it exceeds 1024 threads). `automatic` picks the
  /// faster one measured on the H100: per DoF in 2D for k >= 4 and in 3D double for k >= 7,
  /// column otherwise. The optimized kernels hold their columns in registers, so they have
  /// the column structure only.
  enum class ThreadStructure
  {
    automatic,
    column,
    dof
  };

  /// Order of the 2^d colors: `standard` c = 0, 1, ...; `odd_first` (the authors' code)
  /// starts with the color of odd vertex parity in every direction.
  enum class ColorOrder
  {
    standard,
    odd_first
  };

  struct PatchSmootherSettings
  {
    SmootherKernel     kernel       = SmootherKernel::fused;
    KernelOptimization optimization = KernelOptimization::basic;
    LocalSolver        local_solver = LocalSolver::fast_diagonalization;
    ColorOrder         color_order  = ColorOrder::standard;
    ThreadStructure    thread_structure = ThreadStructure::automatic;
    bool               lumped_mass  = false; ///< GLL-lumped 1D masses (with the bp5 operator)
    /// Patches per thread block of the optimized kernels: 0 = automatic (by degree and
    /// precision), else a power of two.
    int patches_per_block = 0;
  };

  /// Host-side 1D data of the patch problems: patch matrices ((2k+1)², reference width)
  /// and the generalized eigenpairs of their interior blocks, A S = M S Λ, Sᵀ M S = I.
  struct PatchData1D
  {
    Matrix1D            mass, stiffness, eigenvectors;
    std::vector<double> eigenvalues;
  };
  PatchData1D patch_data_1d(int degree, bool lumped_mass);

  /// Dense local matrix A_j (interior rows and columns of a patch, lexicographic).
  std::vector<double> patch_interior_matrix(int dim, int degree, const std::array<double, 3> &coef,
                                            bool lumped_mass);

  template <int dim, int degree, typename Number>
  class VertexPatchSmoother
  {
  public:
    /// `op` (the level operator) is used by the `global` kernel variant.
    VertexPatchSmoother(const CartesianLevel &level, Backend backend, const PatchSmootherSettings &settings,
                        const LinearOperator<Number> *op);

    /// One multiplicative sweep over all colors: x <- S(x, b). With `reverse` the colors
    /// run in the opposite order (post-smoothing of the symmetric V-cycle). With `x_is_zero`
    /// (the caller guarantees x = 0 on entry, as in a V-cycle's pre-smoothing) the first color's
    /// local residuals are b itself: its patches run the local solve alone, without loading x.
    void smooth(Vector<Number> &x, const Vector<Number> &b, bool reverse = false, bool x_is_zero = false) const;

    /// The patches of one color only (for tests); `x_is_zero` as in smooth().
    void smooth_color(Vector<Number> &x, const Vector<Number> &b, int color, bool x_is_zero = false) const;

    int n_colors() const { return 1 << dim; }
    /// The color processed at position `i` of a forward sweep.
    int color_at(int i) const;

    static constexpr bool supported() { return dim == 2 ? degree <= 10 : degree <= 8; }

    /// Patches per block the optimized kernels use with these settings.
    int patches_per_block() const { return patches_per_block_; }

    /// Whether the basic kernels run one thread per DoF (else one per column).
    bool per_dof() const { return per_dof_; }

  private:
    CartesianLevel                level_;
    Backend                       backend_;
    PatchSmootherSettings         settings_;
    const LinearOperator<Number> *op_;
    Vector<Number>                data1d_, inverse_;
    Vector<Number>                inverse_sums_; ///< fiber kernels: fiber_inverse_eigenvalue_sums
    Vector<double>                mma_matrices_; ///< tensor_core: MmaPatchKernel::matrices()
    mutable Vector<Number>        residual_;
    std::array<double, 3>         coef_;
    PatchData1D                   data_;
    int                           patches_per_block_ = 1;
    bool                          per_dof_           = false;
  };

  /// The thread structure `automatic` resolves to per DoF (true) or column (false).
  bool patch_kernel_per_dof(ThreadStructure s, int dim, int degree, KernelOptimization opt, bool double_precision);
} // namespace tpmg
