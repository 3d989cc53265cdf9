// heat_equation: u_t = Δu on the unit cube by implicit Euler, twice: with u = 0 on the boundary
// and u(0) = sin(πx) sin(πy) sin(πz), and in an insulated box (∂u/∂n = 0 on every face) with
// u(0) = cos(πx) cos(πy) cos(πz). Each step is one Poisson-type solve,
//
//     -Δu^{n+1} + (1/Δt) u^{n+1} = (1/Δt) u^n,   i.e.   (K + M/Δt) u^{n+1} = M u^n / Δt,
//
// so one PoissonSolver with the reaction coefficient c = 1/Δt serves every step: its setup
// (hierarchy, operators, smoother data, coarse solver, Krylov workspace) is made once, and each
// step only assembles b = M u^n / Δt with the mass operator (BP1) on the solver's own fine level
// and solves. Halfway the step grows; update_coefficients then makes the c-dependent parts again
// (operators, smoothers, coarse solver), while the hierarchy stays. In the insulated box the
// reaction term keeps the problem regular (without it u would be fixed only up to a constant),
// and the faces' nodes are unknowns: the mass operator is the unconstrained one, over all nodes.
//
// u^0 is the solution's elliptic projection: the solver's first solve is -Δu + u/Δt = f with
// f = (3π² + 1/Δt) u(0), whose exact solution is u(0). Both initial functions are
// eigenfunctions of -Δ with eigenvalue 3π² and the box's conditions, so implicit Euler
// multiplies them by 1/(1 + 3π² Δt) per step (the exact flow by exp(-3π² Δt)); the program
// prints u_h at a probe point (the centre; the insulated box's corner) beside both, each step's
// iterations and solve time, and the setup once.
//
// The argument, if any, is the refinement level (default 3: 8^3 cells of Q3; 6 gives 7.2 M DoFs).
//
// Exit code: 0 when every step converged and u_h(probe) follows implicit Euler's decay to 1e-4
// relative in both boxes, 1 otherwise.
#include <tpmg/bp_operator.h>
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/vector_ops.h>

#include <array>
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

namespace
{
  using namespace tpmg;
  constexpr int dim = 3, degree = 3;

  /// The time loop in the box with Dirichlet faces or, `insulated`, Neumann faces; whether every
  /// step converged and followed implicit Euler's decay.
  bool time_loop(int level, bool insulated)
  {
    const double                pi = 3.14159265358979323846, lambda = 3 * pi * pi; // -Δ u(0) = λ u(0)
    double                      dt   = 1e-3;
    const std::string           mode = insulated ? "cos(pi*x)*cos(pi*y)*cos(pi*z)" : "sin(pi*x)*sin(pi*y)*sin(pi*z)";
    const std::array<double, 3> probe =
      insulated ? std::array<double, 3>{{0, 0, 0}} : std::array<double, 3>{{0.5, 0.5, 0.5}};

    SolverParameters p;
    p.dim              = dim;
    p.degree           = degree;
    p.refinement_level = level;
    if (insulated)
      p.boundary.type.fill(BoundaryType::neumann);
    p.reaction           = number(1 / dt);
    p.rhs                = RightHandSide::function;
    p.rhs_function       = number(lambda + 1 / dt) + "*" + mode;
    p.exact_solution     = mode;
    p.relative_tolerance = 1e-10;
    p.verbose            = false;
    p.source             = "heat_equation";

    std::cout << (insulated ? "insulated box (du/dn = 0), u(0) = " : "u = 0 on the boundary, u(0) = ") << mode << "\n";
    PoissonSolver    solver(p, std::cout); // the setup, once
    const RunResult &setup = solver.setup_result();
    std::cout << setup.dofs << " DoFs on " << setup.backend << " (" << setup.device << "), setup " << setup.setup_time_s
              << " s\n";

    RunResult first = solver.solve(); // u^0: the elliptic projection of u(0)
    std::cout << "u^0: " << first.iterations << " iterations, L2 error " << *first.l2_error << "\n";

    // M u^n on the solver's fine level (one rank: the whole level, in the solver's numbering);
    // with Dirichlet faces the constrained operator copies u^n's zero boundary values, which is
    // what solve(b) wants; in the insulated box every node is an unknown
    const CartesianLevel                 &fine = solver.layout()->level();
    const BPOperator<dim, degree, double> mass(fine, solver.layout()->backend(), BakeOff::bp1, {}, !insulated);
    Vector<double>                        b(fine.n_dofs(), solver.layout()->backend());

    double    t = 0, euler = 1, probe0 = solver.values_at({probe})[0];
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
        const double value = solver.values_at({probe})[0] / probe0;
        std::cout << "step " << n + 1 << ": t = " << t << ", dt = " << dt << ", " << r.iterations << " iterations in "
                  << r.solve_time_s << " s; u_h(probe)/u_h^0(probe) = " << value << " (implicit Euler " << euler
                  << ", exact " << std::exp(-lambda * t) << ")\n";
        ok = ok && r.converged && !r.singular && std::abs(value - euler) < 1e-4 * euler;
      }
    return ok;
  }
} // namespace

int main(int argc, char **argv)
{
  try
    {
      const int  level = argc > 1 ? std::stoi(argv[1]) : 3;
      const bool ok    = time_loop(level, false);
      return time_loop(level, true) && ok ? 0 : 1;
    }
  catch (const std::exception &e)
    {
      std::cerr << "heat_equation: " << e.what() << "\n";
      return 1;
    }
}
