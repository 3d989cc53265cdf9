// many_solves: the pattern of a time loop that needs one Poisson solve per step (a pressure
// projection, a potential that follows moving charges): the solver is set up once, with its
// hierarchy, multigrid preconditioner and Krylov workspace, and each step gives it new data.
// Step n solves -Δu = f_n on the unit cube with u = g_n on the boundary, where
// u_n = (1 + t_n) sin(πx) sin(πy) sin(πz) + t_n x y z is known, so each step checks its error.
// The program prints the setup once, then each step's solve time, iterations, L2 error and
// u_h at the centre.
//
// The argument, if any, is the refinement level (default 3: 8^3 cells; 6 gives 7.2 M DoFs).
//
// Exit code: 0 when every step converged with the error Q3 gives on this mesh, 1 otherwise.
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/solver_parameters.h>

#include <cmath>
#include <exception>
#include <iostream>
#include <string>

int main(int argc, char **argv)
{
  try
    {
      const int              level = argc > 1 ? std::stoi(argv[1]) : 3;
      tpmg::SolverParameters p;
      p.dim                = 3;
      p.degree             = 3;
      p.refinement_level   = level; // 8^3 cells of Q3 at level 3
      p.rhs                = tpmg::RightHandSide::function;
      p.relative_tolerance = 1e-10;
      p.verbose            = false;
      p.source             = "many_solves";

      tpmg::PoissonSolver    solver(p, std::cout); // the setup, once
      const tpmg::RunResult &setup = solver.setup_result();
      std::cout << setup.dofs << " DoFs on " << setup.backend << " (" << setup.device << "), setup "
                << setup.setup_time_s << " s\n";

      bool ok = true;
      for (int n = 0; n < 5; ++n)
        {
          const double           t = 0.25 * n;
          const std::string      a = std::to_string(1 + t), b = std::to_string(t);
          const std::string      u = a + "*sin(pi*x)*sin(pi*y)*sin(pi*z) + " + b + "*x*y*z";
          tpmg::ProblemFunctions data; // f = -Δu (the x y z part is harmonic), g = u
          data.rhs                     = tpmg::Expression("3*pi^2*" + a + "*sin(pi*x)*sin(pi*y)*sin(pi*z)", 3);
          data.boundary_values         = tpmg::Expression(u, 3);
          data.exact_solution          = tpmg::Expression(u, 3);
          const tpmg::RunResult r      = solver.solve(data);
          const double          centre = solver.values_at({{{0.5, 0.5, 0.5}}})[0];
          std::cout << "step " << n << ": t = " << t << ", " << r.iterations << " iterations in " << r.solve_time_s
                    << " s (right-hand side " << r.rhs_time_s << " s), L2 error " << *r.l2_error
                    << ", u_h(1/2) = " << centre << " (exact " << (1 + t) + t / 8 << ")\n";
          ok = ok && r.converged && *r.l2_error < 1e-4 && std::abs(centre - (1 + t) - t / 8) < 1e-4;
          // (the error bound is Q3's at level 3; finer levels have smaller errors)
        }
      return ok ? 0 : 1;
    }
  catch (const std::exception &e)
    {
      std::cerr << "many_solves: " << e.what() << "\n";
      return 1;
    }
}
