// The bake-off operator kernels of one degree: mass, Gauss and GLL Laplacian, each with stored
// and on-the-fly geometry, and the mass with its |J| polynomials. Included by
// bp_operator_<dim>d_<number>.cu, one file per dimension and precision so that the builds run
// in parallel.
#pragma once

#include "../../kernels/bp_operator.h"
#include "../../kernels/cuda_runner.cuh"
#include "../instantiate.h"

#define TPMG_BP_KINDS(dim, k, N, geo)                                                               \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::mass, geo>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::laplace_gauss, geo>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::laplace_gll, geo>)
#define TPMG_BP_INST(dim, k, N)                                                                              \
  TPMG_BP_KINDS(dim, k, N, tpmg::GeometryMode::stored)                                                     \
  TPMG_BP_KINDS(dim, k, N, tpmg::GeometryMode::on_the_fly)                                                 \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, tpmg::BPKind::mass, tpmg::GeometryMode::polynomial>)
