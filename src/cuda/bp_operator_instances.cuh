// The bake-off operator kernels of one degree: mass, Gauss and GLL Laplacian, each with stored
// and on-the-fly geometry. Included by bp_operator_<dim>d_<number>.cu, one file per
// dimension and precision so that the builds run in parallel.
#pragma once

#include "../../kernels/bp_operator.h"
#include "../../kernels/cuda_runner.cuh"
#include "../instantiate.h"

#define TPMG_BP_KINDS(dim, k, N, onthefly)                                                               \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::mass, onthefly>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::laplace_gauss, onthefly>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::laplace_gll, onthefly>)
#define TPMG_BP_INST(dim, k, N) TPMG_BP_KINDS(dim, k, N, false) TPMG_BP_KINDS(dim, k, N, true)
