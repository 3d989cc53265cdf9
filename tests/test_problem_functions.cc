// Problems given by functions (problem.h, ProblemFunctions), solved by run_poisson on the CPU:
// polynomial solutions of degree <= k per variable reproduced to rounding on boxes that are not
// the unit cube with non-zero boundary values (float and double V-cycles, 2D and 3D, each
// level operator that is exact there); the convergence rate k+1 of a smooth solution (also on
// a deformed mesh); the function form of the manufactured problem against the built-in one;
// the kernels against direct sums; Neumann faces with the assembled operator.
#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/robin_faces.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/vector_ops.h>

#include <gtest/gtest.h>

#include <Eigen/SparseLU>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "reference.h"

using namespace tpmg;

namespace
{
  SolverParameters user_problem(int dim, int degree, int level, const std::string &u, const std::string &f)
  {
    SolverParameters p;
    p.dim              = dim;
    p.degree           = degree;
    p.refinement_level = level;
    p.box_lower        = {0, -1, 0.5};
    p.box_upper        = {2, 1, 1.5};
    p.coarse_cells     = {2, 2, 1};
    p.rhs              = RightHandSide::function;
    p.rhs_function     = f;
    p.boundary_values  = u;
    p.exact_solution   = u;
    p.device           = DeviceChoice::cpu;
    p.verbose          = false;
    return p;
  }

  /// f = 1 on the unit box of one coarse cell, every face Dirichlet with g = 0 (GMRES to 1e-9).
  SolverParameters cpu_parameters_one(int dim, int degree, int level)
  {
    SolverParameters p;
    p.dim                = dim;
    p.degree             = degree;
    p.refinement_level   = level;
    p.rhs                = RightHandSide::one;
    p.relative_tolerance = 1e-9;
    p.device             = DeviceChoice::cpu;
    p.verbose            = false;
    return p;
  }

  RunResult solve(const SolverParameters &p)
  {
    std::ostringstream log;
    return run_poisson(p, log);
  }

  /// ‖u‖_L2 on the parameters' finest mesh (the error of u_h = 0).
  double norm_of(const SolverParameters &p)
  {
    const auto     levels = make_hierarchy(p.domain(), p.degree, p.refinement_level);
    Vector<double> zero(levels.back().n_dofs(), Backend::cpu);
    return compute_errors(levels.back(), p.deformation, Expression(p.exact_solution, p.dim), zero).l2;
  }

  // u of degree <= 2 in each variable and f = -Δu
  const char *polynomial_3d = "1 + x^2 - y*z + 3*x*y^2*z";
  const char *laplacian_3d  = "-2 - 6*x*z";
  const char *polynomial_2d = "1 + x^2 - x*y + 3*x*y^2";
  const char *laplacian_2d  = "-2 - 6*x";
} // namespace

TEST(ProblemFunctions, PolynomialSolutionIsReproduced)
{
  for (int dim : {2, 3})
    for (Precision precision : {Precision::fp32, Precision::fp64})
      for (LevelOperatorType op : {LevelOperatorType::cartesian, LevelOperatorType::bp3})
        for (int k : {2, 3})
          {
            SolverParameters p   = user_problem(dim, k, dim == 3 ? 1 : 2, dim == 3 ? polynomial_3d : polynomial_2d,
                                              dim == 3 ? laplacian_3d : laplacian_2d);
            p.precision          = precision;
            p.level_operator     = op;
            p.relative_tolerance = 1e-13;
            const RunResult r    = solve(p);
            ASSERT_TRUE(r.converged) << dim << "D k=" << k;
            ASSERT_TRUE(r.l2_error.has_value());
            EXPECT_LT(*r.l2_error / norm_of(p), 1e-10)
              << dim << "D k=" << k << " " << to_string(op) << " " << to_string(precision);
            EXPECT_LT(*r.h1_error / norm_of(p), 1e-8) << dim << "D k=" << k;
          }
}

TEST(ProblemFunctions, SmoothSolutionConvergesAtRateKPlusOne)
{
  struct Case
  {
    int                 dim, k;
    DeformationSettings deformation;
  };
  const Case cases[] = {{2, 2, {}}, {3, 1, {}}, {3, 3, {}}, {2, 3, {Deformation::sine, 0.1}}};
  for (const Case &c : cases)
    {
      const std::string u        = c.dim == 3 ? "exp(x)*sin(2*y)*cos(z)" : "exp(x)*sin(2*y)";
      const std::string f        = c.dim == 3 ? "4*exp(x)*sin(2*y)*cos(z)" : "3*exp(x)*sin(2*y)";
      double            previous = 0;
      const int         first    = c.k == 1 ? 2 : 1;
      for (int level = first; level <= first + 1; ++level)
        {
          SolverParameters p = user_problem(c.dim, c.k, level, u, f);
          p.deformation      = c.deformation;
          if (c.deformation.type != Deformation::none)
            {
              p.level_operator = LevelOperatorType::bp3;
              p.coarse_cells   = {4, 4, 2};
            }
          p.relative_tolerance = 1e-12;
          const RunResult r    = solve(p);
          ASSERT_TRUE(r.converged);
          if (level > first)
            {
              const double rate = std::log2(previous / *r.l2_error);
              EXPECT_NEAR(rate, c.k + 1, 0.35) << c.dim << "D k=" << c.k << " " << to_string(c.deformation.type);
            }
          previous = *r.l2_error;
        }
    }
}

TEST(ProblemFunctions, FunctionFormOfTheManufacturedProblem)
{
  for (int dim : {2, 3})
    {
      SolverParameters builtin;
      builtin.dim                = dim;
      builtin.degree             = 3;
      builtin.refinement_level   = 3; // Gauss k+2 against exact integrals: 1e-12 apart from level 3 on
      builtin.device             = DeviceChoice::cpu;
      builtin.verbose            = false;
      builtin.relative_tolerance = 1e-13;
      SolverParameters function  = builtin;
      function.rhs               = RightHandSide::function;
      function.exact_solution    = dim == 3 ? "sin(pi*x)*sin(pi*y)*sin(pi*z)" : "sin(pi*x)*sin(pi*y)";
      function.rhs_function      = std::to_string(dim) + "*pi^2*" + function.exact_solution;
      const RunResult a = solve(builtin), b = solve(function);
      EXPECT_EQ(a.iterations, b.iterations);
      EXPECT_NEAR(*b.l2_error, *a.l2_error, 1e-10 * *a.l2_error) << dim << "D";
      EXPECT_NEAR(*b.h1_error, *a.h1_error, 1e-10 * *a.h1_error) << dim << "D";
    }
}

TEST(ProblemFunctions, RightHandSideEqualsDirectQuadrature)
{
  // b_i = ∫ f φ_i by a plain loop over cells and Gauss points (no sum factorization), on a
  // sine-deformed 2D mesh, against assemble_rhs
  CartesianLevel level;
  level.dim      = 2;
  level.degree   = 2;
  level.cells    = {4, 3, 1};
  level.cell_end = {4, 3, 1};
  level.lower    = {-1, 0.5, 0};
  level.h        = {0.5, 0.25, 1};
  const DeformationSettings deformation{Deformation::sine, 0.1};
  ProblemFunctions          problem;
  problem.rhs = Expression("exp(x) + x*y^3", 2);
  Vector<double> b;
  assemble_rhs(level, deformation, problem, LevelOperatorType::bp3, Backend::cpu, b);
  const std::vector<double> got = b.to_host();

  const std::vector<double> vertices = deformed_vertices(level, deformation);
  const LagrangeBasis1D     basis(2);
  const Quadrature1D        q = gauss_quadrature(4); // the rule of assemble_rhs (k+2)
  std::vector<double>       expected(std::size_t(level.n_dofs()), 0.0);
  for (index_t cy = 0; cy < 3; ++cy)
    for (index_t cx = 0; cx < 4; ++cx)
      for (std::size_t qy = 0; qy < q.size(); ++qy)
        for (std::size_t qx = 0; qx < q.size(); ++qx)
          {
            const double s = q.points[qx], t = q.points[qy];
            double       x[2] = {0, 0}, J[2][2] = {{0, 0}, {0, 0}};
            for (int a = 0; a < 4; ++a)
              {
                const index_t vi = (cx + (a & 1)) + 5 * (cy + (a >> 1));
                const double  fx = (a & 1) ? s : 1 - s, fy = (a >> 1) ? t : 1 - t;
                const double  dx = (a & 1) ? 1 : -1, dy = (a >> 1) ? 1 : -1;
                for (int r = 0; r < 2; ++r)
                  {
                    x[r] += fx * fy * vertices[std::size_t(3 * vi + r)];
                    J[r][0] += dx * fy * vertices[std::size_t(3 * vi + r)];
                    J[r][1] += fx * dy * vertices[std::size_t(3 * vi + r)];
                  }
              }
            const double w = q.weights[qx] * q.weights[qy] * (J[0][0] * J[1][1] - J[0][1] * J[1][0]) *
                             (std::exp(x[0]) + x[0] * std::pow(x[1], 3));
            for (int j = 0; j <= 2; ++j)
              for (int i = 0; i <= 2; ++i)
                {
                  const index_t gx = cx * 2 + i, gy = cy * 2 + j;
                  if (gx == 0 || gy == 0 || gx == 8 || gy == 6)
                    continue;
                  expected[std::size_t(gx + 9 * gy)] += w * basis.value(unsigned(i), s) * basis.value(unsigned(j), t);
                }
          }
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-13) << i;
}

