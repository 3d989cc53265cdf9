// Device instantiations of the tensor-core patch kernels, 3D, float.
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/patch_smoother_mma.h"

#define TPMG_INST(k) TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::MmaPatchKernel<k, float>)
TPMG_INST(2) TPMG_INST(3) TPMG_INST(4) TPMG_INST(5) TPMG_INST(6) TPMG_INST(7) TPMG_INST(8)
#undef TPMG_INST
