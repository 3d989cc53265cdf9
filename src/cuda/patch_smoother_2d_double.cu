// Device instantiations of the basic vertex-patch kernels and the k = 1 tile kernels, 2D, double.
#include "patch_smoother_instances.cuh"

TPMG_FOR_DEGREES(TPMG_PATCH_INST, 2, double)
TPMG_PATCH_TILE_INST(2, double)
