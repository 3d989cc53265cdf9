#include "instantiate.h"
#include "multigrid_impl.h"

#define TPMG_INST(dim, k, N)                 \
  template class tpmg::Transfer<dim, k, N>;  \
  template class tpmg::Multigrid<dim, k, N>; \
  template std::unique_ptr<tpmg::LinearOperator<N>> tpmg::make_level_operator<dim, k, N>(const tpmg::CartesianLevel &, tpmg::Backend, tpmg::LevelOperatorType, const tpmg::DeformationSettings &, tpmg::GeometryMode);
TPMG_FOR_DEGREES(TPMG_INST, 2, double)
#undef TPMG_INST
