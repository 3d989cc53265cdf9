// Device instantiations of the Cartesian Laplace kernel, 2D, float.
#include "../../kernels/cuda_forall.cuh"
#include "../../kernels/cuda_runner.cuh"
#include "../../kernels/laplace_cartesian.h"
#include "../../kernels/laplace_stencil.h"
#include "../instantiate.h"

#define TPMG_INST(dim, k, N) TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::CartesianLaplaceKernel<dim, k, N>)
TPMG_FOR_DEGREES(TPMG_INST, 2, float)
#undef TPMG_INST
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::CopyBoundaryLines<float>)
TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::LaplaceStencilKernel<2, float>) // k = 1
