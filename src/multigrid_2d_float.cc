#include "instantiate.h"
#include "transfer_impl.h"

#define TPMG_INST(dim, k, N) template class tpmg::Transfer<dim, k, N>;
TPMG_FOR_DEGREES(TPMG_INST, 2, float)
#undef TPMG_INST
