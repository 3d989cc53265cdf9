// Device instantiations of the vertex-patch kernels, 3D, float.
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/patch_smoother.h"
#include "../../kernels/patch_smoother_tile.h"
#include "../instantiate.h"

using tpmg::LocalSolverKind;
using tpmg::PatchKernelKind;
// both thread structures (column, per DoF) of the basic kernels
#define TPMG_INST_S(dim, k, N, D)                                                                                          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, PatchKernelKind::fused, LocalSolverKind::fast_diagonalization, D>)    \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, PatchKernelKind::residual, LocalSolverKind::fast_diagonalization, D>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, PatchKernelKind::solve, LocalSolverKind::fast_diagonalization, D>)    \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, PatchKernelKind::fused, LocalSolverKind::inverse_matrix, D>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, PatchKernelKind::solve, LocalSolverKind::inverse_matrix, D>)
#define TPMG_INST(dim, k, N) TPMG_INST_S(dim, k, N, false) TPMG_INST_S(dim, k, N, true)
TPMG_FOR_DEGREES_TO_8(TPMG_INST, 3, float)
#undef TPMG_INST
#undef TPMG_INST_S
// k = 1 with shared loads
TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchTileKernel<3, float, false>)
TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchTileKernel<3, float, true>)
