#include <tpmg/dispatch.h>

#include "poisson_impl.h"

namespace tpmg::internal
{
  RunResult run_2d(const SolverParameters &p, Backend b, std::ostream &log)
  {
    return dispatch_degree<10>(p.degree, [&](auto K) {
      constexpr int k = decltype(K)::value;
      return p.precision == Precision::single ? run<2, k, float>(p, b, log) : run<2, k, double>(p, b, log);
    });
  }
} // namespace tpmg::internal
