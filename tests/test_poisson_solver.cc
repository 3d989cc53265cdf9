// One setup, many solves (PoissonSolver, tpmg/poisson.h): a solve repeated, or with new data,
// gives bit for bit what a solver set up afresh for those data gives; a right-hand side vector
// gives what its functions give; a hundred solves leave no vector behind; the setup's parts add
// up to its time.
#include <tpmg/box_layout.h>
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/solvers.h>
#include <tpmg/vector.h>

#include <gtest/gtest.h>

#include <sstream>
#include <utility>

using namespace tpmg;

namespace
{
  SolverParameters parameters(int dim, int k, int level)
  {
    SolverParameters p;
    p.dim                = dim;
    p.degree             = k;
    p.refinement_level   = level;
    p.coarse_cells       = {2, 1, 1};
    p.box_upper          = {2, 1, 1};
    p.rhs                = RightHandSide::function;
    p.rhs_function       = "exp(x)*sin(3*y)";
    p.boundary_values    = "x - y^2";
    p.relative_tolerance = 1e-10;
    p.device             = DeviceChoice::cpu;
    p.verbose            = false;
    return p;
  }

  ProblemFunctions functions_of(const SolverParameters &p) { return p.problem_functions(); }
} // namespace

TEST(PoissonSolver, RepeatedAndNewDataSolvesEqualFreshSolvers)
{
  for (int dim : {2, 3})
    for (SolverType type : {SolverType::gmres, SolverType::fmg})
      {
        std::ostringstream log;
        SolverParameters   p = parameters(dim, 3, dim == 3 ? 2 : 3);
        p.solver             = type;
        PoissonSolver   solver(p, log);
        const RunResult first = solver.solve();
        const auto      u1    = solver.solution().to_host();
        const RunResult again = solver.solve();
        EXPECT_EQ(again.history, first.history);
        EXPECT_EQ(solver.solution().to_host(), u1);
        const RunResult fresh = run_poisson(p, log);
        EXPECT_EQ(fresh.history, first.history);

        // new data through solve(ProblemFunctions) against a solver made for them
        SolverParameters q    = p;
        q.rhs_function        = "1 + x*y";
        q.boundary_values     = "cos(x + y)";
        q.exact_solution      = "";
        const RunResult other = solver.solve(functions_of(q));
        const auto      u2    = solver.solution().to_host();
        PoissonSolver   made(q, log);
        const RunResult direct = made.solve();
        EXPECT_EQ(other.history, direct.history) << dim << "D " << to_string(type);
        EXPECT_EQ(u2, made.solution().to_host()) << dim << "D " << to_string(type);
        EXPECT_EQ(other.iterations, direct.iterations);
        EXPECT_NE(u2, u1);
        // and back: the first problem again, bit for bit
        solver.solve(functions_of(p));
        EXPECT_EQ(solver.solution().to_host(), u1);
      }
}

TEST(PoissonSolver, RightHandSideVectorEqualsItsFunctions)
{
  std::ostringstream log;
  SolverParameters   p = parameters(3, 2, 2);
  p.boundary_values    = "0";
  PoissonSolver  solver(p, log);
  Vector<double> b;
  assemble_rhs(solver.layout()->level(), p.deformation, functions_of(p), p.level_operator, Backend::cpu, b);
  const RunResult from_vector = solver.solve(b);
  const auto      u           = solver.solution().to_host();
  const RunResult from_text   = solver.solve();
  EXPECT_EQ(from_vector.history, from_text.history);
  EXPECT_EQ(u, solver.solution().to_host());
  Vector<double> wrong(3, Backend::cpu);
  EXPECT_THROW(solver.solve(wrong), std::invalid_argument);
}

TEST(PoissonSolver, HundredSolvesKeepTheirMemoryAndSetupAddsUp)
{
  std::ostringstream log;
  PoissonSolver      solver(parameters(2, 2, 2), log);
  const RunResult   &setup = solver.setup_result();
  double             parts = 0;
  for (const auto &[name, t] : setup.setup_breakdown)
    {
      EXPECT_GE(t, 0.0) << name;
      parts += t;
    }
  EXPECT_EQ(setup.setup_breakdown.size(), 9u);
  EXPECT_LE(parts, setup.setup_time_s * 1.001 + 1e-6);
  EXPECT_EQ(setup.iterations, 0);
  solver.solve();
  const std::size_t in_use = vector_memory_in_use();
  for (int n = 0; n < 100; ++n)
    {
      const RunResult r = solver.solve();
      ASSERT_TRUE(r.converged);
    }
  EXPECT_EQ(vector_memory_in_use(), in_use);
  // and the values at points of the last solution: u = g on the boundary
  const std::vector<double> v = solver.values_at({{{1.0, 0.0, 0.0}}, {{2.0, 0.5, 0.0}}});
  EXPECT_NEAR(v[0], 1.0, 1e-12);
  EXPECT_NEAR(v[1], 2.0 - 0.25, 1e-12);
  EXPECT_THROW(solver.values_at({{{3.0, 0.5, 0.0}}}), std::invalid_argument);
}

