// Device instantiations of the bake-off operator kernels, 3D, double.
#include "../../kernels/bp_operator.h"
#include "../../kernels/cuda_runner.cuh"
#include "../instantiate.h"

using tpmg::BPKind;
#define TPMG_INST(dim, k, N)                                                                  \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, BPKind::mass, false>)          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, BPKind::laplace_gauss, false>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, BPKind::laplace_gll, false>)   \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, BPKind::mass, true>)           \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, BPKind::laplace_gauss, true>)  \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::BPOperatorKernel<dim, k, N, BPKind::laplace_gll, true>)
TPMG_FOR_DEGREES_TO_8(TPMG_INST, 3, double)
#undef TPMG_INST
