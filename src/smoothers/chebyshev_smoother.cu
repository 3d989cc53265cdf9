// Device instantiations of the Chebyshev–point-Jacobi smoother's functors.
#include <kernels/runtime/cuda_forall.cuh>
#include <kernels/smoothers/chebyshev.h>

namespace ck = tpmg::chebyshev_kernels;
#define TPMG_INSTANTIATE(N)                                \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::LaplaceDiagonal<N>)   \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::HashFill<N>)          \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::InverseDiagonal<N>)   \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::JacobiApply<N>)       \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::CgResidualUpdate<N>)  \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::CgDirectionUpdate<N>) \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::ChebyshevStep<N>)     \
  TPMG_INSTANTIATE_DEVICE_FORALL(ck::ChebyshevUpdate<N>)
TPMG_INSTANTIATE(float)
TPMG_INSTANTIATE(double)
#undef TPMG_INSTANTIATE
