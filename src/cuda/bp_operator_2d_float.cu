// Device instantiations of the bake-off operator kernels, 2D, float.
#include "bp_operator_instances.cuh"

TPMG_FOR_DEGREES(TPMG_BP_INST, 2, float)
