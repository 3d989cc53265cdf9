#include "instantiate.h"
#include "laplace_operator_impl.h"

#define TPMG_INST(dim, k, N) template class tpmg::CartesianLaplaceOperator<dim, k, N>;
TPMG_FOR_DEGREES(TPMG_INST, 2, float)
