// Device instantiations of the dense coarse solve.
#include "../../kernels/cuda_forall.cuh"
#include "../../kernels/dense_coarse.h"

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::DenseCoarseSolve<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::DenseCoarseSolve<double>)
