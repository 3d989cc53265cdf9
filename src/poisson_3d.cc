#include <tpmg/dispatch.h>

#include "poisson_impl.h"

namespace tpmg::internal
{
  RunResult run_3d(const SolverParameters &p, Backend b, std::ostream &log)
  {
    return dispatch_degree<8>(p.degree, [&](auto K) {
      constexpr int k = decltype(K)::value;
      return p.precision == Precision::single ? run<3, k, float>(p, b, log) : run<3, k, double>(p, b, log);
    });
  }
} // namespace tpmg::internal
