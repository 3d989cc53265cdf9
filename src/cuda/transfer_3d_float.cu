// Device instantiations of the transfer kernels, 3D, float.
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/transfer.h"
#include "../instantiate.h"

#define TPMG_INST(dim, k, N)                                             \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::TransferKernel<dim, k, N, false>) \
  TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::TransferKernel<dim, k, N, true>)
TPMG_FOR_DEGREES_TO_8(TPMG_INST, 3, float)
#undef TPMG_INST