namespace
{
  /// The largest deviation of u_0 + g_h from u at the nodes of `level`, u_0 solving A u_0 = b with
  /// the assembled matrix A and b from `problem` (assemble_rhs), g_h the interpolant of its
  /// boundary values.
  double assembled_solution_error(const CartesianLevel &level, const ProblemFunctions &problem,
                                  const Eigen::SparseMatrix<double> &A, const Expression &u)
  {
    Vector<double> b, g_h;
    assemble_rhs(level, {}, problem, LevelOperatorType::cartesian, Backend::cpu, b);
    interpolate_boundary_values(level, {}, problem.boundary_values, Backend::cpu, g_h);
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(A);
    const std::vector<double>                    bh = b.to_host(), gh = g_h.to_host();
    const Eigen::VectorXd                        u0    = lu.solve(test::to_eigen(bh));
    const std::vector<double>                    gll   = LagrangeBasis1D(unsigned(level.degree)).support_points();
    double                                       worst = 0;
    for (index_t l = 0; l < level.nodes(2); ++l)
      for (index_t j = 0; j < level.nodes(1); ++j)
        for (index_t i = 0; i < level.nodes(0); ++i)
          {
            const index_t g    = level.dof_index(i, j, l);
            const double  x[3] = {level.node_coordinate(0, i, gll), level.node_coordinate(1, j, gll),
                                 level.dim == 3 ? level.node_coordinate(2, l, gll) : 0.0};
            worst              = std::max(worst, std::fabs(u0[g] + gh[std::size_t(g)] - u(x[0], x[1], x[2])));
          }
    return worst;
  }
} // namespace

// Neumann faces (x-, y+, and z- in 3D) on a non-unit box: with the assembled matrix, whose rows
// at the Neumann faces' nodes are the natural ones, A u_0 = b (f, the lifting of g on the
// Dirichlet faces, the flux h on the Neumann faces) gives u_h = u_0 + g_h equal to a polynomial u of
// degree <= 2 per variable at every node. h = du/dn, one expression for every Neumann face.
TEST(ProblemFunctions, NeumannFacesReproduceAPolynomialWithTheAssembledOperator)
{
  for (int dim : {2, 3})
    for (int k : {2, 3})
      {
        Domain d;
        d.dim                      = dim;
        d.lower                    = {0, -1, 0.5};
        d.upper                    = {2, 1, 1.5};
        d.coarse_cells             = {2, 2, 1};
        d.dirichlet_faces          = all_faces & ~(1u | 8u | 16u);
        const CartesianLevel level = make_hierarchy(d, k, 1).back();
        const std::string    u     = dim == 3 ? polynomial_3d : polynomial_2d;
        // du/dx, du/dy, du/dz of the polynomials
        const std::string ux = dim == 3 ? "(2*x + 3*y^2*z)" : "(2*x - y + 3*y^2)";
        const std::string uy = dim == 3 ? "(-z + 6*x*y*z)" : "(-x + 6*x*y)";
        const std::string uz = "(-y + 3*x*y^2)";
        ProblemFunctions  problem;
        problem.rhs             = Expression(dim == 3 ? laplacian_3d : laplacian_2d, dim);
        problem.boundary_values = Expression(u, dim);
        problem.boundary_flux =
          Expression("abs(x) < 1e-9 ? -" + ux + " : (abs(y - 1) < 1e-9 ? " + uy + " : -" + uz + ")", dim);
        const double worst =
          assembled_solution_error(level, problem, test::assemble_laplace(level), Expression(u, dim));
        EXPECT_LT(worst, 1e-11) << dim << "D k=" << k;
      }
}

namespace
{
  /// The polynomial problems with Neumann faces x- and y+ (and z- in 3D) on the box of
  /// user_problem: h = du/dn on those faces, one expression (the faces told apart by coordinates).
  SolverParameters neumann_problem(int dim, int degree, int level, const std::string &u, const std::string &f,
                                   const std::string &ux, const std::string &uy, const std::string &uz)
  {
    SolverParameters p = user_problem(dim, degree, level, u, f);
    p.boundary.type    = {BoundaryType::neumann, BoundaryType::dirichlet, BoundaryType::dirichlet,
                          BoundaryType::neumann, BoundaryType::neumann,   BoundaryType::dirichlet};
    p.boundary_flux    = "abs(x) < 1e-9 ? -(" + ux + ") : (abs(y - 1) < 1e-9 ? (" + uy + ") : -(" + uz + "))";
    return p;
  }
} // namespace

namespace
{
  /// The polynomial of degree <= 2 per variable through poisson_solver's path with the faces that
  /// `faces` gives (one of neumann_problem, pure_neumann): reproduced to rounding, float and
  /// double V-cycles, both smoothers, 2D and 3D, k = 2, 3; `check(r, what)` adds its own checks.
  template <class Faces, class Check>
  void polynomial_through_solver(const Faces &faces, const Check &check)
  {
    for (int dim : {2, 3})
      for (Precision precision : {Precision::fp32, Precision::fp64})
        for (int k : {2, 3})
          {
            SolverParameters p =
              dim == 3 ? faces(3, k, 1, polynomial_3d, laplacian_3d, "2*x + 3*y^2*z", "-z + 6*x*y*z", "-y + 3*x*y^2")
                       : faces(2, k, 2, polynomial_2d, laplacian_2d, "2*x - y + 3*y^2", "-x + 6*x*y", "0");
            p.precision          = precision;
            p.relative_tolerance = 1e-13;
            p.max_iterations     = 300;
            for (SmootherType smoother : {SmootherType::vertex_patch, SmootherType::chebyshev_jacobi})
              {
                p.smoother             = smoother;
                const RunResult   r    = solve(p);
                const std::string what = std::to_string(dim) + "D k=" + std::to_string(k) + " " + to_string(precision) +
                                         " " + to_string(smoother);
                ASSERT_TRUE(r.converged) << what;
                EXPECT_LT(*r.l2_error / norm_of(p), 1e-10) << what;
                EXPECT_LT(*r.h1_error / norm_of(p), 1e-8) << what;
                check(r, what);
              }
          }
  }
} // namespace

// poisson_solver's path with Neumann faces (cartesian operator; the vertex-patch smoother with its
// patches on the faces, and Chebyshev-Jacobi): the polynomial reproduced to rounding through the
// whole multigrid (transfers and coarse solve with the faces' nodes as unknowns).
TEST(ProblemFunctions, NeumannFacesReproduceAPolynomialThroughTheSolver)
{
  polynomial_through_solver(neumann_problem,
                            [](const RunResult &r, const std::string &what) { EXPECT_FALSE(r.singular) << what; });
}

// A smooth solution with Neumann faces converges at rate k+1 in L2.
TEST(ProblemFunctions, NeumannFacesConvergeAtRateKPlusOne)
{
  for (int k : {1, 2, 3})
    {
      double previous = 0;
      for (int level = 2; level <= 3; ++level)
        {
          SolverParameters p   = neumann_problem(2, k, level, "exp(x)*sin(2*y)", "3*exp(x)*sin(2*y)", "exp(x)*sin(2*y)",
                                                 "2*exp(x)*cos(2*y)", "0");
          p.relative_tolerance = 1e-12;
          p.max_iterations     = 300;
          const RunResult r    = solve(p);
          ASSERT_TRUE(r.converged) << "k=" << k << " level " << level;
          if (level > 2)
            {
              EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.35) << "k=" << k;
            }
          previous = *r.l2_error;
        }
    }
}

namespace
{
  /// The Robin coefficient of the Robin tests: linear (so that Gauss quadrature with k + 1 points
  /// integrates α u v exactly for u of degree <= 2 per variable and k >= 2), positive on the box.
  const char *robin_alpha = "(1 + 0.5*x + 0.25*y)";

