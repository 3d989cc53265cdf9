// Device instantiations of the transfer kernels, 2D, double.
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/transfer.h"
#include "../instantiate.h"

#define TPMG_INST(dim, k, N)                                             \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::TransferKernel<dim, k, N, false>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::TransferKernel<dim, k, N, true>)
TPMG_FOR_DEGREES(TPMG_INST, 2, double)
#undef TPMG_INST
