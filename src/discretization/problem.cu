// Device code of the model-problem kernels that do not depend on the degree (right-hand sides,
// interpolant); the error kernels are in problem_kernels.inst.in.
#include <kernels/problem/function_kernels.h>
#include <kernels/problem/problem_kernels.h>
#include <kernels/runtime/cuda_forall.cuh>

namespace pk = tpmg::problem_kernels;

TPMG_INSTANTIATE_DEVICE_FORALL(pk::TensorProductFill<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(pk::TensorProductFill<double>)
TPMG_INSTANTIATE_DEVICE_REDUCE(pk::ReadEntry)
TPMG_INSTANTIATE_DEVICE_FORALL(pk::BoundaryInterpolant<2>)
TPMG_INSTANTIATE_DEVICE_FORALL(pk::BoundaryInterpolant<3>)
TPMG_INSTANTIATE_DEVICE_REDUCE(pk::GeometricFactorsAt<2>)
TPMG_INSTANTIATE_DEVICE_REDUCE(pk::GeometricFactorsAt<3>)
