// The checks of a run's parameters beyond their patterns (src/app/parameter_checks.cc), for
// read_parameters.
#pragma once

#include <tpmg/parameters.h>
#include <tpmg/solver_parameters.h>

namespace tpmg::internal
{
  /// The boundary faces, the problem's expressions and coefficients, the mesh and its
  /// deformation agree (ParameterError naming the file and line otherwise).
  void check_problem_and_mesh(const ParameterHandler &prm, const SolverParameters &p);
} // namespace tpmg::internal
