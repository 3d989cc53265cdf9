// Device instantiations of the halo functors (kernels/linear_algebra/halo.h).
#include <kernels/linear_algebra/halo.h>
#include <kernels/runtime/cuda_forall.cuh>

namespace hk = tpmg::halo_kernels;
TPMG_INSTANTIATE_DEVICE_FORALL(hk::Pack<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(hk::Pack<double>)
TPMG_INSTANTIATE_DEVICE_FORALL(hk::Unpack<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(hk::Unpack<double>)
