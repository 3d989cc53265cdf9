// The basic vertex-patch kernels of one degree (fused, residual, solve; fast diagonalization
// or a dense inverse) in both thread structures (column, per DoF), and the k = 1 tile
// kernels. Included by patch_smoother_<dim>d_<number>.cu, one file per dimension and
// precision so that the builds run in parallel.
#pragma once

#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/patch_smoother.h"
#include "../../kernels/patch_smoother_tile.h"
#include "../instantiate.h"

#define TPMG_PATCH_KINDS(dim, k, N, per_dof)                                                                      \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, tpmg::PatchKernelKind::fused,                       \
                                                   tpmg::LocalSolverKind::fast_diagonalization, per_dof>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, tpmg::PatchKernelKind::residual,                    \
                                                   tpmg::LocalSolverKind::fast_diagonalization, per_dof>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, tpmg::PatchKernelKind::solve,                       \
                                                   tpmg::LocalSolverKind::fast_diagonalization, per_dof>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, tpmg::PatchKernelKind::fused,                       \
                                                   tpmg::LocalSolverKind::inverse_matrix, per_dof>)                \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchKernel<dim, k, N, tpmg::PatchKernelKind::solve,                       \
                                                   tpmg::LocalSolverKind::inverse_matrix, per_dof>)
#define TPMG_PATCH_INST(dim, k, N) TPMG_PATCH_KINDS(dim, k, N, false) TPMG_PATCH_KINDS(dim, k, N, true)
#define TPMG_PATCH_TILE_INST(dim, N)                                   \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchTileKernel<dim, N, false>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::PatchTileKernel<dim, N, true>)
