// Device instantiations of the basic vertex-patch kernels and the k = 1 tile kernels, 3D, double.
#include "patch_smoother_instances.cuh"

TPMG_FOR_DEGREES_TO_8(TPMG_PATCH_INST, 3, double)
TPMG_PATCH_TILE_INST(3, double)