// update_coefficient makes again what depends on the operator: the solves after it equal bit for
// bit those of a solver set up afresh with that coefficient, from the Laplacian (cartesian,
// Cartesian patches) to a coefficient (bp3, fitted patches), to another, and back; a coefficient
// the solver cannot take is refused and leaves it as it was. On 2D level 4 the coarsest level
// moves: fast diagonalization on level 3 for a constant coefficient, the coarse mesh's level 0
// (2 x 1 cells) for a varying one (the layouts, made for level 3, keep it whole).
TEST(PoissonSolver, UpdateCoefficientEqualsAFreshSolver)
{
  for (auto [dim, level] : {std::pair{2, 2}, std::pair{3, 1}, std::pair{2, 4}})
    {
      SolverParameters   p = parameters(dim, 2, level);
      std::ostringstream log;
      PoissonSolver      solver(p, log);
      for (const char *a : {"1 + 0.5*sin(3*x)*cos(2*y)", "x < 1 ? 10 : 1", "1"})
        {
          solver.update_coefficient(a);
          const RunResult updated = solver.solve();
          const auto      u       = solver.solution().to_host();
          p.coefficient           = a;
          PoissonSolver   fresh(p, log);
          const RunResult r = fresh.solve();
          ASSERT_TRUE(updated.converged) << a;
          EXPECT_EQ(updated.iterations, r.iterations) << dim << "D a = " << a;
          EXPECT_EQ(updated.level_operator, r.level_operator) << a;
          EXPECT_EQ(updated.problem.coefficient, a);
          EXPECT_EQ(updated.history, r.history) << dim << "D a = " << a;
          EXPECT_EQ(u, fresh.solution().to_host()) << dim << "D a = " << a;
          EXPECT_EQ(updated.coarsest_level, r.coarsest_level) << dim << "D a = " << a;
          EXPECT_EQ(updated.coarse_solver, r.coarse_solver) << dim << "D a = " << a;
          if (level == 4)
            EXPECT_EQ(r.coarsest_level, std::string(a) == "1" ? 3 : 0) << a;
        }
      EXPECT_EQ(solver.solve().level_operator, "cartesian"); // a = 1 again: the Laplacian's operator
      EXPECT_THROW(solver.update_coefficient("x - 0.5"), std::invalid_argument);
      EXPECT_THROW(solver.update_coefficient("1 + q"), ExpressionError);
      EXPECT_TRUE(solver.solve().converged);
    }
}

// A reaction term through update_coefficients (as a time step 1/dt changes), and update_coefficient
// keeping it: each solve equals a fresh solver's with the same a and c.
TEST(PoissonSolver, UpdateCoefficientsWithAReactionEqualsAFreshSolver)
{
  for (int dim : {2, 3})
    {
      SolverParameters   p = parameters(dim, 2, dim == 3 ? 1 : 2);
      std::ostringstream log;
      PoissonSolver      solver(p, log);
      const struct
      {
        const char *a, *c;
        bool        both; ///< update_coefficients; else update_coefficient (c stays)
      } steps[] = {{"1", "100", true}, {"2 + x", "100", false}, {"1", "1e4*(1 + x*y)", true}, {"1", "0", true}};
      for (const auto &step : steps)
        {
          const std::vector<double> last = solver.solution().to_host();
          if (step.both)
            solver.update_coefficients(step.a, step.c);
          else
            solver.update_coefficient(step.a);
          // the last solution stays (a time loop's u^n, for the next step's right-hand side)
          EXPECT_EQ(solver.solution().to_host(), last) << dim << "D c = " << step.c;
          const RunResult updated = solver.solve();
          p.coefficient           = step.a;
          p.reaction              = step.c;
          PoissonSolver   fresh(p, log);
          const RunResult r = fresh.solve();
          ASSERT_TRUE(updated.converged) << step.c;
          EXPECT_EQ(updated.problem.reaction_coefficient, step.c);
          EXPECT_EQ(updated.level_operator, r.level_operator) << step.c;
          EXPECT_EQ(updated.history, r.history) << dim << "D a = " << step.a << ", c = " << step.c;
          EXPECT_EQ(solver.solution().to_host(), fresh.solution().to_host()) << dim << "D c = " << step.c;
        }
      EXPECT_EQ(solver.solve().level_operator, "cartesian"); // c = 0, a = 1: the Laplacian's again
      EXPECT_THROW(solver.update_coefficients("1", "-1"), std::invalid_argument);
      EXPECT_TRUE(solver.solve().converged);
    }
}

// A float V-cycle whose values leave float's range (a coefficient of 1e-39: A⁻¹ scales by 1e39)
// fails as a NaN or overflow and says that a double V-cycle runs it; the double cycle solves it.
// (GMRES must not read the Givens rotation of a NaN column as convergence.)
TEST(PoissonSolver, FloatCycleOutOfRangeFailsWithTheReasonAndDoubleSolves)
{
  std::ostringstream log;
  SolverParameters   p = parameters(3, 2, 2);
  p.coefficient        = "1e-39";
  p.precision          = Precision::fp32;
  const RunResult f    = run_poisson(p, log);
  EXPECT_FALSE(f.converged);
  EXPECT_NE(f.failure.find(non_finite_failure), std::string::npos) << f.failure;
  EXPECT_NE(f.failure.find("Multigrid/Precision = double"), std::string::npos) << f.failure;
  p.precision       = Precision::fp64;
  const RunResult d = run_poisson(p, log);
  EXPECT_TRUE(d.converged) << d.failure;
  EXPECT_LE(d.iterations, 10);
}
