// heat_equation: u_t = Δu on the unit cube, u = 0 on the boundary, u(0) = sin(πx) sin(πy) sin(πz),
// by implicit Euler. Each step is one Poisson-type solve,
//
//     -Δu^{n+1} + (1/Δt) u^{n+1} = (1/Δt) u^n,   i.e.   (K + M/Δt) u^{n+1} = M u^n / Δt,
//
// so one PoissonSolver with the reaction coefficient c = 1/Δt serves every step: its setup
// (hierarchy, operators, smoother data, coarse solver, Krylov workspace) is made once, and each
// step only assembles b = M u^n / Δt with the mass operator (BP1) on the solver's own fine level
// and solves. Halfway the step grows; update_coefficients then makes the c-dependent parts again
// (operators, smoothers, coarse solver), while the hierarchy stays.
//
// u^0 is the solution's elliptic projection: the solver's first solve is -Δu + u/Δt = f with
// f = (3π² + 1/Δt) sin(πx) sin(πy) sin(πz), whose exact solution is u(0). Since sin sin sin is
// an eigenfunction of -Δ with eigenvalue 3π², implicit Euler multiplies it by 1/(1 + 3π² Δt)
// per step (the exact flow by exp(-3π² Δt)); the program prints u_h at the centre beside both,
// each step's iterations and solve time, and the setup once.
//
// The argument, if any, is the refinement level (default 3: 8^3 cells of Q3; 6 gives 7.2 M DoFs).
//
// Exit code: 0 when every step converged and u_h(centre) follows implicit Euler's decay to 1e-4
// relative, 1 otherwise.
#include <tpmg/bp_operator.h>
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/vector_ops.h>

#include <cmath>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>

namespace
{
  std::string number(double x) // an expression's constant, exact to the last bit
  {
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
  }
} // namespace

int main(int argc, char **argv)
{
  using namespace tpmg;
  constexpr int dim = 3, degree = 3;
  try
    {
      const double pi = 3.14159265358979323846, lambda = 3 * pi * pi; // -Δ sin sin sin = λ sin sin sin
      double       dt = 1e-3;

      SolverParameters p;
      p.dim                = dim;
      p.degree             = degree;
      p.refinement_level   = argc > 1 ? std::stoi(argv[1]) : 3;
      p.reaction           = number(1 / dt);
      p.rhs                = RightHandSide::function;
      p.rhs_function       = number(lambda + 1 / dt) + "*sin(pi*x)*sin(pi*y)*sin(pi*z)";
      p.exact_solution     = "sin(pi*x)*sin(pi*y)*sin(pi*z)";
      p.relative_tolerance = 1e-10;
      p.verbose            = false;
      p.source             = "heat_equation";

      PoissonSolver    solver(p, std::cout); // the setup, once
      const RunResult &setup = solver.setup_result();
      std::cout << setup.dofs << " DoFs on " << setup.backend << " (" << setup.device << "), setup "
                << setup.setup_time_s << " s\n";

      RunResult first = solver.solve(); // u^0: the elliptic projection of u(0)
      std::cout << "u^0: " << first.iterations << " iterations, L2 error " << *first.l2_error << "\n";

      // M u^n on the solver's fine level (one rank: the whole level, in the solver's numbering);
      // the constrained operator copies u^n's zero boundary values, which is what solve(b) wants
      const CartesianLevel                 &fine = solver.layout()->level();
      const BPOperator<dim, degree, double> mass(fine, solver.layout()->backend(), BakeOff::bp1);
      Vector<double>                        b(fine.n_dofs(), solver.layout()->backend());

      double    t = 0, euler = 1, centre0 = solver.values_at({{{0.5, 0.5, 0.5}}})[0];
      bool      ok    = first.converged;
      const int steps = 10;
      for (int n = 0; n < steps; ++n)
        {
          if (n == steps / 2) // a larger step from here on: only c = 1/Δt changes
            {
              dt *= 4;
              solver.update_coefficients("1", number(1 / dt));
            }
          mass.vmult(b, solver.solution());
          equ(1 / dt, b, b); // b = M u^n / Δt
          const RunResult r = solver.solve(b);
          t += dt;
          euler /= 1 + lambda * dt;
          const double centre = solver.values_at({{{0.5, 0.5, 0.5}}})[0] / centre0;
          std::cout << "step " << n + 1 << ": t = " << t << ", dt = " << dt << ", " << r.iterations << " iterations in "
                    << r.solve_time_s << " s; u_h(centre)/u_h^0(centre) = " << centre << " (implicit Euler " << euler
                    << ", exact " << std::exp(-lambda * t) << ")\n";
          ok = ok && r.converged && std::abs(centre - euler) < 1e-4 * euler;
        }
      return ok ? 0 : 1;
    }
  catch (const std::exception &e)
    {
      std::cerr << "heat_equation: " << e.what() << "\n";
      return 1;
    }
}
