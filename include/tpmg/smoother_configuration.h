// The vertex-patch smoother's settings and what they resolve to on a level: which kernels run
// and how they are launched. One function, resolve_smoother, turns the user's choices into the
// kernel configuration; the smoother, the report, the parameter checks and tpmg_bench all use
// it, so each rule (the k = 1 tile kernel, the thread structure, the patches per block) lives
// in one place.
#pragma once

#include <tpmg/options.h>

#include <optional>
#include <string>

namespace tpmg
{
  /// The user's choices of the vertex-patch smoother's kernels. What follows from the rest of
  /// the problem (the patch masses, the colour order) is PatchProblem (tpmg/patch_smoother.h).
  struct PatchSmootherSettings
  {
    SmootherKernel     kernel           = SmootherKernel::fused;
    KernelOptimization optimization     = KernelOptimization::automatic;
    LocalSolver        local_solver     = LocalSolver::fast_diagonalization;
    ThreadStructure    thread_structure = ThreadStructure::automatic;
    /// Patches per thread block of the optimized kernels: 0 = automatic, else a power of two.
    int patches_per_block = 0;
  };

  /// The kernels a smoothing step runs (docs/kernels.md).
  enum class PatchKernelFamily
  {
    basic,      ///< KernelOptimization::basic: PatchKernel (kernels/smoothers/patch_basic.h)
    fiber,      ///< the other optimizations: FiberPatchKernel (patch_fiber.h)
    tile,       ///< k = 1, fused, optimized: PatchTileKernel, whose patches share their loads
    tensor_core ///< 3D fused tensor_core: MmaPatchKernel (patch_mma.h); from x = 0 the fiber solve kernel
  };

  /// What the settings resolve to for one (backend, dimension, degree, precision).
  struct SmootherConfiguration
  {
    PatchSmootherSettings settings;                      ///< as given, with `automatic` replaced by the choice
    bool                  automatic             = false; ///< the optimization was chosen by the library
    PatchKernelFamily     family                = PatchKernelFamily::basic;
    bool                  per_dof               = false; ///< basic kernels: one thread per DoF, else one per column
    int                   patches_per_block     = 0;     ///< fiber and tensor_core kernels (0 for the others)
    int                   max_patches_per_block = 0;     ///< the most the fiber kernels take at this degree
    bool                  in_place              = false; ///< fused fiber kernel: the stages work in place
    int                   resident_blocks       = 0; ///< fused fiber kernel: blocks per SM its launch bounds ask for

    /// The optimization as the report shows it: its name, for the basic kernels the thread
    /// structure ("basic, thread per column"), and "(automatic)" where the library chose it.
    std::string optimization_name() const;
    /// One line on the kernels, e.g. "fiber kernels, 4 patches per block, in place".
    std::string description() const;
  };

  /// The smoother setting a check is about (so that a parameter file error names its line).
  enum class SmootherSetting
  {
    kernel,
    optimization,
    local_solver,
    patches_per_block,
    thread_structure
  };
  struct SmootherSettingsError
  {
    SmootherSetting setting;
    std::string     message;
  };

  /// The optimization `automatic` stands for: the one the benchmarks measured fastest on the
  /// backend's device for this dimension, degree, precision and kernel variant, among those the
  /// other settings allow (the table: src/smoothers/smoother_configuration.cc; its source:
  /// docs/performance/smoother.md, "Automatic choice"). Other values are returned as they are.
  KernelOptimization chosen_optimization(const PatchSmootherSettings &s, Backend backend, int dim, int degree,
                                         Precision precision);

  /// The first thing wrong with `s` on a level of this dimension, degree and precision, if any.
  std::optional<SmootherSettingsError> check_smoother_settings(const PatchSmootherSettings &s, int dim, int degree,
                                                               Precision precision, Backend backend = Backend::cuda);

  /// The configuration `s` resolves to; throws std::invalid_argument with the message of
  /// check_smoother_settings where that finds an error.
  SmootherConfiguration resolve_smoother(const PatchSmootherSettings &s, int dim, int degree, Precision precision,
                                         Backend backend = Backend::cuda);

  /// The highest degree of the tensor-core fitted patch kernels (a direction's 2k - 1 interior
  /// patch nodes in one 16-row tile).
  constexpr int fitted_tensor_max_degree = 8;
  /// What keeps `kernel` from running at this degree ("" where it can).
  std::string fitted_patch_kernel_problem(FittedPatchKernel kernel, int degree);

  /// The fitted patch kernel `automatic` stands for on this backend, dimension, degree and
  /// precision (docs/performance/solve.md, "Deformed meshes"); other values are returned as they
  /// are.
  FittedPatchKernel resolve_fitted_patch_kernel(FittedPatchKernel kernel, Backend backend, int dim, int degree,
                                                Precision precision);
  /// Whether the additive Schwarz step of the fitted patch solves launches all its patches at
  /// once (atomic additions) rather than colour by colour: `automatic` on the GPU, whose
  /// additions are atomic in any case (docs/performance/solve.md, "Deformed meshes"), but not on
  /// the CPU, whose colour-by-colour sums are the same on any thread and rank count.
  constexpr bool fitted_patches_at_once(FittedPatchLaunch launch, Backend backend)
  {
    return launch == FittedPatchLaunch::all_at_once ||
           (launch == FittedPatchLaunch::automatic && backend == Backend::cuda);
  }
} // namespace tpmg
