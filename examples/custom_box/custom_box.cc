// custom_box: solves -Δu = f, u = 0 on the boundary, on the box [0, 3] x [-1, 1] x [0, 1] with
// tpmg's top-level C++ API: fill a SolverParameters, call run_poisson, read the RunResult.
// The right-hand side is the manufactured one, f = -Δu for u = Π_d sin(π (x_d - a_d) / L_d)
// on the box [a, a + L], so the result has an L2 error to report.
//
// Exit code: 0 when GMRES converged, 1 otherwise (not converged, input refused, run-time failure).
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

    p.rhs = tpmg::RightHandSide::manufactured;

    // GMRES in double, preconditioned by a single-precision V-cycle (the defaults), to 1e-10
    p.solver             = tpmg::SolverType::gmres;
    p.precision          = tpmg::Precision::single;
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
      if (r.l2_error) // computed for the manufactured right-hand side
        std::cout << "  L2 error:          " << *r.l2_error << "\n";
      if (!r.converged)
        {
          std::cerr << "custom_box: " << r.failure << std::endl;
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
