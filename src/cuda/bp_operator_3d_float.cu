// Device instantiations of the bake-off operator kernels, 3D, float.
#include "bp_operator_instances.cuh"

TPMG_FOR_DEGREES_TO_8(TPMG_BP_INST, 3, float)
