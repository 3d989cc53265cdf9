// custom_box: solves -Δu = f in the box [0, 3] x [-1, 1] x [0, 1], u = g on its boundary, with
// tpmg's top-level C++ API: fill a SolverParameters, call run_poisson, read the RunResult.
// f and g are the user's own, given as expressions in x, y, z (muparser syntax, as deal.II's
// FunctionParser reads them): u = exp(x) sin(2y) cos(z) solves it for f = 4 exp(x) sin(2y) cos(z)
// and g = u, so the exact solution is known and the run reports its L2 and H1 errors.
//
// Exit code: 0 when GMRES converged and the L2 error is as small as Q3 on this mesh gives,
// 1 otherwise (not converged, input refused, run-time failure).
#include <tpmg/poisson.h>
#include <tpmg/solver_parameters.h>

#include <exception>
#include <iostream>

namespace
{
  /// The problem and how to solve it. Every field of SolverParameters has a default
  /// (docs/interface.md lists them under their parameter-file names); these are the ones this
  /// program changes.
  tpmg::SolverParameters make_parameters()
  {
    tpmg::SolverParameters p;
    p.dim    = 3;
    p.degree = 3; // Q3 elements

    // the box, one extent per direction, and a coarse mesh of cubes on it: 3 x 2 x 1 cells of
    // width 1, refined twice (12 x 8 x 4 cells on the finest level)
    p.box_lower        = {{0.0, -1.0, 0.0}};
    p.box_upper        = {{3.0, 1.0, 1.0}};
    p.coarse_cells     = {{3, 2, 1}};
    p.refinement_level = 2;

    // the problem: f, the Dirichlet data g (non-zero: the solver lifts it) and the exact solution
    p.rhs             = tpmg::RightHandSide::function;
    p.rhs_function    = "4*exp(x)*sin(2*y)*cos(z)";
    p.boundary_values = "exp(x)*sin(2*y)*cos(z)";
    p.exact_solution  = "exp(x)*sin(2*y)*cos(z)";

    // GMRES in double, preconditioned by a single-precision V-cycle (the defaults), to 1e-10
    p.solver             = tpmg::SolverType::gmres;
    p.precision          = tpmg::Precision::fp32;
    p.relative_tolerance = 1e-10;
    p.max_iterations     = 50;

    p.device  = tpmg::DeviceChoice::automatic; // the GPU when the library has CUDA and one is there
    p.verbose = false;                         // no progress lines
    p.source  = "custom_box";                  // the name run-time errors begin with
    return p;
  }
} // namespace

int main()
{
  try
    {
      const tpmg::SolverParameters p = make_parameters();
      const tpmg::RunResult        r = tpmg::run_poisson(p, std::cout);

      std::cout << "custom_box: " << r.dim << "D Q" << r.degree << " on [" << p.box_lower[0] << ", " << p.box_upper[0]
                << "] x [" << p.box_lower[1] << ", " << p.box_upper[1] << "] x [" << p.box_lower[2] << ", "
                << p.box_upper[2] << "], " << r.backend << " backend\n"
                << "  DoFs:              " << r.dofs << "\n"
                << "  iterations:        " << r.iterations << (r.converged ? "" : " (not converged)") << "\n"
                << "  relative residual: " << r.relative_residual << "\n";
      if (r.l2_error) // computed against the exact solution
        std::cout << "  L2 error:          " << *r.l2_error << "\n"
                  << "  H1 error:          " << *r.h1_error << "\n";
      if (!r.converged)
        {
          std::cerr << "custom_box: " << r.failure << std::endl;
          return 1;
        }
      if (!r.l2_error || !(*r.l2_error < 1e-3)) // Q3 with h = 1/4: about 3e-4 (u reaches e^3 = 20)
        {
          std::cerr << "custom_box: unexpected L2 error" << std::endl;
          return 1;
        }
      return 0;
    }
  catch (const std::exception &e) // ParameterError, OutOfMemoryError, ...
    {
      std::cerr << "custom_box: " << e.what() << std::endl;
      return 1;
    }
}
