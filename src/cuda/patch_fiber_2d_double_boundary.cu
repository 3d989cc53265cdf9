// Device instantiations of the fiber patch kernels, 2D, double, boundary.
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/patch_smoother_fiber.h"
#include "../instantiate.h"

using tpmg::KernelOptimization;
using tpmg::PatchKernelKind;
#define TPMG_INST(dim, k, N)                                                                                  \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::FiberPatchKernel<dim, k, N, PatchKernelKind::fused, KernelOptimization::boundary>)    \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::FiberPatchKernel<dim, k, N, PatchKernelKind::residual, KernelOptimization::boundary>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::FiberPatchKernel<dim, k, N, PatchKernelKind::solve, KernelOptimization::boundary>)
TPMG_FOR_DEGREES(TPMG_INST, 2, double)
#undef TPMG_INST
