// Device instantiations of the coarse solves.
#include <kernels/linear_algebra/dense_coarse.h>
#include <kernels/runtime/cuda_forall.cuh>
#include <kernels/runtime/cuda_runner.cuh>

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::GatherCoarseUnknowns<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::GatherCoarseUnknowns<double>)
TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::DenseCoarseRows<float>)
TPMG_INSTANTIATE_DEVICE_KERNEL(tpmg::DenseCoarseRows<double>)

// and of the transfer to Q_1 below the coarsest mesh level
#include <kernels/transfer/degree_transfer.h>

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::transfer_kernels::ProlongateFromQ1<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::transfer_kernels::ProlongateFromQ1<double>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::transfer_kernels::RestrictToQ1<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::transfer_kernels::RestrictToQ1<double>)

// and of the coarse solve by fast diagonalization
#include <kernels/linear_algebra/fast_diagonalization.h>

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::FastDiagonalizationStep<float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::FastDiagonalizationStep<double>)
