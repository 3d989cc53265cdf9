// Device code of the boundary rows that the constrained level operators share.
#include <kernels/operators/laplace_cartesian.h>
#include <kernels/runtime/cuda_forall.cuh>

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::CopyBoundaryLines<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::CopyBoundaryLines<double>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::SetBoundaryNodes<double>)
