#include "bp_operator_impl.h"
#include "instantiate.h"

#define TPMG_INST(dim, k, N) template class tpmg::BPOperator<dim, k, N>;
TPMG_FOR_DEGREES(TPMG_INST, 2, double)
#undef TPMG_INST
