// Device instantiations of the model-problem kernels (right-hand sides, interpolant, errors).
#include "../../kernels/cuda_forall.cuh"
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/problem_kernels.h"
#include "../instantiate.h"

namespace pk = tpmg::problem_kernels;

TPMG_INSTANTIATE_DEVICE_FORALL(pk::TensorProductFill<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(pk::TensorProductFill<double>)
TPMG_INSTANTIATE_DEVICE_REDUCE(pk::ReadEntry)

// compute_errors supports n_quadrature = k+1, k+2, k+3.
#define TPMG_INST(dim, k, unused)                                          \
  TPMG_INSTANTIATE_DEVICE_KERNEL(pk::ManufacturedErrorKernel<dim, k, k + 1>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(pk::ManufacturedErrorKernel<dim, k, k + 2>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(pk::ManufacturedErrorKernel<dim, k, k + 3>)
TPMG_FOR_DEGREES(TPMG_INST, 2, _)
TPMG_FOR_DEGREES(TPMG_INST, 3, _)
#undef TPMG_INST
