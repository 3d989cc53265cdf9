// Whole solves on the CPU backend for the tests: the parameters of a small problem and a run
// without output.
#pragma once

#include <tpmg/poisson.h>

#include <sstream>

namespace tpmg::test_support
{
  /// The default problem (manufactured solution, GMRES, float V-cycle) on the CPU, quietly.
  inline SolverParameters cpu_parameters(int dim, int k, int level)
  {
    SolverParameters p;
    p.dim              = dim;
    p.degree           = k;
    p.refinement_level = level;
    p.device           = DeviceChoice::cpu;
    p.verbose          = false;
    p.source           = "test";
    return p;
  }

  inline RunResult solve(const SolverParameters &p)
  {
    std::ostringstream log;
    return run_poisson(p, log);
  }
} // namespace tpmg::test_support
