#include "instantiate.h"
#include "patch_smoother_impl.h"

#define TPMG_INST(dim, k, N) template class tpmg::VertexPatchSmoother<dim, k, N>;
TPMG_FOR_DEGREES(TPMG_INST, 2, float)
