// The vertex-patch smoother's settings resolved to kernels (tpmg/smoother_configuration.h).
#include <tpmg/smoother_configuration.h>

#include <kernels/smoothers/fiber_policy.h>

#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace
  {
    bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

    /// The fused fiber kernel of these settings (the others launched share its P limits).
    FiberKernelKey fiber_key(const PatchSmootherSettings &s, int dim, int degree, Precision precision)
    {
      const bool fused_li = s.kernel == SmootherKernel::fused && s.optimization == KernelOptimization::linear_indexing;
      // the separate and global kernels, and the padded optimizations, take the padded
      // kernel's limits and rule
      return {dim, degree, precision == Precision::fp32 ? 4 : 8, PatchKernelKind::fused,
              fused_li ? KernelOptimization::linear_indexing : KernelOptimization::conflict_free};
    }
  } // namespace

  KernelOptimization chosen_optimization(const PatchSmootherSettings &s, Backend backend, int dim, int degree,
                                         Precision precision)
  {
    using O = KernelOptimization;
    if (s.optimization != O::automatic)
      return s.optimization;
    // the dense inverse and one thread per DoF exist in the basic kernels only
    if (s.local_solver == LocalSolver::inverse_matrix || s.thread_structure == ThreadStructure::dof)
      return O::basic;
    const bool tile_or_reduced = dim == 3 && s.kernel != SmootherKernel::global &&
                                 (degree == 1 || (degree == 2 && s.kernel == SmootherKernel::separate));
    (void)precision;                                         // neither table depends on it
    if (backend == Backend::cpu && s.patches_per_block == 0) // (patches per block ask for the optimized kernels)
      // the CPU runner (tpmg_bench --cpu, 3D fused, 3e5 DoFs, 2 cores): the basic kernels are the
      // fastest or within 0.6x of it at k = 2..8, the tile kernel wins k = 1 (docs/performance/
      // smoother.md, "Automatic choice")
      return dim == 3 && degree == 1 && s.kernel != SmootherKernel::global ? O::reduced_residual : O::basic;
    // the H100, every kernel variant and optimization in one run (benchmarks/results/h100/
    // smoother/smoother3d.csv, smoother2d.csv): linear_indexing everywhere but 3D k = 1 (the tile
    // kernel, fused and separate) and 3D k = 2 separate, where boundary is fastest
    return tile_or_reduced ? O::reduced_residual : O::linear_indexing;
  }

  std::optional<SmootherSettingsError> check_smoother_settings(const PatchSmootherSettings &given, int dim, int degree,
                                                               Precision precision, Backend backend)
  {
    using O                 = KernelOptimization;
    PatchSmootherSettings s = given;
    s.optimization          = chosen_optimization(given, backend, dim, degree, precision);
    const bool optimized    = s.optimization != O::basic;
    auto       error        = [](SmootherSetting what, std::string message) {
      return std::optional<SmootherSettingsError>(SmootherSettingsError{what, std::move(message)});
    };
    if (s.optimization == O::reduced_residual && s.kernel == SmootherKernel::global)
      return error(SmootherSetting::optimization, "reduced_residual (the reduced local residual) applies to the "
                                                  "separate and fused kernels, not to global");
    if (s.optimization == O::tensor_core && (dim != 3 || s.kernel != SmootherKernel::fused))
      return error(SmootherSetting::optimization, "tensor_core exists for the fused kernel in 3D");
    if (s.optimization == O::tensor_core && s.patches_per_block > 1)
      return error(SmootherSetting::patches_per_block, "the tensor_core kernel runs one patch per block");
    if (optimized && s.local_solver == LocalSolver::inverse_matrix)
      return error(SmootherSetting::local_solver,
                   "the inverse_matrix local solver exists with Kernel optimization = basic only");
    if (s.patches_per_block != 0 && !power_of_two(s.patches_per_block))
      return error(SmootherSetting::patches_per_block, "patches per block must be 0 (automatic) or a power of two");
    if (s.patches_per_block != 0 && !optimized)
      return error(SmootherSetting::patches_per_block, "the basic kernels choose their patches per block themselves; "
                                                       "set it with the optimized kernels only");
    if (s.thread_structure == ThreadStructure::dof && optimized)
      return error(SmootherSetting::thread_structure, "one thread per DoF exists with Kernel optimization = basic "
                                                      "only (the optimized kernels keep a column per thread in "
                                                      "registers)");
    if (optimized && s.patches_per_block > 0)
      {
        const int max_P = fiber_policy(fiber_key(s, dim, degree, precision)).max_patches_per_block;
        if (s.patches_per_block > max_P)
          return error(SmootherSetting::patches_per_block, "patches per block " + std::to_string(s.patches_per_block) +
                                                             " exceeds the maximum " + std::to_string(max_P) +
                                                             " for this degree");
      }
    return std::nullopt;
  }

  SmootherConfiguration resolve_smoother(const PatchSmootherSettings &given, int dim, int degree, Precision precision,
                                         Backend backend)
  {
    if (const auto e = check_smoother_settings(given, dim, degree, precision, backend))
      throw std::invalid_argument(e->message);
    using O = KernelOptimization;
    SmootherConfiguration c;
    c.automatic                    = given.optimization == O::automatic;
    c.settings                     = given;
    c.settings.optimization        = chosen_optimization(given, backend, dim, degree, precision);
    const PatchSmootherSettings &s = c.settings;
    if (s.optimization == O::basic)
      {
        c.family = PatchKernelFamily::basic;
        // automatic: the faster thread structure (docs/performance/smoother.md, "Thread
        // structure"): per DoF in 2D from k = 4 and in 3D double from k = 7, else per column
        c.per_dof = s.thread_structure == ThreadStructure::automatic
                      ? (dim == 2 ? degree >= 4 : precision == Precision::fp64 && degree >= 7)
                      : s.thread_structure == ThreadStructure::dof;
        return c;
      }
    // k = 1 has one interior DoF per patch: the tile kernel, whose patches share their loads
    // (also from x = 0; docs/performance/smoother.md, "Tile kernel (k = 1)")
    c.family                    = degree == 1 && s.kernel == SmootherKernel::fused ? PatchKernelFamily::tile
                                  : s.optimization == O::tensor_core               ? PatchKernelFamily::tensor_core
                                                                                   : PatchKernelFamily::fiber;
    const FiberKernelKey key    = fiber_key(s, dim, degree, precision);
    const FiberPolicy    policy = fiber_policy(key);
    c.max_patches_per_block     = policy.max_patches_per_block;
    c.patches_per_block         = s.patches_per_block > 0            ? s.patches_per_block
                                  : s.optimization == O::tensor_core ? 1
                                                                     : policy.automatic_patches_per_block(key);
    if (c.family == PatchKernelFamily::fiber && s.kernel == SmootherKernel::fused)
      {
        const FiberPolicy fused = fiber_policy({dim, degree, key.number_bytes, PatchKernelKind::fused, s.optimization});
        c.in_place              = fused.in_place;
        c.resident_blocks       = fused.resident_blocks;
      }
    return c;
  }

  std::string SmootherConfiguration::optimization_name() const
  {
    std::string n = to_string(settings.optimization);
    if (family == PatchKernelFamily::basic)
      n += per_dof ? ", thread per DoF" : ", thread per column";
    if (automatic)
      n += " (automatic)";
    return n;
  }

  std::string SmootherConfiguration::description() const
  {
    switch (family)
      {
        case PatchKernelFamily::basic:
          return std::string("basic kernels, one thread per ") + (per_dof ? "DoF" : "column");
        case PatchKernelFamily::tile:
          return "tile kernel (k = 1)";
        case PatchKernelFamily::tensor_core:
          return "tensor-core kernel, one patch per block";
        case PatchKernelFamily::fiber:
          break;
      }
    std::string d = "fiber kernels, " + std::to_string(patches_per_block) + " patch" +
                    (patches_per_block == 1 ? "" : "es") + " per block";
    if (in_place)
      d += ", in place";
    if (resident_blocks > 0)
      d += ", " + std::to_string(resident_blocks) + " resident blocks";
    return d;
  }

  std::string fitted_patch_kernel_problem(FittedPatchKernel kernel, int degree)
  {
    if ((kernel == FittedPatchKernel::tensor_fp64 || kernel == FittedPatchKernel::tensor_tf32) &&
        degree > fitted_tensor_max_degree)
      return std::string(to_string(kernel)) + " runs degrees up to " + std::to_string(fitted_tensor_max_degree) +
             " (2k - 1 patch nodes per direction in one 16-row tile), not " + std::to_string(degree) +
             "; choose scalar or automatic";
    return "";
  }

  FittedPatchKernel resolve_fitted_patch_kernel(FittedPatchKernel kernel, Backend backend, int dim, int degree,
                                                Precision precision)
  {
    if (kernel != FittedPatchKernel::automatic)
      return kernel;
    // Measured (H200, float, Kershaw level 3, docs/performance/solve.md "Deformed meshes"): the
    // FP64 tile products against the scalar kernel -4 % of the solve at k = 4, +5 % at k = 5,
    // -5 % at k = 6, -22 % at k = 7, -33 % at k = 8, +41 % at k = 3 (five of the sixteen rows of
    // a tile used); TF32 1-2 % faster than FP64 but no longer exact. Not measured in 2D or
    // double: the scalar kernel there. The CPU runner computes a tile's entries as dot products.
    const bool measured_faster = degree == 4 || degree >= 6;
    return backend == Backend::cuda && dim == 3 && precision == Precision::fp32 && measured_faster &&
               degree <= fitted_tensor_max_degree
             ? FittedPatchKernel::tensor_fp64
             : FittedPatchKernel::scalar;
  }
} // namespace tpmg
