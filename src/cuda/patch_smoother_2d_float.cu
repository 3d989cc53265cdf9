// Device instantiations of the basic vertex-patch kernels and the k = 1 tile kernels, 2D, float.
#include "patch_smoother_instances.cuh"

TPMG_FOR_DEGREES(TPMG_PATCH_INST, 2, float)
TPMG_PATCH_TILE_INST(2, float)