  /// The polynomial problems with Robin faces x- and y+ (du/dn + α u = h) and, in 3D, the Neumann
  /// face z- on the box of user_problem; the other faces Dirichlet.
  SolverParameters robin_problem(int dim, int degree, int level, const std::string &u, const std::string &f,
                                 const std::string &ux, const std::string &uy, const std::string &uz)
  {
    SolverParameters p   = user_problem(dim, degree, level, u, f);
    p.boundary.type      = {BoundaryType::robin, BoundaryType::dirichlet, BoundaryType::dirichlet,
                            BoundaryType::robin, BoundaryType::neumann,   BoundaryType::dirichlet};
    p.robin_coefficient  = robin_alpha;
    const std::string au = std::string(robin_alpha) + "*(" + u + ")";
    p.boundary_flux =
      "abs(x) < 1e-9 ? -(" + ux + ") + " + au + " : (abs(y - 1) < 1e-9 ? (" + uy + ") + " + au + " : -(" + uz + "))";
    return p;
  }
} // namespace

// Robin faces through poisson_solver's path (the level operators' face term, the vertex patches
// on the Robin faces with their own 1D eigenpairs, Chebyshev-Jacobi's diagonal, the lifting of
// g on the Robin faces' edges): the polynomial reproduced to rounding.
TEST(ProblemFunctions, RobinFacesReproduceAPolynomialThroughTheSolver)
{
  polynomial_through_solver(robin_problem,
                            [](const RunResult &r, const std::string &what) { EXPECT_FALSE(r.singular) << what; });
}

// The same with the assembled Laplacian plus Robin term (test::assemble_robin): the right-hand
// side's flux and lifting against an independent matrix.
TEST(ProblemFunctions, RobinFacesReproduceAPolynomialWithTheAssembledOperator)
{
  for (int dim : {2, 3})
    for (int k : {2, 3})
      {
        const SolverParameters p =
          dim == 3
            ? robin_problem(3, k, 1, polynomial_3d, laplacian_3d, "2*x + 3*y^2*z", "-z + 6*x*y*z", "-y + 3*x*y^2")
            : robin_problem(2, k, 1, polynomial_2d, laplacian_2d, "2*x - y + 3*y^2", "-x + 6*x*y", "0");
        const CartesianLevel level = make_hierarchy(p.domain(), k, 1).back();
        ASSERT_EQ(level.robin_faces, 1u | 8u);
        const Expression alpha(robin_alpha, dim);
        const double     worst = assembled_solution_error(
              level, p.problem_functions(),
              test::assemble_laplace(level) +
                test::assemble_robin(level, [&](double x, double y, double z) { return alpha(x, y, z); }),
              Expression(p.exact_solution, dim));
        EXPECT_LT(worst, 1e-11) << dim << "D k=" << k;
      }
}

// A smooth solution with Robin faces and a coefficient that varies along them converges at rate
// k+1 in L2 (2D, k = 1..3; 3D k = 2).
TEST(ProblemFunctions, RobinFacesConvergeAtRateKPlusOne)
{
  struct Case
  {
    int dim, k, first_level;
  } cases[] = {{2, 1, 2}, {2, 2, 2}, {2, 3, 2}, {3, 2, 1}};
  for (const Case &c : cases)
    {
      double previous = 0;
      for (int level = c.first_level; level <= c.first_level + 1; ++level)
        {
          const bool        three = c.dim == 3;
          const std::string u     = three ? "exp(x)*sin(2*y)*cos(z)" : "exp(x)*sin(2*y)";
          SolverParameters  p     = robin_problem(c.dim, c.k, level, u, three ? "4*" + u : "3*" + u, u,
                                             three ? "2*exp(x)*cos(2*y)*cos(z)" : "2*exp(x)*cos(2*y)",
                                             three ? "-exp(x)*sin(2*y)*sin(z)" : "0");
          p.robin_coefficient     = "1 + x^2 + y^2";
          p.boundary_flux = "abs(x) < 1e-9 ? -(" + u + ") + (1 + x^2 + y^2)*(" + u + ") : (abs(y - 1) < 1e-9 ? (" +
                            (three ? "2*exp(x)*cos(2*y)*cos(z)" : "2*exp(x)*cos(2*y)") + ") + (1 + x^2 + y^2)*(" + u +
                            ") : " + (three ? "exp(x)*sin(2*y)*sin(z)" : "0") + ")";
          p.relative_tolerance = 1e-12;
          p.max_iterations     = 300;
          const RunResult r    = solve(p);
          ASSERT_TRUE(r.converged) << c.dim << "D k=" << c.k << " level " << level;
          if (level > c.first_level)
            {
              EXPECT_NEAR(std::log2(previous / *r.l2_error), c.k + 1, 0.35) << c.dim << "D k=" << c.k;
            }
          previous = *r.l2_error;
        }
    }
}

// Iterations of GMRES + V-cycle to 1e-9 with Robin faces stay within +1 of the same problem with
// Dirichlet faces everywhere, both smoothers, levels 2..4 (2D) and 2..3 (3D).
TEST(ProblemFunctions, RobinFacesIterationsStayNearTheDirichletCount)
{
  struct Case
  {
    int dim, k, level;
  } cases[] = {{2, 1, 4}, {2, 3, 3}, {2, 6, 2}, {3, 2, 2}, {3, 4, 1}};
  for (const Case &c : cases)
    for (SmootherType smoother : {SmootherType::vertex_patch, SmootherType::chebyshev_jacobi})
      {
        const std::string u         = c.dim == 3 ? "exp(x)*sin(2*y)*cos(z)" : "exp(x)*sin(2*y)";
        SolverParameters  robin     = robin_problem(c.dim, c.k, c.level, u, c.dim == 3 ? "4*" + u : "3*" + u, u,
                                               c.dim == 3 ? "2*exp(x)*cos(2*y)*cos(z)" : "2*exp(x)*cos(2*y)",
                                               c.dim == 3 ? "-exp(x)*sin(2*y)*sin(z)" : "0");
        robin.smoother              = smoother;
        robin.relative_tolerance    = 1e-9;
        SolverParameters dirichlet  = robin;
        dirichlet.boundary          = BoundaryConditions{};
        dirichlet.boundary_flux     = "0";
        dirichlet.robin_coefficient = "0";
        const RunResult rr = solve(robin), rd = solve(dirichlet);
        ASSERT_TRUE(rr.converged && rd.converged);
        EXPECT_LE(rr.iterations, rd.iterations + 1)
          << c.dim << "D k=" << c.k << " level " << c.level << " " << to_string(smoother) << ": " << rr.iterations
          << " against " << rd.iterations;
      }
}

namespace
{
  /// h = du/dn on every face of user_problem's box [0, 2] x [-1, 1] (x [0.5, 1.5]), the faces told
  /// apart by their coordinates.
  std::string flux_on_every_face(int dim, const std::string &ux, const std::string &uy, const std::string &uz)
  {
    const std::string z = dim == 3 ? "(abs(z - 0.5) < 1e-9 ? -(" + uz + ") : (" + uz + "))" : "0";
    return "abs(x) < 1e-9 ? -(" + ux + ") : (abs(x - 2) < 1e-9 ? (" + ux + ") : (abs(y + 1) < 1e-9 ? -(" + uy +
           ") : (abs(y - 1) < 1e-9 ? (" + uy + ") : " + z + ")))";
  }

  /// A problem without a Dirichlet face: every face Neumann, h from u's derivatives.
  SolverParameters pure_neumann(int dim, int degree, int level, const std::string &u, const std::string &f,
                                const std::string &ux, const std::string &uy, const std::string &uz)
  {
    SolverParameters p = user_problem(dim, degree, level, u, f);
    p.boundary.type.fill(BoundaryType::neumann);
    p.boundary_values = "0";
    p.boundary_flux   = flux_on_every_face(dim, ux, uy, uz);
    return p;
  }

  /// cos(pi x / 2) cos(pi y) (cos(pi (z - 1/2))) + c on user_problem's box: zero flux on every
  /// face, mean c.
  SolverParameters cosine_neumann(int dim, int degree, int level, const std::string &c)
  {
    const std::string u = std::string("cos(pi*x/2)*cos(pi*y)") + (dim == 3 ? "*cos(pi*(z - 0.5))" : "");
    const std::string f = (dim == 3 ? "2.25*pi^2*" : "1.25*pi^2*") + u;
    SolverParameters  p = pure_neumann(dim, degree, level, u + " + " + c, f, "0", "0", "0");
    p.boundary_flux     = "0";
    return p;
  }
} // namespace

