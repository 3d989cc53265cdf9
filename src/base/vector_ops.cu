// Device instantiations of the vector functors.
#include <kernels/linear_algebra/vector_kernels.h>
#include <kernels/runtime/cuda_forall.cuh>

namespace vk = tpmg::vector_kernels;
// (the _INTO reductions' CPU branch names the waiting ones too: both are instantiated)
#define TPMG_INSTANTIATE(N)                                                   \
  TPMG_INSTANTIATE_DEVICE_FORALL(vk::Axpy<N>)                                 \
  TPMG_INSTANTIATE_DEVICE_FORALL(vk::Sadd<N>)                                 \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::DotTerm<N>)                     \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::AxpyDot<N>)                     \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::NonFinite<N>)                   \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::Owned<vk::DotTerm<N>>)          \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::Owned<vk::AxpyDot<N>>)          \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_INTO(vk::DotTerm<N>)                \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::AxpyDotFrom<N>)                 \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::Owned<vk::AxpyDotFrom<N>>)      \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_INTO(vk::AxpyDotFrom<N>)            \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_INTO(vk::Owned<vk::DotTerm<N>>)     \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_INTO(vk::Owned<vk::AxpyDotFrom<N>>) \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::Owned<vk::NonFinite<N>>)        \
  TPMG_INSTANTIATE_DEVICE_REDUCE_MAX(vk::SignedOwnedValue<N>)                 \
  TPMG_INSTANTIATE_DEVICE_FORALL(vk::Equ<N>)                                  \
  TPMG_INSTANTIATE_DEVICE_FORALL(vk::AddConstant<N>)                          \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::SumTerm<N>)                     \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::Owned<vk::SumTerm<N>>)          \
  TPMG_INSTANTIATE_DEVICE_FORALL(vk::MultiAxpy<N>)                            \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::MultiAxpyNorm<N>)               \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(vk::Owned<vk::MultiAxpyNorm<N>>)    \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_MULTI(8, vk::MultiDot<N>)           \
  TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_MULTI(8, vk::OwnedTerms<vk::MultiDot<N>, 8>)
TPMG_INSTANTIATE(float)
TPMG_INSTANTIATE(double)
TPMG_INSTANTIATE_DEVICE_FORALL(vk::Convert<float, double>)
TPMG_INSTANTIATE_DEVICE_FORALL(vk::Convert<double, float>)
TPMG_INSTANTIATE_DEVICE_FORALL(vk::Convert<float, float>)
TPMG_INSTANTIATE_DEVICE_FORALL(vk::Convert<double, double>)
