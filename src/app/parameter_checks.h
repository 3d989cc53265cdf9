// The checks of a run's parameters beyond their patterns (src/app/parameter_checks.cc), for
// read_parameters, and the multigrid settings the parameters make.
#pragma once

#include <tpmg/multigrid.h>
#include <tpmg/parameters.h>
#include <tpmg/solver_parameters.h>

namespace tpmg::internal
{
  /// The boundary faces, the problem's expressions and coefficients, the mesh and its
  /// deformation agree (ParameterError naming the file and line otherwise).
  void check_problem_and_mesh(const ParameterHandler &prm, const SolverParameters &p);

  /// The multigrid's settings from the parameters (the authors' conventions start with the odd
  /// colour; `Multigrid/Coarse level = auto` allows the coarse solve by fast diagonalization).
  MultigridSettings multigrid_settings(const SolverParameters &p);
} // namespace tpmg::internal