// Pure Neumann (no Dirichlet face, u up to a constant): the polynomial reproduced to rounding.
// The data are compatible, so the right-hand side's sum is rounding and no warning is given; the
// solution is shifted to the exact solution's mean.
TEST(ProblemFunctions, PureNeumannReproducesAPolynomialThroughTheSolver)
{
  polynomial_through_solver(pure_neumann, [](const RunResult &r, const std::string &what) {
    EXPECT_TRUE(r.singular) << what;
    EXPECT_LT(r.compatibility_relative, 1e-12) << what;
    EXPECT_TRUE(r.warnings.empty()) << what;
  });
}

// Pure Neumann with a smooth solution: rate k+1 in L2 towards u, whose mean is 3 (the solver's
// zero-mean iterate shifted by about 3), with every outer solver (GMRES, CG, FMG, V-cycles).
TEST(ProblemFunctions, PureNeumannConvergesToTheExactSolutionsMean)
{
  for (int k : {1, 2, 3})
    {
      double previous = 0;
      for (int level = 2; level <= 3; ++level)
        {
          SolverParameters p   = cosine_neumann(2, k, level, "3");
          p.relative_tolerance = 1e-12;
          p.max_iterations     = 300;
          const RunResult r    = solve(p);
          ASSERT_TRUE(r.converged) << "k=" << k << " level " << level;
          EXPECT_NEAR(r.solution_shift, 3.0, 0.05) << "k=" << k;
          if (level > 2)
            {
              EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.35) << "k=" << k;
            }
          previous = *r.l2_error;
        }
    }
  for (SolverType solver : {SolverType::gmres, SolverType::cg, SolverType::fmg, SolverType::vcycle})
    {
      SolverParameters p   = cosine_neumann(3, 3, 2, "0");
      p.solver             = solver;
      p.relative_tolerance = 1e-10;
      p.max_iterations     = 300;
      const RunResult r    = solve(p);
      ASSERT_TRUE(r.converged) << to_string(solver);
      EXPECT_LT(*r.l2_error / norm_of(p), 2e-4) << to_string(solver);
      EXPECT_LT(std::fabs(r.solution_shift), 1e-3) << to_string(solver);
    }
}

namespace
{
  /// robin_problem for −∇·(a ∇u) + c u = f with the constants a = 2, c = 3: f = −2 Δu + 3 u, and
  /// on the Robin and Neumann faces the flux a ∂u/∂n (+ α u) = h.
  SolverParameters robin_problem_with_constants(int dim, int degree, int level, const std::string &u,
                                                const std::string &f, const std::string &ux, const std::string &uy,
                                                const std::string &uz)
  {
    auto             twice = [](const std::string &e) { return "2*(" + e + ")"; };
    SolverParameters p =
      robin_problem(dim, degree, level, u, twice(f) + " + 3*(" + u + ")", twice(ux), twice(uy), twice(uz));
    p.coefficient = "2";
    p.reaction    = "3";
    return p;
  }
} // namespace

// Constant coefficients with Robin and Neumann faces stay on the Laplacian's solver (cartesian
// operator, Cartesian patches with the mass term in the truncated patches, Chebyshev-Jacobi): the
// polynomial reproduced to rounding.
TEST(ProblemFunctions, ConstantCoefficientsWithRobinFacesReproduceAPolynomialThroughTheSolver)
{
  polynomial_through_solver(robin_problem_with_constants,
                            [](const RunResult &r, const std::string &what) { EXPECT_FALSE(r.singular) << what; });
}

// Robin and Neumann faces with the bp3 level operator: its rows on those faces are the natural
// ones, so with a = 1 the Cartesian patches (and Chebyshev-Jacobi) reproduce the polynomial
// through it (Gauss k+2 integrates it exactly).
TEST(ProblemFunctions, RobinFacesWithTheBP3OperatorReproduceAPolynomialThroughTheSolver)
{
  polynomial_through_solver(
    [](int dim, int k, int level, const std::string &u, const std::string &f, const std::string &ux,
       const std::string &uy, const std::string &uz) {
      SolverParameters p = robin_problem(dim, k, level, u, f, ux, uy, uz);
      p.level_operator   = LevelOperatorType::bp3;
      return p;
    },
    [](const RunResult &r, const std::string &what) {
      EXPECT_FALSE(r.singular) << what;
      EXPECT_EQ(r.level_operator, "bp3") << what;
    });
}

// A coefficient that varies in space, a = 1 + x, with Robin faces x- and y+ (the flux a ∂u/∂n +
// α u = h) on bp3, with Chebyshev-Jacobi and with the fitted patches (truncated on those faces):
// a smooth solution converges at rate k+1 in L2, both to the same errors, the fitted patches in
// no more iterations.
TEST(ProblemFunctions, VaryingCoefficientWithRobinFacesConvergesAtRateKPlusOne)
{
  for (int k : {1, 2, 3})
    {
      double previous = 0;
      for (int level = 2; level <= 3; ++level)
        {
          SolverParameters p   = robin_problem(2, k, level, "exp(x)*sin(2*y)", "(2 + 3*x)*exp(x)*sin(2*y)",
                                               "(1 + x)*exp(x)*sin(2*y)", "2*(1 + x)*exp(x)*cos(2*y)", "0");
          p.coefficient        = "1 + x";
          p.smoother           = SmootherType::chebyshev_jacobi;
          p.relative_tolerance = 1e-12;
          p.max_iterations     = 500;
          const RunResult r    = solve(p);
          p.smoother           = SmootherType::vertex_patch; // (fitted: the coefficient varies)
          const RunResult f    = solve(p);
          ASSERT_TRUE(r.converged && f.converged) << "k=" << k << " level " << level;
          EXPECT_EQ(r.level_operator, "bp3");
          EXPECT_NEAR(*f.l2_error, *r.l2_error, 1e-6 * *r.l2_error) << "k=" << k << " level " << level;
          EXPECT_LE(f.iterations, r.iterations) << "k=" << k << " level " << level;
          if (level > 2)
            {
              EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.35) << "k=" << k;
            }
          previous = *r.l2_error;
        }
    }
}

// Every face Neumann and a reaction term c = 5 (the heat equation's insulated box, a time step):
// not singular, so no constant is removed and the solution converges at rate k+1 to u itself,
// whose mean is 3; the iterations stay those of the Dirichlet problem of the same size (+1).
TEST(ProblemFunctions, PureNeumannWithAReactionTermIsNotSingular)
{
  for (int k : {1, 2, 3})
    {
      double previous = 0;
      for (int level = 2; level <= 3; ++level)
        {
          SolverParameters p   = cosine_neumann(2, k, level, "3");
          p.reaction           = "5";
          p.rhs_function       = "1.25*pi^2*cos(pi*x/2)*cos(pi*y) + 5*(" + p.exact_solution + ")";
          p.relative_tolerance = 1e-12;
          p.max_iterations     = 300;
          const RunResult r    = solve(p);
          ASSERT_TRUE(r.converged) << "k=" << k << " level " << level;
          EXPECT_FALSE(r.singular) << "k=" << k;
          EXPECT_EQ(r.solution_shift, 0.0) << "k=" << k;
          EXPECT_EQ(r.level_operator, "cartesian") << "k=" << k;
          if (level > 2)
            {
              EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.35) << "k=" << k;
            }
          previous                   = *r.l2_error;
          SolverParameters dirichlet = p;
          dirichlet.boundary.type.fill(BoundaryType::dirichlet);
          dirichlet.boundary_flux      = "0";
          dirichlet.boundary_values    = p.exact_solution;
          dirichlet.relative_tolerance = 1e-9;
          p.relative_tolerance         = 1e-9;
          EXPECT_LE(solve(p).iterations, solve(dirichlet).iterations + 1) << "k=" << k << " level " << level;
        }
    }
}

// Incompatible data (f + 1 with f, h of a zero-mean u, no Dirichlet face): ∫(f + 1) = |Ω| = 4 is
// reported and warned about, the constant 1 is taken from f, and the solution converges to u.
TEST(ProblemFunctions, PureNeumannWithIncompatibleDataWarns)
{
  SolverParameters p   = cosine_neumann(2, 3, 3, "0");
  const double     ref = *solve(p).l2_error;
  p.rhs_function += " + 1";
  const RunResult r = solve(p);
  ASSERT_TRUE(r.converged);
  EXPECT_TRUE(r.singular);
  EXPECT_NEAR(r.compatibility_defect, 4.0, 1e-9); // the box [0, 2] x [-1, 1]
  EXPECT_GT(r.compatibility_relative, 1e-3);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("incompatible"), std::string::npos) << r.warnings[0];
  EXPECT_NEAR(*r.l2_error, ref, 1e-3 * ref);
}

