// The coarse solve by fast diagonalization (src/multigrid/fast_diagonalization.h) against the
// Kronecker-form level operator it inverts, the rule that picks its level, and whole solves with
// it against the coarse mesh's hierarchy.
#include <tpmg/geometry.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/poisson.h>

#include <src/multigrid/fast_diagonalization.h>

#include "cpu_solve.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace tpmg;

namespace
{
  /// Solves with random b on the unknowns and returns max |A x - b| / max |b| over the unknowns,
  /// A the Kronecker-form operator of the same level and constants.
  template <int dim, int k, typename Number>
  double relative_residual(const CartesianLevel &level, const ConstantCoefficients &constants)
  {
    const LevelFastDiagonalization<Number> fd(level, constants, Backend::cpu);
    const index_t                          n = level.n_dofs();
    std::vector<Number>                    b(std::size_t(n), Number(0));
    std::mt19937                           gen(7);
    std::uniform_real_distribution<double> u(-1, 1);
    index_t                                unknowns = 0;
    for (index_t l = 0; l < level.nodes(2); ++l)
      for (index_t j = 0; j < level.nodes(1); ++j)
        for (index_t i = 0; i < level.nodes(0); ++i)
          if (!level.on_boundary(i, j, l))
            {
              b[std::size_t(level.dof_index(i, j, l))] = Number(u(gen));
              ++unknowns;
            }
    EXPECT_EQ(unknowns, fd.unknowns());
    Vector<Number> bv(n, Backend::cpu), x(n, Backend::cpu), Ax(n, Backend::cpu);
    bv.from_host(b);
    fd.solve(x, bv);
    const CartesianLaplaceOperator<dim, k, Number> A(level, Backend::cpu, nullptr, constants);
    A.vmult(Ax, x);
    const std::vector<Number> ax = Ax.to_host(), xh = x.to_host();
    double                    worst = 0, scale = 0;
    for (index_t l = 0; l < level.nodes(2); ++l)
      for (index_t j = 0; j < level.nodes(1); ++j)
        for (index_t i = 0; i < level.nodes(0); ++i)
          {
            const std::size_t g = std::size_t(level.dof_index(i, j, l));
            if (level.on_boundary(i, j, l))
              EXPECT_EQ(xh[g], Number(0)) << "a Dirichlet node was written";
            else
              {
                worst = std::max(worst, std::abs(double(ax[g]) - double(b[g])));
                scale = std::max(scale, std::abs(double(b[g])));
              }
          }
    return worst / scale;
  }

  template <int dim, int k>
  void check_level(const Domain &domain, int level_index, const ConstantCoefficients &constants)
  {
    const CartesianLevel level = make_hierarchy(domain, k, level_index).back();
    const std::string    what  = std::to_string(dim) + "D Q" + std::to_string(k) + " " + level.describe() +
                             " a = " + std::to_string(constants.diffusion) +
                             " c = " + std::to_string(constants.reaction);
    EXPECT_LE((relative_residual<dim, k, double>(level, constants)), 1e-11) << what;
    EXPECT_LE((relative_residual<dim, k, float>(level, constants)), 2e-4) << what;
  }

  template <int dim, int k>
  void check_all()
  {
    Domain d;
    d.dim   = dim;
    d.upper = {{1.0, 2.0, 0.5}};
    // every face Dirichlet; Neumann on two faces (the upper x, the lower y); only the lower x face
    // Dirichlet
    for (unsigned faces : {all_faces, all_faces & ~(1u << 1) & ~(1u << 2), 1u})
      for (const ConstantCoefficients &c : {ConstantCoefficients{}, ConstantCoefficients{2.5, 3.0}})
        {
          d.dirichlet_faces = faces;
          d.coarse_cells    = {{2, 3, 1}};
          check_level<dim, k>(d, 1, c);
        }
    // a singular level with a reaction term
    d.dirichlet_faces = 0;
    check_level<dim, k>(d, 1, ConstantCoefficients{1.0, 0.5});
  }
} // namespace

TEST(FastDiagonalization, InvertsTheKroneckerFormOperator)
{
  check_all<2, 1>();
  check_all<2, 3>();
  check_all<3, 1>();
  check_all<3, 2>();
  check_all<3, 4>();
}

TEST(FastDiagonalization, RefusesWhatItCannotSolve)
{
  Domain               d;
  const CartesianLevel whole    = make_hierarchy(d, 2, 1).back();
  CartesianLevel       periodic = whole, robin = whole, singular = whole;
  periodic.periodic        = 1u;
  robin.dirichlet_faces    = all_faces & ~1u;
  robin.robin_faces        = 1u;
  singular.dirichlet_faces = 0;
  for (const CartesianLevel &l : {periodic, robin, singular})
    EXPECT_THROW(LevelFastDiagonalization<double>(l, ConstantCoefficients{}, Backend::cpu), std::invalid_argument)
      << l.describe();
}

