// Device instantiations of the dense coarse solve.
#include <kernels/linear_algebra/dense_coarse.h>
#include <kernels/runtime/cuda_forall.cuh>

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::DenseCoarseSolve<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::DenseCoarseSolve<double>)