// Iterations of GMRES + V-cycle to 1e-9 on pure Neumann problems stay within +2 of the same size
// with Dirichlet faces everywhere (the bound), both smoothers.
TEST(ProblemFunctions, PureNeumannIterationsStayNearTheDirichletCount)
{
  struct Case
  {
    int dim, k, level;
  } cases[] = {{2, 1, 4}, {2, 3, 3}, {2, 5, 2}, {3, 2, 2}, {3, 4, 1}};
  for (const Case &c : cases)
    for (SmootherType smoother : {SmootherType::vertex_patch, SmootherType::chebyshev_jacobi})
      {
        SolverParameters neumann   = cosine_neumann(c.dim, c.k, c.level, "0");
        neumann.smoother           = smoother;
        neumann.relative_tolerance = 1e-9;
        SolverParameters dirichlet = neumann;
        dirichlet.boundary         = BoundaryConditions{};
        dirichlet.boundary_flux    = "0";
        dirichlet.boundary_values  = neumann.exact_solution;
        const RunResult rn = solve(neumann), rd = solve(dirichlet);
        ASSERT_TRUE(rn.converged && rd.converged);
        EXPECT_LE(rn.iterations, rd.iterations + 2)
          << c.dim << "D k=" << c.k << " level " << c.level << " " << to_string(smoother) << ": " << rn.iterations
          << " against " << rd.iterations;
      }
}

// A Robin coefficient that varies a hundredfold along a face (α = 1 + 100 y² on x-): each patch
// solves with its own mean α, so the iterations stay within +2 of Dirichlet faces everywhere (a
// face-wide mean took up to +4: 10 against 6 at 2D k = 1 level 4).
TEST(ProblemFunctions, VaryingRobinCoefficientIterationsStayNearTheDirichletCount)
{
  struct Case
  {
    int dim, k, level;
  } cases[] = {{2, 1, 4}, {2, 3, 3}, {3, 2, 2}};
  for (const Case &c : cases)
    {
      SolverParameters robin     = cpu_parameters_one(c.dim, c.k, c.level);
      SolverParameters dirichlet = robin;
      robin.boundary.type        = {BoundaryType::robin, BoundaryType::dirichlet, BoundaryType::dirichlet,
                                    BoundaryType::robin, BoundaryType::dirichlet, BoundaryType::dirichlet};
      robin.robin_coefficient    = "1 + 100*y^2";
      robin.boundary_flux        = "1";
      const RunResult rr = solve(robin), rd = solve(dirichlet);
      ASSERT_TRUE(rr.converged && rd.converged);
      EXPECT_LE(rr.iterations, rd.iterations + 2)
        << c.dim << "D k=" << c.k << " level " << c.level << ": " << rr.iterations << " against " << rd.iterations;
    }
}

// The solution's values at points (Output/Point values) and its summary: a polynomial of
// degree <= k per variable is solved to the solver's tolerance, so its values anywhere, its
// range over the nodes and its mean are the exact solution's.
TEST(ProblemFunctions, PointValuesAndSummaryAreTheExactSolutions)
{
  for (int dim : {2, 3})
    {
      SolverParameters p   = user_problem(dim, 2, dim == 3 ? 1 : 2, dim == 3 ? polynomial_3d : polynomial_2d,
                                        dim == 3 ? laplacian_3d : laplacian_2d);
      p.relative_tolerance = 1e-12;
      p.point_values       = {{{0.3, -0.2, 0.7}}, {{2, 1, 1.5}}, {{1.1, 0.05, 1.2}}, {{0, -1, 0.5}}};
      const RunResult  r   = solve(p);
      const Expression u(p.exact_solution, dim);
      ASSERT_EQ(r.point_values.size(), p.point_values.size());
      for (std::size_t q = 0; q < p.point_values.size(); ++q)
        {
          const auto &x = p.point_values[q];
          EXPECT_NEAR(r.point_values[q], u(x[0], x[1], x[2]), 1e-9) << dim << "D, point " << q;
        }
      // range and mean of u on the box, sampled finely (u's extremes lie at nodes or inside cells)
      double    lo = 1e300, hi = -1e300, mean = 0;
      const int n = 40;
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j)
          for (int l = 0; l <= (dim == 3 ? n : 0); ++l)
            {
              const double v = u(2.0 * i / n, -1 + 2.0 * j / n, 0.5 + double(l) / n);
              lo             = std::min(lo, v);
              hi             = std::max(hi, v);
            }
      EXPECT_GE(r.solution_min, lo - 1e-9);
      EXPECT_LE(r.solution_max, hi + 1e-9);
      EXPECT_LT(r.solution_min, lo + 0.2 * (hi - lo)); // the nodes reach near the extremes
      EXPECT_GT(r.solution_max, hi - 0.2 * (hi - lo));
      // the mean by a tensor Gauss rule of 3 points (exact for degree <= 5 per variable)
      const double g[3] = {-std::sqrt(0.6), 0.0, std::sqrt(0.6)}, w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
      double       volume = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int l = 0; l < (dim == 3 ? 3 : 1); ++l)
            {
              const double weight = w[i] * w[j] * (dim == 3 ? w[l] : 1.0);
              mean += weight * u(1 + g[i], g[j], 1 + 0.5 * g[l]);
              volume += weight;
            }
      EXPECT_NEAR(r.solution_mean, mean / volume, 1e-9) << dim << "D";
    }
}

// An expression that does not parse, given through the API: the error names its field.
TEST(ProblemFunctions, ExpressionErrorsNameTheirField)
{
  SolverParameters p = user_problem(2, 2, 1, polynomial_2d, laplacian_2d);
  p.boundary_values  = "1 + x^";
  try
    {
      solve(p);
      FAIL() << "no error";
    }
  catch (const ExpressionError &e)
    {
      EXPECT_NE(std::string(e.what()).find("SolverParameters::boundary_values = '1 + x^'"), std::string::npos)
        << e.what();
    }
}

// The manufactured solution as an expression gives the errors of the built-in host loop on a
// The built-in right-hand side as an expression through assemble_rhs (Gauss k+2, the solver's
// path on deformed meshes) against the host loop of assemble_rhs_deformed (k+3): equal up to the
// quadrature error of the smooth integrands, for the manufactured f and for f = 1 (exact there).
TEST(ProblemFunctions, BuiltInRightHandSideExpressionGivesTheDeformedIntegrals)
{
  for (int dim : {2, 3})
    for (const DeformationSettings &def :
         {DeformationSettings{Deformation::sine, 0.15}, DeformationSettings{Deformation::kershaw, 0.3}})
      for (RightHandSide rhs : {RightHandSide::manufactured, RightHandSide::one})
        {
          Domain d;
          d.dim                    = dim;
          d.lower                  = {-1, 0.5, 0};
          d.upper                  = {1, 2, 3};
          d.coarse_cells           = {3, 2, 1}; // Kershaw: cells_x % 6 == 0, cells_y even
          const CartesianLevel lev = make_hierarchy(d, 3, 2).back();
          Vector<double>       host, expr;
          assemble_rhs_deformed(lev, def, rhs, Backend::cpu, host);
          ProblemFunctions f;
          f.rhs = manufactured_right_hand_side(lev, rhs);
          assemble_rhs(lev, def, f, LevelOperatorType::bp5, Backend::cpu, expr);
          const std::vector<double> a = host.to_host(), b = expr.to_host();
          ASSERT_EQ(a.size(), b.size());
          double diff = 0, norm = 0;
          for (std::size_t i = 0; i < a.size(); ++i)
            {
              diff = std::max(diff, std::fabs(a[i] - b[i]));
              norm = std::max(norm, std::fabs(a[i]));
            }
          EXPECT_GT(norm, 1e-4);
          // k+2 against k+3 points: 2e-9 (sine) and 2e-6 (Kershaw, kinked cells) of the largest
          // entry on this mesh of 12 x 8 (x 4) cells, where the L2 error of Q_3 is about 1e-4 of u
          EXPECT_LT(diff, (rhs == RightHandSide::one ? 1e-13 : 1e-5) * norm)
            << dim << "D " << to_string(def.type) << " " << to_string(rhs);
        }
}