TEST(FastDiagonalization, CoarsestLevelIsTheFinestWithinTheExtentBelowTheFinest)
{
  Domain                            d;
  const std::vector<CartesianLevel> levels = make_hierarchy(d, 3, 5); // 1, 2, ..., 32 cells per direction
  MultigridSettings                 s;
  EXPECT_EQ(coarsest_level(levels, s), 1) << "off by default: one patch covers level 1";
  s.fast_diagonalization_extent = 64; // level 4: 16 cells, 3 * 16 - 1 = 47 unknowns per direction
  EXPECT_EQ(coarsest_level(levels, s), 4);
  EXPECT_TRUE(coarse_solve_by_fast_diagonalization(levels[4], s));
  EXPECT_FALSE(coarse_solve_by_smoother(levels[4], s));
  EXPECT_FALSE(coarse_solve_by_degree(levels[4], s));
  EXPECT_EQ(coarse_level_problem(levels[4], s), "");
  s.fast_diagonalization_extent = 46;
  EXPECT_EQ(coarsest_level(levels, s), 3);
  s.fast_diagonalization_extent = 1000; // never the finest level
  EXPECT_EQ(coarsest_level(levels, s), 4);
  s.fast_diagonalization_extent = 64;
  // not where the level operator is not the Kronecker form of constant coefficients
  MultigridSettings deformed = s, bp5 = s, varying = s;
  deformed.deformation.type = Deformation::sine;
  bp5.level_operator        = LevelOperatorType::bp5;
  varying.coefficients      = Coefficients(make_coefficient("1 + x", 3));
  for (const MultigridSettings &t : {deformed, bp5, varying})
    EXPECT_EQ(coarsest_level(levels, t), 1);
  // constant coefficients do
  MultigridSettings constant = s;
  constant.coefficients      = Coefficients(make_coefficient("2", 3), make_reaction("3", 3));
  EXPECT_EQ(coarsest_level(levels, constant), 4);
  // nor on singular, periodic or Robin levels
  Domain singular = d, periodic = d, robin = d;
  singular.dirichlet_faces = 0;
  periodic.dirichlet_faces = all_faces & ~3u;
  periodic.periodic        = 1u;
  robin.dirichlet_faces    = all_faces & ~1u;
  robin.robin_faces        = 1u;
  for (const Domain &e : {singular, periodic, robin})
    EXPECT_EQ(coarsest_level(make_hierarchy(e, 3, 5), s), 1);
  // beyond the extent on the coarse mesh's level where the dense solves cannot take it: Q1 on
  // 70 x 70 coarse cells (69² = 4761 unknowns, above the dense limit, no lower degree)
  Domain many         = d;
  many.dim            = 2;
  many.coarse_cells   = {{70, 70, 1}};
  const auto levels70 = make_hierarchy(many, 1, 1);
  EXPECT_EQ(coarsest_level(levels70, s), 0);
  EXPECT_TRUE(coarse_solve_by_fast_diagonalization(levels70[0], s));
  EXPECT_EQ(coarse_level_problem(levels70[0], s), "");
  EXPECT_NE(coarse_level_problem(levels70[0], MultigridSettings{}), "") << "the dense limit without it";
  // but not where the dense solve by degree takes it (Q2 on 40 x 40 cells: 79² unknowns, 39²
  // with Q1)
  many.coarse_cells = {{40, 40, 1}};
  const auto q2     = make_hierarchy(many, 2, 1);
  EXPECT_FALSE(coarse_solve_by_fast_diagonalization(q2[0], s));
  EXPECT_TRUE(coarse_solve_by_degree(q2[0], s));
}

TEST(FastDiagonalization, SolvesACoarseMeshTooLargeForTheDenseSolve)
{
  // Q1 on 70 x 70 coarse cells: refused down to the coarse mesh, solved with auto
  SolverParameters p = test_support::cpu_parameters(2, 1, 1);
  p.coarse_cells     = {70, 70, 1};
  p.coarse_level     = CoarseLevel::mesh;
  EXPECT_THROW(test_support::solve(p), std::invalid_argument);
  p.coarse_level    = CoarseLevel::automatic;
  const RunResult r = test_support::solve(p);
  ASSERT_TRUE(r.converged) << r.failure;
  EXPECT_EQ(r.coarsest_level, 0);
  EXPECT_EQ(r.coarse_solver, "fast diagonalization (exact)");
  EXPECT_LE(r.iterations, 8);
}

TEST(FastDiagonalization, SolvesLikeTheCoarseMeshHierarchy)
{
  // the same problem with the coarse solve on the coarse mesh's level and by fast
  // diagonalization: as many or fewer iterations, the same discretization error
  for (int dim : {2, 3})
    for (int k : {1, 3})
      {
        SolverParameters p     = test_support::cpu_parameters(dim, k, dim == 2 ? 5 : 3);
        p.coarse_level         = CoarseLevel::mesh;
        const RunResult m      = test_support::solve(p);
        p.coarse_level         = CoarseLevel::automatic;
        const RunResult   a    = test_support::solve(p);
        const std::string what = std::to_string(dim) + "D Q" + std::to_string(k);
        ASSERT_TRUE(m.converged && a.converged) << what;
        EXPECT_LE(a.iterations, m.iterations) << what;
        EXPECT_GT(a.coarsest_level, m.coarsest_level) << what;
        EXPECT_EQ(a.coarse_solver, "fast diagonalization (exact)") << what;
        EXPECT_NE(m.coarse_solver, a.coarse_solver) << what;
        ASSERT_TRUE(a.l2_error && m.l2_error);
        EXPECT_NEAR(*a.l2_error, *m.l2_error, 0.02 * *m.l2_error) << what;
      }
}
