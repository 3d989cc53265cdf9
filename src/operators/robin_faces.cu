// Device code of the Robin faces' data that does not depend on the degree (RobinFaceWeights);
// the Robin term itself is in laplace_kernels.inst.in.
#include <kernels/operators/robin_face.h>
#include <kernels/runtime/cuda_forall.cuh>

TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::RobinFaceWeights<2, float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::RobinFaceWeights<2, double>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::RobinFaceWeights<3, float>)
TPMG_INSTANTIATE_DEVICE_FORALL(tpmg::RobinFaceWeights<3, double>)