// deformed mesh (the GPU computes them this way).
TEST(ProblemFunctions, ManufacturedSolutionExpressionGivesTheDeformedErrors)
{
  for (int dim : {2, 3})
    {
      Domain d;
      d.dim                         = dim;
      d.lower                       = {-1, 0.5, 0};
      d.upper                       = {1, 2, 3};
      d.coarse_cells                = {2, 1, 2};
      const CartesianLevel      lev = make_hierarchy(d, 3, 1).back();
      const DeformationSettings sine{Deformation::sine, 0.15};
      Vector<double>            u_h;
      interpolate_boundary_values(lev, sine, Expression("0.3 + x*y", dim), Backend::cpu, u_h); // some u_h
      const ErrorNorms host = compute_errors_deformed(lev, sine, u_h);
      const ErrorNorms expr = compute_errors(lev, sine, manufactured_solution(lev), u_h);
      EXPECT_NEAR(expr.l2, host.l2, 1e-12 * host.l2) << dim << "D";
      EXPECT_NEAR(expr.h1_semi, host.h1_semi, 1e-12 * host.h1_semi) << dim << "D";
      EXPECT_GT(host.l2, 0.1);
    }
}

namespace
{
  /// a = 1 + sin(x) cos(y) / 2 on user_problem's box and f = −∇·(a ∇u) for its u
  /// (f = −a Δu − ∇a · ∇u, Δu = −3u in 2D, −4u in 3D).
  const char *smooth_coefficient = "1 + 0.5*sin(x)*cos(y)";
  std::string coefficient_rhs(int dim)
  {
    const std::string z = dim == 3 ? "*cos(z)" : "";
    return std::to_string(dim == 3 ? 4 : 3) + "*(1 + 0.5*sin(x)*cos(y))*exp(x)*sin(2*y)" + z +
           " - 0.5*cos(x)*cos(y)*exp(x)*sin(2*y)" + z + " + sin(x)*sin(y)*exp(x)*cos(2*y)" + z;
  }
} // namespace

namespace
{
  /// −∇·(a ∇u) + c u = f on user_problem's box (a smooth or 1, c given or none) for a smooth u with
  /// non-zero boundary values, on two levels: the L2 rate k+1 of the bp3/bp5 operator that runs
  /// (cartesian hands over to bp3) with the fitted patches.
  struct RateCase
  {
    int                 dim, k;
    LevelOperatorType   op;
    DeformationSettings deformation;
    bool                with_a;
    std::string         reaction; ///< empty: none
  };
  void expect_rate_k_plus_one(const RateCase &c)
  {
    const std::string u = c.dim == 3 ? "exp(x)*sin(2*y)*cos(z)" : "exp(x)*sin(2*y)";
    // f = −∇·(a ∇u) + c u; −Δu = 3u (2D), 4u (3D)
    const std::string f = (c.with_a ? coefficient_rhs(c.dim) : std::to_string(c.dim == 3 ? 4 : 3) + "*" + u) +
                          (c.reaction.empty() ? "" : " + " + c.reaction + "*" + u);
    const std::string what = std::to_string(c.dim) + "D k=" + std::to_string(c.k) + " " + to_string(c.op) +
                             (c.reaction.empty() ? "" : ", c = " + c.reaction);
    double    previous = 0;
    const int first    = c.k == 1 ? 2 : 1;
    for (int level = first; level <= first + 1; ++level)
      {
        SolverParameters p = user_problem(c.dim, c.k, level, u, f);
        if (c.with_a)
          p.coefficient = smooth_coefficient;
        if (!c.reaction.empty())
          p.reaction = c.reaction;
        p.level_operator = c.op;
        p.deformation    = c.deformation;
        if (c.deformation.type != Deformation::none)
          p.coarse_cells = {4, 4, 2};
        p.relative_tolerance = 1e-12;
        const RunResult r    = solve(p);
        ASSERT_TRUE(r.converged) << what;
        EXPECT_EQ(r.problem.coefficient, c.with_a ? smooth_coefficient : "1");
        EXPECT_EQ(r.problem.reaction_coefficient, c.reaction.empty() ? "0" : c.reaction);
        // constants on a box: cartesian and the Cartesian patches carry them; else bp3/bp5 and
        // fitted patches (the smoother sees a and c)
        const bool constants = c.op == LevelOperatorType::cartesian && c.deformation.type == Deformation::none &&
                               !p.coefficients().varying();
        EXPECT_EQ(r.level_operator, constants ? "cartesian" : c.op == LevelOperatorType::bp5 ? "bp5" : "bp3") << what;
        EXPECT_EQ(r.kernel_optimization == "fitted patches", !constants) << what;
        if (level > first)
          {
            const double rate = std::log2(previous / *r.l2_error);
            EXPECT_NEAR(rate, c.k + 1, 0.35) << what;
          }
        previous = *r.l2_error;
      }
  }
} // namespace

// −∇·(a ∇u) = f with a smooth coefficient and non-zero boundary values (the lifting carries a):
// L2 rate k+1 with bp3 (what cartesian hands over to) and bp5, on the box and a deformed mesh.
TEST(ProblemFunctions, VariableCoefficientConvergesAtRateKPlusOne)
{
  for (const RateCase &c :
       {RateCase{2, 2, LevelOperatorType::bp3, {}, true, ""}, RateCase{3, 1, LevelOperatorType::bp3, {}, true, ""},
        RateCase{3, 3, LevelOperatorType::bp5, {}, true, ""},
        RateCase{2, 3, LevelOperatorType::bp3, {Deformation::sine, 0.1}, true, ""}})
    expect_rate_k_plus_one(c);
}

// −∇·(a ∇u) + c u = f with a varying reaction coefficient (with and without a, the cartesian
// choice handing over to bp3 for c alone; bp5; a deformed mesh) and non-zero boundary values (the
// lifting carries c): L2 rate k+1.
TEST(ProblemFunctions, ReactionTermConvergesAtRateKPlusOne)
{
  const std::string c = "20*(1 + x*x)";
  for (const RateCase &r :
       {RateCase{2, 2, LevelOperatorType::cartesian, {}, false, c}, RateCase{3, 2, LevelOperatorType::bp3, {}, true, c},
        RateCase{2, 3, LevelOperatorType::bp5, {}, true, c},
        RateCase{2, 3, LevelOperatorType::bp3, {Deformation::sine, 0.1}, true, c},
        RateCase{3, 2, LevelOperatorType::cartesian, {}, false, "30"}}) // (constant: the Laplacian's kernels)
    expect_rate_k_plus_one(r);
}

// From a Laplacian to a mass-dominated operator (c h² from 0 to 1e3, as small time steps give),
// constant and varying: the fitted surrogates carry c, so the iterations do not grow.
TEST(ProblemFunctions, ReactionKeepsTheIterationsOfTheLaplacian)
{
  for (int dim : {2, 3})
    {
      SolverParameters p   = cpu_parameters_one(dim, 3, dim == 3 ? 2 : 3);
      p.relative_tolerance = 1e-8;
      p.level_operator     = LevelOperatorType::bp3;
      p.patch_geometry     = PatchGeometry::fitted; // the same smoother for c = 0
      const RunResult base = solve(p);
      ASSERT_TRUE(base.converged);
      for (const char *c : {"1", "1e4", "1e6", "1e5*(1 + sin(5*x))"})
        {
          p.reaction        = c;
          const RunResult r = solve(p);
          ASSERT_TRUE(r.converged) << c;
          EXPECT_LE(r.iterations, base.iterations + 1) << dim << "D c = " << c;
          std::printf("[reaction] %dD k=3: c = 0 %d iterations, c = %s %d\n", dim, base.iterations, c, r.iterations);
        }
    }
}

// Constant a and c (an implicit time step's c = 1/Δt) keep the Laplacian's own solver: the
// Kronecker-form operator and the Cartesian patch kernels with their eigenvalue sums shifted,
// with the Laplacian's iterations; the solution is that of bp3 with fitted patches, which
// evaluate the same constants at their points.
TEST(ProblemFunctions, ConstantCoefficientsKeepTheLaplaciansSolver)
{
  for (int dim : {2, 3})
    {
      SolverParameters p        = cpu_parameters_one(dim, 3, dim == 3 ? 2 : 3);
      p.exact_solution          = "";
      p.point_values            = {{{0.3, 0.6, 0.7}}};
      const RunResult laplacian = solve(p);
      ASSERT_TRUE(laplacian.converged);
      const struct
      {
        const char *a, *c;
      } cases[] = {{"1", "1"}, {"1", "1e3"}, {"1", "1e6"}, {"2.5", "0"}, {"0.5", "40"}};
      for (const auto &ac : cases)
        {
          p.coefficient     = ac.a;
          p.reaction        = ac.c;
          p.level_operator  = LevelOperatorType::cartesian;
          p.patch_geometry  = PatchGeometry::automatic;
          const RunResult r = solve(p);
          ASSERT_TRUE(r.converged) << ac.a << ", " << ac.c;
          EXPECT_EQ(r.level_operator, "cartesian");
          EXPECT_NE(r.kernel_optimization, "fitted patches");
          EXPECT_LE(r.iterations, laplacian.iterations + 1) << dim << "D a = " << ac.a << ", c = " << ac.c;
          p.level_operator   = LevelOperatorType::bp3;
          p.patch_geometry   = PatchGeometry::fitted;
          const RunResult bp = solve(p);
          ASSERT_TRUE(bp.converged);
          EXPECT_EQ(bp.kernel_optimization, "fitted patches");
          ASSERT_EQ(r.point_values.size(), 1u);
          EXPECT_NEAR(r.point_values[0], bp.point_values[0], 1e-7 * std::fabs(bp.point_values[0]))
            << dim << "D a = " << ac.a << ", c = " << ac.c;
          std::printf("[constant a, c] %dD k=3: a = %s, c = %s: %d iterations (Laplacian %d; bp3, fitted %d)\n", dim,
                      ac.a, ac.c, r.iterations, laplacian.iterations, bp.iterations);
        }
    }
}

