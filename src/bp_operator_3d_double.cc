#include "bp_operator_impl.h"
#include "instantiate.h"

#define TPMG_INST(dim, k, N) template class tpmg::BPOperator<dim, k, N>;
TPMG_FOR_DEGREES_TO_8(TPMG_INST, 3, double)
#undef TPMG_INST
