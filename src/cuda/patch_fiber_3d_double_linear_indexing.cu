// Device instantiations of the fiber patch kernels, 3D, double, linear_indexing.
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/patch_smoother_fiber.h"
#include "../instantiate.h"

using tpmg::KernelOptimization;
using tpmg::PatchKernelKind;
#define TPMG_INST(dim, k, N)                                                                                  \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::FiberPatchKernel<dim, k, N, PatchKernelKind::fused, KernelOptimization::linear_indexing>)    \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::FiberPatchKernel<dim, k, N, PatchKernelKind::residual, KernelOptimization::linear_indexing>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::FiberPatchKernel<dim, k, N, PatchKernelKind::solve, KernelOptimization::linear_indexing>)
TPMG_FOR_DEGREES_TO_8(TPMG_INST, 3, double)
#undef TPMG_INST