// A coefficient that is 1 (however written: the constant folds) leaves the Laplacian's solve as
// it was; a = 2 halves the solution of f = 1 (the operator's a at the points, not an average).
TEST(ProblemFunctions, ConstantCoefficientScalesTheSolution)
{
  for (int dim : {2, 3})
    {
      SolverParameters p  = cpu_parameters_one(dim, 2, 2);
      p.exact_solution    = "";
      p.level_operator    = LevelOperatorType::bp3;
      p.point_values      = {{{0.5, 0.5, 0.5}}};
      const RunResult one = solve(p);
      p.coefficient       = "3 - 2";
      EXPECT_FALSE(make_coefficient(p.coefficient, dim).has_value());
      const RunResult folded = solve(p);
      p.coefficient          = "2";
      const RunResult two    = solve(p);
      ASSERT_EQ(one.point_values.size(), 1u);
      ASSERT_EQ(two.point_values.size(), 1u);
      EXPECT_EQ(folded.iterations, one.iterations);
      EXPECT_EQ(folded.point_values[0], one.point_values[0]);
      EXPECT_NEAR(two.point_values[0], 0.5 * one.point_values[0], 1e-8 * std::fabs(one.point_values[0]));
    }
}

// GMRES + float V-cycle to 1e-8 with coefficients of contrast 10 (smooth, and layered: a jump
// across x = 1/2 on the faces of every level) within 1.5 times the iterations of a = 1 at the
// same size; contrast 1000 converges (docs/method.md records its counts).
TEST(ProblemFunctions, CoefficientContrastKeepsTheIterationsNearTheLaplacians)
{
  for (int dim : {2, 3})
    for (int k : {3})
      for (int level = 2; level <= (dim == 3 ? 3 : 4); ++level)
        {
          SolverParameters p   = cpu_parameters_one(dim, k, level);
          p.relative_tolerance = 1e-8;
          p.level_operator     = LevelOperatorType::bp3;
          p.patch_geometry     = PatchGeometry::fitted; // the same smoother for a = 1
          const RunResult base = solve(p);
          ASSERT_TRUE(base.converged);
          for (const char *a : {"1 + 9*(sin(pi*x)*sin(pi*y))^2", "x < 0.5 ? 10 : 1", "x < 0.5 ? 1000 : 1"})
            {
              p.coefficient     = a;
              const RunResult r = solve(p);
              ASSERT_TRUE(r.converged) << a;
              if (std::string(a).find("1000") == std::string::npos)
                {
                  EXPECT_LE(r.iterations, 1.5 * base.iterations)
                    << dim << "D k=" << k << " level " << level << " a = " << a;
                }
              std::printf("[coefficient] %dD k=%d level %d: a = 1 %d iterations, a = %s %d\n", dim, k, level,
                          base.iterations, a, r.iterations);
            }
        }
}

namespace
{
  /// The quarter annulus 1 <= r <= 2, 0 <= theta <= pi/2 as the image of the unit square, with
  /// u = (r² - 1)(4 - r²) x y, zero on the whole boundary, and f = −Δu.
  SolverParameters quarter_annulus(int k, int level, Mapping mapping)
  {
    SolverParameters p;
    p.dim                  = 2;
    p.degree               = k;
    p.refinement_level     = level;
    p.coarse_cells         = {1, 2, 1};
    p.deformation.type     = Deformation::function;
    p.deformation_function = "(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y)";
    p.deformation.mapping  = mapping;
    p.level_operator       = LevelOperatorType::bp3;
    p.rhs                  = RightHandSide::function;
    p.rhs_function         = "32*x^3*y + 32*x*y^3 - 60*x*y";
    p.exact_solution       = "(x^2 + y^2 - 1)*(4 - x^2 - y^2)*x*y";
    p.relative_tolerance   = 1e-12;
    p.device               = DeviceChoice::cpu;
    p.verbose              = false;
    return p;
  }
} // namespace

// A domain given by a map with curved boundaries: with exact cells the L2 error falls at the
// rate k+1 (k = 2..4); straight cells through the mapped vertices (multilinear) only at the rate 2,
// as the boundary condition sits on the polygon.
TEST(ProblemFunctions, MappedQuarterAnnulusConvergesAtRateKPlusOne)
{
  for (int k : {2, 3, 4})
    for (Mapping mapping : {Mapping::automatic, Mapping::multilinear})
      {
        double previous = 0;
        for (int level = 2; level <= 3; ++level)
          {
            const RunResult r = solve(quarter_annulus(k, level, mapping));
            ASSERT_TRUE(r.converged);
            EXPECT_EQ(r.problem.mapping, mapping == Mapping::automatic ? "exact" : "multilinear");
            if (level > 2)
              {
                const double rate = std::log2(previous / *r.l2_error);
                if (mapping == Mapping::automatic)
                  EXPECT_NEAR(rate, k + 1, 0.35) << "k=" << k;
                else
                  EXPECT_NEAR(rate, 2, 0.35) << "k=" << k << " multilinear";
              }
            previous = *r.l2_error;
          }
      }
}

// The flux integrals and the Robin weights on mapped faces take the faces' measure: with every
// face Neumann and h = 1 the right-hand side sums to the boundary's length or area, and the Robin
// weights of α = 1 sum to each face's. On the quarter annulus (arcs r = 2 and 1: π and π/2, the
// straight sides 1), the cylinder section (arcs times the height 2: 2π and π, the flat sides 2,
// the ends 3π/4) with exact cells, and on the sine mesh, whose faces stay the unit box's.
TEST(ProblemFunctions, FluxAndRobinTermsOnMappedFacesTakeTheFacesMeasure)
{
  struct Case
  {
    int                 dim;
    std::string         map;
    Deformation         type;
    std::vector<double> faces; ///< each face's measure
  };
  const double pi = std::acos(-1.0);
  for (const Case &c : {Case{2, "(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y)", Deformation::function, {pi / 2, pi, 1, 1}},
                        Case{3,
                             "(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y); 2*z",
                             Deformation::function,
                             {pi, 2 * pi, 2, 2, 0.75 * pi, 0.75 * pi}},
                        Case{3, "", Deformation::sine, {1, 1, 1, 1, 1, 1}}})
    for (int k : {2, 3})
      {
        DeformationSettings d;
        d.type      = c.type;
        d.amplitude = 0.1;
        if (c.type == Deformation::function)
          d.map = make_deformation_map(c.map, c.dim);
        Domain domain;
        domain.dim                 = c.dim;
        domain.coarse_cells        = {1, 2, 2};
        domain.dirichlet_faces     = 0;
        domain.robin_faces         = all_faces;
        const CartesianLevel level = make_hierarchy(domain, k, 2).back();
        const std::string    what =
          std::to_string(c.dim) + "D " + (c.map.empty() ? "sine" : c.map) + " k=" + std::to_string(k);
        ProblemFunctions problem;
        problem.rhs             = Expression("0", c.dim);
        problem.boundary_values = Expression("0", c.dim);
        problem.boundary_flux   = Expression("1", c.dim);
        Vector<double> b;
        assemble_rhs(level, d, problem, LevelOperatorType::bp3, Backend::cpu, b);
        double boundary = 0;
        for (double f : c.faces)
          boundary += f;
        EXPECT_NEAR(sum(b), boundary, 1e-9 * boundary) << what;
        const RobinFaces<double> robin(level, Expression("1", c.dim), Backend::cpu, d);
        for (int face = 0; face < 2 * c.dim; ++face)
          {
            double total = 0;
            for (double w : robin.cell_integrals(face))
              total += w;
            EXPECT_NEAR(total, c.faces[std::size_t(face)], 1e-9 * c.faces[std::size_t(face)])
              << what << " face " << face;
          }
      }
}

