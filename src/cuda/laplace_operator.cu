// Device instantiations of the Cartesian Laplace kernel.
#include "../../kernels/cuda_forall.cuh"
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/laplace_cartesian.h"
#include "../instantiate.h"

#define TPMG_INST(dim, k, N) TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::CartesianLaplaceKernel<dim, k, N>)
TPMG_FOR_ALL_DIM_DEGREE_NUMBER(TPMG_INST)
#undef TPMG_INST
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::CopyBoundaryLines<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::CopyBoundaryLines<double>)