namespace
{
  /// The quarter annulus with exact cells, the outer arc Neumann, the inner arc Robin with
  /// α = 1 + y, h = ∂u/∂n (+ α u) with the physical normal, u = x y + x².
  SolverParameters annulus_with_natural_faces(int k, int level)
  {
    SolverParameters  p = quarter_annulus(k, level, Mapping::automatic);
    const std::string u = "x*y + x^2", r = "sqrt(x^2 + y^2)", dudr = "(2*x*y + 2*x^2)/" + r;
    p.rhs_function      = "-2";
    p.exact_solution    = u;
    p.boundary_values   = u;
    p.boundary.type     = {BoundaryType::robin,     BoundaryType::neumann,   BoundaryType::dirichlet,
                           BoundaryType::dirichlet, BoundaryType::dirichlet, BoundaryType::dirichlet};
    p.robin_coefficient = "1 + y";
    p.boundary_flux     = r + " > 1.5 ? " + dudr + " : -" + dudr + " + (1 + y)*(" + u + ")";
    p.max_iterations    = 500;
    return p;
  }
} // namespace

// Neumann and Robin faces on a mapped domain (the quarter annulus, bp3): rate k+1 in L2 with
// Chebyshev-Jacobi and with the fitted patches (those on the faces truncated), the same errors
// from both to the solver's tolerance; the fitted patches in no more iterations.
TEST(ProblemFunctions, NeumannAndRobinFacesOnAMappedDomainConvergeAtRateKPlusOne)
{
  for (int k : {2, 3})
    {
      double previous = 0;
      for (int level = 2; level <= 3; ++level)
        {
          SolverParameters p     = annulus_with_natural_faces(k, level);
          p.smoother             = SmootherType::chebyshev_jacobi;
          const RunResult jacobi = solve(p);
          p.smoother             = SmootherType::vertex_patch; // (fitted on the mapped mesh)
          const RunResult res    = solve(p);
          ASSERT_TRUE(res.converged && jacobi.converged) << "k=" << k << " level " << level;
          EXPECT_NEAR(*res.l2_error, *jacobi.l2_error, 1e-6 * *res.l2_error) << "k=" << k << " level " << level;
          EXPECT_LE(res.iterations, jacobi.iterations) << "k=" << k << " level " << level;
          if (level > 2)
            {
              EXPECT_NEAR(std::log2(previous / *res.l2_error), k + 1, 0.35) << "k=" << k;
            }
          previous = *res.l2_error;
        }
    }
}

// The fitted patches with Neumann and Robin faces: GMRES + V-cycle to 1e-9 on deformed meshes
// (the quarter annulus in 2D, the sine-deformed box in 3D) takes at most one iteration more than
// the same mesh with Dirichlet faces all round, on every level (level independence).
TEST(ProblemFunctions, FittedPatchesOnNeumannAndRobinFacesKeepTheIterations)
{
  for (int k : {1, 2, 3, 5})
    for (int level = 2; level <= 4; ++level)
      {
        SolverParameters p   = annulus_with_natural_faces(k, level);
        p.relative_tolerance = 1e-9;
        SolverParameters d   = p;
        d.boundary.type.fill(BoundaryType::dirichlet);
        const RunResult   r = solve(p), all = solve(d);
        const std::string what = "annulus k=" + std::to_string(k) + " level " + std::to_string(level);
        ASSERT_TRUE(r.converged && all.converged) << what;
        std::cout << what << ": " << r.iterations << " against " << all.iterations << "\n";
        EXPECT_LE(r.iterations, all.iterations + 1) << what << ": " << r.iterations << " against " << all.iterations;
      }
  for (int k : {2, 4})
    for (int level = 1; level <= 2; ++level)
      {
        const std::string u  = "exp(x)*sin(2*y)*cos(z)";
        SolverParameters  p  = user_problem(3, k, level, u, "4*" + u);
        p.deformation        = {Deformation::sine, 0.1};
        p.level_operator     = LevelOperatorType::bp3;
        p.boundary.type      = {BoundaryType::neumann, BoundaryType::robin,     BoundaryType::dirichlet,
                                BoundaryType::neumann, BoundaryType::dirichlet, BoundaryType::neumann};
        p.boundary_flux      = "1"; // (the iterations, not the solution: any data)
        p.robin_coefficient  = "2 + x";
        p.relative_tolerance = 1e-9;
        SolverParameters d   = p;
        d.boundary.type.fill(BoundaryType::dirichlet);
        d.boundary_flux = d.robin_coefficient = "0";
        const RunResult   r = solve(p), all = solve(d);
        const std::string what = "sine box k=" + std::to_string(k) + " level " + std::to_string(level);
        ASSERT_TRUE(r.converged && all.converged) << what;
        std::cout << what << ": " << r.iterations << " against " << all.iterations << "\n";
        EXPECT_LE(r.iterations, all.iterations + 1) << what << ": " << r.iterations << " against " << all.iterations;
      }
}

// The built-in sine deformation given as a formula, in its multilinear form, is the same mesh: the
// same iterations and errors to rounding (2D and 3D); an affine map's exact cells are its
// multilinear ones, so the two mappings solve alike there.
TEST(ProblemFunctions, MapsAsFormulasGiveTheBuiltInMeshes)
{
  for (int dim : {2, 3})
    {
      const std::string u       = dim == 3 ? "exp(x)*sin(2*y)*cos(z)" : "exp(x)*sin(2*y)";
      SolverParameters  p       = user_problem(dim, dim == 3 ? 2 : 3, 2, u, coefficient_rhs(dim));
      p.coefficient             = smooth_coefficient;
      p.level_operator          = LevelOperatorType::bp3;
      p.box_lower               = {0, 0, 0};
      p.box_upper               = {1, 1, 1};
      p.coarse_cells            = {2, 2, 2};
      p.deformation             = {Deformation::sine, 0.1};
      const RunResult   builtin = solve(p);
      const std::string bump    = std::string("0.1*sin(pi*x)*sin(pi*y)") + (dim == 3 ? "*sin(pi*z)" : "");
      p.deformation             = {};
      p.deformation.type        = Deformation::function;
      p.deformation.mapping     = Mapping::multilinear;
      p.deformation_function    = "x + " + bump + "; y + " + bump + (dim == 3 ? "; z + " + bump : "");
      const RunResult formula   = solve(p);
      ASSERT_TRUE(builtin.converged && formula.converged);
      EXPECT_EQ(formula.iterations, builtin.iterations) << dim << "D";
      EXPECT_NEAR(*formula.l2_error, *builtin.l2_error, 1e-9 * *builtin.l2_error) << dim << "D";
      // an affine map: exact and multilinear cells are the same
      p.deformation_function =
        dim == 3 ? "2*x + 0.5*y + 1; 0.3*x + 1.5*y; z - 0.2*x + 0.1*y" : "2*x + 0.5*y + 1; 0.3*x + 1.5*y";
      p.rhs_function        = "0";
      p.exact_solution      = dim == 3 ? "x*y - z + 2" : "x*y + 2";
      p.boundary_values     = p.exact_solution;
      p.coefficient         = "1";
      p.rhs                 = RightHandSide::function;
      const RunResult lin   = solve(p);
      p.deformation.mapping = Mapping::exact;
      const RunResult ex    = solve(p);
      ASSERT_TRUE(lin.converged && ex.converged);
      EXPECT_EQ(ex.iterations, lin.iterations) << dim << "D";
      EXPECT_LT(*ex.l2_error, 1e-9) << dim << "D"; // (a harmonic polynomial of degree 2: exact)
      EXPECT_LT(*lin.l2_error, 1e-9) << dim << "D";
    }
}

// GMRES + float V-cycle to 1e-8 on the mapped quarter annulus within 1.5 times the iterations of
// the box with the same operator and smoother (k = 3, levels 2..4).
TEST(ProblemFunctions, MappedQuarterAnnulusIterationsStayNearTheBox)
{
  for (int level = 2; level <= 4; ++level)
    {
      SolverParameters annulus   = quarter_annulus(3, level, Mapping::automatic);
      annulus.relative_tolerance = 1e-8;
      SolverParameters box       = annulus;
      box.deformation            = {};
      box.deformation_function   = "";
      box.patch_geometry         = PatchGeometry::fitted;
      box.exact_solution         = "";
      const RunResult a = solve(annulus), b = solve(box);
      ASSERT_TRUE(a.converged && b.converged);
      EXPECT_LE(a.iterations, 1.5 * b.iterations) << "level " << level;
      std::printf("[mapped] k=3 level %d: box %d iterations, quarter annulus %d\n", level, b.iterations, a.iterations);
    }
}
