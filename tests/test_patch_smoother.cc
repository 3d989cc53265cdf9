// Vertex-patch smoother: every kernel variant and local solver against a reference
// multiplicative Schwarz sweep with dense local solves on the assembled matrix.
#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "reference.h"
#include <kernels/common/tensor.h>
#include <kernels/smoothers/patch_common.h>
#include <kernels/smoothers/patch_fiber.h>
#include <kernels/smoothers/patch_mma.h>
#include <src/smoothers/patch_builders.h>
#include <src/smoothers/patch_geometry.h>

using namespace tpmg;
using namespace tpmg::test;

namespace
{
  struct Case
  {
    int                  dim, k;
    SmootherKernel       kernel;
    LocalSolver          solver;
    ColorOrder           order;
    KernelOptimization   opt               = KernelOptimization::basic;
    int                  patches_per_block = 0;
    ThreadStructure      threads           = ThreadStructure::automatic;
    bool                 lumped            = false; ///< GLL-lumped 1D masses (the bp5 smoother)
    ConstantCoefficients coefficients      = {};    ///< a and c of −∇·(a ∇u) + c u
  };

  std::string name(const Case &c)
  {
    const char *kn[] = {"global", "separate", "fused"};
    const char *on[] = {"basic", "linear_indexing", "conflict_free", "reduced_residual", "tensor_core"};
    return std::to_string(c.dim) + "D_k" + std::to_string(c.k) + "_" + kn[int(c.kernel)] + "_" + on[int(c.opt)] +
           (c.solver == LocalSolver::inverse_matrix ? "_inverse" : "_fd") +
           (c.order == ColorOrder::odd_first ? "_oddfirst" : "") +
           (c.patches_per_block ? "_P" + std::to_string(c.patches_per_block) : "") +
           (c.threads == ThreadStructure::column ? "_column"
            : c.threads == ThreadStructure::dof  ? "_dof"
                                                 : "") +
           (c.lumped ? "_lumped" : "") + (c.coefficients.laplacian() ? "" : "_with_a_and_c");
  }

  // A level with several patches of every color, anisotropic cells.
  CartesianLevel smoother_level(int dim, int k)
  {
    Domain d;
    d.dim   = dim;
    d.lower = {0.0, 0.0, 0.0};
    d.upper = {1.0, 1.5, 0.8};
    d.coarse_cells =
      dim == 2 ? std::array<int, 3>{5, 4, 1} : (k <= 3 ? std::array<int, 3>{4, 5, 3} : std::array<int, 3>{3, 3, 3});
    return make_hierarchy(d, k, 0).back();
  }

  /// One sweep from x0 with right-hand side b0; `alpha`: the Robin coefficient where the level
  /// has Robin faces.
  template <int dim, int k, typename Number>
  std::vector<double> run_smoother(const CartesianLevel &lev, const Case &c, const std::vector<double> &x0,
                                   const std::vector<double> &b0, bool x_is_zero = false,
                                   const std::string &alpha = "0")
  {
    PatchSmootherSettings s;
    s.kernel                                       = c.kernel;
    s.local_solver                                 = c.solver;
    s.optimization                                 = c.opt;
    s.patches_per_block                            = c.patches_per_block;
    s.thread_structure                             = c.threads;
    const auto                               robin = make_robin_faces<Number>(lev, alpha, Backend::cpu);
    CartesianLaplaceOperator<dim, k, Number> op(lev, Backend::cpu, robin, c.coefficients);
    VertexPatchSmoother<dim, k, Number>      smoother(lev, Backend::cpu, s, &op,
                                                      PatchProblem{c.lumped, c.order, c.coefficients}, robin);
    Vector<Number>                           x(lev.n_dofs(), Backend::cpu), b(lev.n_dofs(), Backend::cpu);
    x.from_host(std::vector<Number>(x0.begin(), x0.end()));
    b.from_host(std::vector<Number>(b0.begin(), b0.end()));
    smoother.smooth(x, b, false, x_is_zero);
    const auto h = x.to_host();
    return std::vector<double>(h.begin(), h.end());
  }

  /// A sweep from random x0 and one from zero (told so), double and float, against the reference
  /// sweeps with dense local solves on the assembled matrix A; `alpha`: the Robin coefficient
  /// where the level has Robin faces.
  void expect_sweeps_equal_reference(const CartesianLevel &lev, const Case &c,
                                     const Eigen::SparseMatrix<double, Eigen::RowMajor> &A,
                                     const std::string                                  &alpha = "0")
  {
    const auto       x0 = random_vector(lev, 11);
    const auto       b  = random_vector(lev, 12);
    std::vector<int> order;
    for (int i = 0; i < (1 << c.dim); ++i)
      order.push_back(c.order == ColorOrder::standard ? i : ((1 << c.dim) - 1) ^ i);
    auto ref = x0;
    reference_patch_sweep(lev, A, ref, b, order);
    const std::vector<double> zero(lev.n_dofs(), 0.0);
    auto                      ref0 = zero;
    reference_patch_sweep(lev, A, ref0, b, order);
    dispatch_dim(c.dim, [&](auto D) {
      dispatch_degree(c.k, [&](auto K) {
        constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
        if constexpr (VertexPatchSmoother<dd, kk, double>::supported())
          {
            EXPECT_LT(rel_diff(run_smoother<dd, kk, double>(lev, c, x0, b, false, alpha), ref), 1e-11);
            EXPECT_LT(rel_diff(run_smoother<dd, kk, float>(lev, c, x0, b, false, alpha), ref), 5e-5);
            EXPECT_LT(rel_diff(run_smoother<dd, kk, double>(lev, c, zero, b, true, alpha), ref0), 1e-11);
            EXPECT_LT(rel_diff(run_smoother<dd, kk, float>(lev, c, zero, b, true, alpha), ref0), 5e-5);
          }
        else
          FAIL() << "degree not supported";
      });
    });
  }

  class PatchSmootherTest : public ::testing::TestWithParam<Case>
  {};
} // namespace

TEST_P(PatchSmootherTest, SweepEqualsReference)
{
  const Case c   = GetParam();
  const auto lev = smoother_level(c.dim, c.k);
  expect_sweeps_equal_reference(lev, c,
                                assemble_laplace(lev, c.lumped, c.coefficients.diffusion, c.coefficients.reaction));
}

// Neumann faces (x-, y+, z+; their vertices carry truncated patches, BoundaryPatchKernel): every
// kernel variant and optimization the interior patches run, the basic and fiber kernels, both
// colour orders, float and double, against the reference sweep over all patches.
TEST(PatchSmoother, NeumannFacesSweepEqualsReference)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 6 : 4); ++k)
      for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
        for (KernelOptimization opt : {KernelOptimization::basic, KernelOptimization::conflict_free})
          for (bool lumped : {false, true})
            {
              if (lumped && kern == SmootherKernel::global) // (its residual is the Cartesian operator's)
                continue;
              const Case c{dim,
                           k,
                           kern,
                           LocalSolver::fast_diagonalization,
                           lumped ? ColorOrder::odd_first : ColorOrder::standard,
                           opt,
                           0,
                           ThreadStructure::automatic,
                           lumped};
              SCOPED_TRACE(name(c));
              auto lev            = smoother_level(dim, k);
              lev.dirichlet_faces = all_faces & ~(1u | 8u | 32u);
              expect_sweeps_equal_reference(lev, c, assemble_laplace(lev, lumped));
            }
}

// Robin faces x- and x+ (and y+ Neumann; 3D z+ Neumann) with α = 1 + 3x, constant on each Robin
// face (1 and 4): the patches on them solve their local problems exactly (the patch's α in the 1D
// stiffness), so a sweep equals the reference sweep with dense local solves on the assembled
// Laplacian plus Robin term; every kernel variant of the interior patches, basic and fiber
// kernels, float and double, from x0 and from zero.
TEST(PatchSmoother, RobinFacesSweepEqualsReference)
{
  const std::string alpha = "1 + 3*x";
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 6 : 4); ++k)
      for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
        for (KernelOptimization opt : {KernelOptimization::basic, KernelOptimization::conflict_free})
          {
            const Case c{dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard, opt};
            SCOPED_TRACE(name(c));
            auto lev            = smoother_level(dim, k);
            lev.dirichlet_faces = all_faces & ~(1u | 2u | 8u | 32u);
            lev.robin_faces     = 1u | 2u;
            const Expression a(alpha, dim);
            expect_sweeps_equal_reference(
              lev, c,
              assemble_laplace(lev) + assemble_robin(lev, [&](double x, double y, double z) { return a(x, y, z); }),
              alpha);
          }
}

// Constant coefficients a = 2.5, c = 40 with Robin faces x- and x+ (α = 1 + 3x, constant on each),
// y+ Neumann (3D: z+ too): the truncated patches carry a K + c M + α M_F exactly (the mass term
// in their residual and eigenvalue sums, β relative to a), so a sweep equals the reference sweep
// on the assembled a K + c M + Robin term; the interior patches in the kernels with a mass term,
// float and double, from x0 and from zero. With lumped masses on Neumann faces only: a Robin
// patch's local problem then takes the lumped mass along its face where the term has the face's
// Gauss points, a smoother but no exact local solve.
TEST(PatchSmoother, NeumannAndRobinFacesWithConstantCoefficientsSweepEqualsReference)
{
  const std::string          alpha = "1 + 3*x";
  const ConstantCoefficients ac{2.5, 40};
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, dim == 2 ? 5 : 4})
      for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::fused})
        for (KernelOptimization opt : {KernelOptimization::basic, KernelOptimization::linear_indexing})
          for (bool lumped : {false, true})
            {
              if (lumped && kern == SmootherKernel::global) // (its residual is the Cartesian operator's)
                continue;
              const Case c{dim,
                           k,
                           kern,
                           LocalSolver::fast_diagonalization,
                           ColorOrder::standard,
                           opt,
                           0,
                           ThreadStructure::automatic,
                           lumped,
                           ac};
              SCOPED_TRACE(name(c));
              auto lev                     = smoother_level(dim, k);
              lev.dirichlet_faces          = all_faces & ~(1u | 2u | 8u | 32u);
              lev.robin_faces              = lumped ? 0u : 1u | 2u;
              const std::string alpha_here = lumped ? "0" : alpha;
              const Expression  a(alpha_here, dim);
              expect_sweeps_equal_reference(
                lev, c,
                assemble_laplace(lev, lumped, ac.diffusion, ac.reaction) +
                  assemble_robin(lev, [&](double x, double y, double z) { return a(x, y, z); }),
                alpha_here);
            }
}

// A Robin coefficient that varies along the faces (and a Robin face on every side: corners and
// edges between Robin faces): the patches' local residuals hold the exact term, so the exact
// solution of A x = b is a fixed point of a sweep, and a sweep from elsewhere reduces the error
// in the energy norm although the local solves take each patch's mean α.
TEST(PatchSmoother, VaryingRobinCoefficientKeepsTheSolutionAndReducesTheError)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 5 : 3); ++k)
      {
        const std::string alpha = dim == 3 ? "0.5 + x^2 + y^2 + z" : "0.5 + x^2 + y^2";
        SCOPED_TRACE(std::to_string(dim) + "D k=" + std::to_string(k));
        auto lev            = smoother_level(dim, k);
        lev.dirichlet_faces = 0;
        lev.robin_faces     = all_faces;
        const Expression                                   a(alpha, dim);
        const Eigen::SparseMatrix<double, Eigen::RowMajor> A =
          assemble_laplace(lev) + assemble_robin(lev, [&](double x, double y, double z) { return a(x, y, z); });
        const auto                xs = random_vector(lev, 5, true);
        const std::vector<double> b  = to_std(A * to_eigen(xs));
        const Case c{dim, k, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::standard};
        const auto x0 = random_vector(lev, 6, true);
        dispatch_dim(dim, [&](auto D) {
          dispatch_degree(k, [&](auto K) {
            constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
            if constexpr (VertexPatchSmoother<dd, kk, double>::supported())
              {
                EXPECT_LT(rel_diff(run_smoother<dd, kk, double>(lev, c, xs, b, false, alpha), xs), 1e-12);
                const auto x1     = run_smoother<dd, kk, double>(lev, c, x0, b, false, alpha);
                auto       energy = [&](const std::vector<double> &x) {
                  Eigen::VectorXd e = to_eigen(x) - to_eigen(xs);
                  return e.dot(A * e);
                };
                EXPECT_LT(energy(x1), 0.5 * energy(x0));
              }
          });
        });
      }
}

static std::vector<Case> all_cases()
{
  std::vector<Case> cases;
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 10 : 5); ++k)
      for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
        {
          cases.push_back({dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard});
          if (kern != SmootherKernel::separate && (dim == 2 || k <= 3))
            cases.push_back({dim, k, kern, LocalSolver::inverse_matrix, ColorOrder::standard});
        }
  for (KernelOptimization opt :
       {KernelOptimization::linear_indexing, KernelOptimization::conflict_free, KernelOptimization::reduced_residual})
    for (int dim : {2, 3})
      for (int k = 1; k <= (dim == 2 ? 10 : 5); ++k)
        for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
          if (!(opt == KernelOptimization::reduced_residual && kern == SmootherKernel::global))
            cases.push_back({dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard, opt});
  // the tensor-core kernel (3D fused; k = 1 runs the tile kernel); k = 6..8 below
  // (OptimizedEqualBasicForHighDegrees3D)
  for (int k = 1; k <= 5; ++k)
    cases.push_back({3, k, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::standard,
                     KernelOptimization::tensor_core});
  // both thread structures of the basic kernels explicitly: 3D k = 5 has a strided z
  // (11^3 > 1024 threads), 2D column walks y
  for (ThreadStructure ts : {ThreadStructure::column, ThreadStructure::dof})
    for (int dim : {2, 3})
      for (int k = 1; k <= (dim == 2 ? 4 : 5); ++k)
        for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
          {
            cases.push_back({dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard,
                             KernelOptimization::basic, 0, ts});
            if (kern == SmootherKernel::fused && k <= 2)
              cases.push_back(
                {dim, k, kern, LocalSolver::inverse_matrix, ColorOrder::standard, KernelOptimization::basic, 0, ts});
          }
  // patches per block other than the automatic choice
  for (int P : {1, 2, 4, 8})
    cases.push_back({3, 1, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::standard,
                     KernelOptimization::conflict_free, P});
  cases.push_back({2, 2, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::standard,
                   KernelOptimization::reduced_residual, 32});
  // 3D linear_indexing (turned from k = 3, in place in double and fused float k = 4) at 1, 2
  // and 4 patches per block
  for (int P : {1, 2, 4})
    for (int k : {3, 4})
      for (SmootherKernel kern : {SmootherKernel::separate, SmootherKernel::fused})
        cases.push_back({3, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard,
                         KernelOptimization::linear_indexing, P});
  // GLL-lumped masses (the bp5 smoother; the fiber kernels are compiled per mass matrix),
  // against the sweep on the operator assembled with lumped masses
  for (KernelOptimization opt : {KernelOptimization::basic, KernelOptimization::linear_indexing,
                                 KernelOptimization::conflict_free, KernelOptimization::reduced_residual})
    for (int dim : {2, 3})
      for (int k : {2, dim == 2 ? 5 : 3, dim == 2 ? 8 : 4})
        for (SmootherKernel kern : {SmootherKernel::separate, SmootherKernel::fused})
          cases.push_back({dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard, opt, 0,
                           ThreadStructure::automatic, true});
  cases.push_back({2, 3, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::odd_first});
  cases.push_back({3, 2, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::odd_first});
  // constant coefficients a = 2.5, c = 40 (c h² about 1 on these cells: the mass term matters as
  // much as the stiffness): every kernel family (basic with both local solvers and thread
  // structures, the fiber kernels in each optimization, the tile kernel at k = 1), every variant,
  // the lumped masses, against the sweep on the assembled a K + c M; conflict_free, which has no
  // mass term, with a = 2.5 alone
  const ConstantCoefficients ac{2.5, 40}, a_only{2.5, 0};
  for (int dim : {2, 3})
    for (int k : {1, 2, 3})
      for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
        {
          for (KernelOptimization opt : {KernelOptimization::basic, KernelOptimization::linear_indexing,
                                         KernelOptimization::conflict_free, KernelOptimization::reduced_residual})
            if (!(opt == KernelOptimization::reduced_residual && kern == SmootherKernel::global))
              cases.push_back({dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard, opt, 0,
                               ThreadStructure::automatic, k == 3 && kern != SmootherKernel::global,
                               opt == KernelOptimization::conflict_free ? a_only : ac});
          cases.push_back({dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard,
                           KernelOptimization::basic, 0, ThreadStructure::dof, false, ac});
        }
  cases.push_back({3, 2, SmootherKernel::fused, LocalSolver::inverse_matrix, ColorOrder::standard,
                   KernelOptimization::basic, 0, ThreadStructure::automatic, false, ac});
  cases.push_back({2, 2, SmootherKernel::fused, LocalSolver::inverse_matrix, ColorOrder::standard,
                   KernelOptimization::basic, 0, ThreadStructure::automatic, false, ac});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Variants, PatchSmootherTest, ::testing::ValuesIn(all_cases()),
                         [](const auto &param_info) { return name(param_info.param); });

// `automatic` follows the H100 measurement (docs/performance/smoother.md, "Thread structure");
// the optimized kernels are columns.
TEST(PatchSmoother, AutomaticThreadStructure)
{
  auto per_dof = [](ThreadStructure t, int dim, int k, KernelOptimization opt, bool dual) {
    PatchSmootherSettings s;
    s.thread_structure = t;
    s.optimization     = opt;
    return resolve_smoother(s, dim, k, dual ? Precision::fp64 : Precision::fp32).per_dof;
  };
  const auto basic = KernelOptimization::basic, cf = KernelOptimization::conflict_free;
  const auto a = ThreadStructure::automatic;
  EXPECT_FALSE(per_dof(a, 2, 3, basic, false));
  EXPECT_TRUE(per_dof(a, 2, 4, basic, false));
  EXPECT_FALSE(per_dof(a, 2, 4, cf, false));
  EXPECT_FALSE(per_dof(a, 3, 1, basic, false));
  EXPECT_FALSE(per_dof(a, 3, 7, basic, false));
  EXPECT_TRUE(per_dof(a, 3, 7, basic, true));
  EXPECT_TRUE(per_dof(ThreadStructure::dof, 3, 2, basic, false));
  EXPECT_FALSE(per_dof(ThreadStructure::column, 2, 8, basic, true));
}

// The fast-diagonalization data: A S = M S Λ and Sᵀ M S = I on the interior patch nodes, all
// eigenvalues of the full problem (against a dense solve of it), and the parity the fiber
// kernels use: the first k columns of S even, the other k-1 odd, exactly.
TEST(PatchSmoother, EigenpairsOrderedByParity)
{
  for (bool lumped : {false, true})
    for (int k = 1; k <= 10; ++k)
      {
        const PatchData1D d  = patch_data_1d(k, lumped);
        const int         ni = 2 * k - 1;
        Eigen::MatrixXd   M(ni, ni), A(ni, ni), S(ni, ni);
        for (int i = 0; i < ni; ++i)
          for (int j = 0; j < ni; ++j)
            {
              M(i, j) = d.mass(i + 1, j + 1);
              A(i, j) = d.stiffness(i + 1, j + 1);
              S(i, j) = d.eigenvectors(i, j);
            }
        const Eigen::VectorXd lambda = Eigen::Map<const Eigen::VectorXd>(d.eigenvalues.data(), ni);
        const double          scale  = A.norm();
        EXPECT_LT((A * S - M * S * lambda.asDiagonal()).norm(), 1e-12 * scale * ni) << "k=" << k;
        EXPECT_LT((S.transpose() * M * S - Eigen::MatrixXd::Identity(ni, ni)).norm(), 1e-12 * ni) << "k=" << k;
        Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(A, M);
        std::vector<double>                                       sorted(d.eigenvalues);
        std::sort(sorted.begin(), sorted.end());
        for (int a = 0; a < ni; ++a)
          EXPECT_NEAR(sorted[a], es.eigenvalues()(a), 1e-11 * es.eigenvalues()(ni - 1)) << "k=" << k;
        for (int a = 0; a < ni; ++a)
          for (int i = 0; i < ni; ++i)
            ASSERT_EQ(S(ni - 1 - i, a), a < k ? S(i, a) : -S(i, a)) << "k=" << k << " mode " << a << " node " << i;
      }
}

// The fiber kernels' compile-time 1D data (the generated tpmg/patch_data_table.h) are the
// doubles patch_data_1d computes, bit for bit, for every degree and both mass matrices; in
// float, their rounding. (The writer runs the library's objects, so this guards the writing,
// the literals and the conversion; the kernels' sweeps against assembled matrices guard the
// values.)
// The 1D patch matrices are exactly persymmetric, P(r, j) = P(np-1-r, np-1-j), bit for bit (the
// element matrices' rounding is evened out), so that mirrored entries are one constant.
TEST(PatchSmoother, PatchMatricesExactlyPersymmetric)
{
  for (bool lumped : {false, true})
    for (int k = 1; k <= 10; ++k)
      {
        const PatchData1D d  = patch_data_1d(k, lumped);
        const unsigned    np = 2 * k + 1;
        for (unsigned r = 0; r < np; ++r)
          for (unsigned j = 0; j < np; ++j)
            {
              ASSERT_EQ(d.mass(r, j), d.mass(np - 1 - r, np - 1 - j)) << "k = " << k << " lumped " << lumped;
              ASSERT_EQ(d.stiffness(r, j), d.stiffness(np - 1 - r, np - 1 - j)) << "k = " << k << " lumped " << lumped;
              ASSERT_EQ(d.mass(r, j), d.mass(j, r)) << "k = " << k;
              ASSERT_EQ(d.stiffness(r, j), d.stiffness(j, r)) << "k = " << k;
            }
      }
}

TEST(PatchSmoother, CompileTimeDataEqualPatchData1D)
{
  auto check = [](auto K, auto Lumped) {
    constexpr int     k = decltype(K)::value, np = 2 * k + 1, ni = 2 * k - 1;
    constexpr bool    lumped = decltype(Lumped)::value;
    constexpr auto    c      = fiber_constants_from_table<k, double, lumped>();
    constexpr auto    cf     = fiber_constants_from_table<k, float, lumped>();
    const PatchData1D d      = patch_data_1d(k, lumped);
    for (int i = 0; i < np; ++i)
      for (int j = 0; j < np; ++j)
        {
          ASSERT_EQ(c.M(i, j), d.mass(i, j)) << "k=" << k << " lumped=" << lumped << " (" << i << ", " << j << ")";
          ASSERT_EQ(c.A(i, j), d.stiffness(i, j)) << "k=" << k << " lumped=" << lumped << " (" << i << ", " << j << ")";
          ASSERT_EQ(cf.M(i, j), float(d.mass(i, j))) << "k=" << k << " lumped=" << lumped;
          ASSERT_EQ(cf.A(i, j), float(d.stiffness(i, j))) << "k=" << k << " lumped=" << lumped;
        }
    const auto S = ParityColumns<double, ni>::from([&](int i, int a) { return d.eigenvectors(i, a); });
    for (int i = 0; i <= ni / 2; ++i)
      for (int a = 0; a < (ni + 1) / 2; ++a)
        {
          ASSERT_EQ(c.S.e[i][a], S.e[i][a]) << "k=" << k << " lumped=" << lumped;
          ASSERT_EQ(cf.S.e[i][a], float(S.e[i][a])) << "k=" << k << " lumped=" << lumped;
        }
    for (int i = 0; i < ni / 2; ++i)
      for (int a = 0; a < ni / 2; ++a)
        ASSERT_EQ(c.S.o[i][a], S.o[i][a]) << "k=" << k << " lumped=" << lumped;
    for (int i = 0; i < ni; ++i)
      {
        ASSERT_EQ(c.lambda[i], d.eigenvalues[i]) << "k=" << k << " lumped=" << lumped;
        ASSERT_EQ(cf.lambda[i], float(d.eigenvalues[i])) << "k=" << k << " lumped=" << lumped;
      }
    // the lumped masses are diagonal (the zeros the kernels skip), the consistent ones not
    EXPECT_EQ(c.M(1, 2) == 0.0, lumped) << "k=" << k;
  };
  for (int k = 1; k <= max_degree; ++k)
    dispatch_degree(k, [&](auto K) {
      check(K, std::false_type{});
      check(K, std::true_type{});
    });
}

// The fiber kernels' table of inverse eigenvalue sums (3D double): entry
// c ni² + a + ni b is 1 / (c_0 λ_a + c_1 λ_b + c_2 λ_c) with the kernel's coefficients, i.e.
// the mesh's permuted for the turned (unpadded) kernels: kernel x, y, z = mesh z, x, y.
TEST(PatchSmoother, InverseEigenvalueSumsInKernelDirections)
{
  const std::array<double, 3> coef  = {1.0, 2.5, 4.0}; // anisotropic: a wrong direction shows
  auto                        check = [&](auto K, auto Opt, auto Lumped, bool turned) {
    constexpr int  k = decltype(K)::value, ni = 2 * k - 1;
    constexpr auto opt    = decltype(Opt)::value;
    constexpr bool lumped = decltype(Lumped)::value;
    using Kernel          = FiberPatchKernel<3, k, double, PatchKernelKind::fused, opt, lumped>;
    const std::vector<double> t = fiber_inverse_eigenvalue_sums<3, k, double, opt, lumped>(coef);
    ASSERT_EQ(t.empty(), !Kernel::inverse_sums_table) << "k=" << k;
    if (t.empty())
      return;
    ASSERT_EQ(t.size(), std::size_t(ni * ni * ni));
    const std::vector<double> lambda = patch_data_1d(k, lumped).eigenvalues;
    const double c0 = turned ? coef[2] : coef[0], c1 = turned ? coef[0] : coef[1], c2 = turned ? coef[1] : coef[2];
    for (int c = 0; c < ni; ++c)
      for (int b = 0; b < ni; ++b)
        for (int a = 0; a < ni; ++a)
          {
            const double expected = 1.0 / (c0 * lambda[a] + c1 * lambda[b] + c2 * lambda[c]);
            ASSERT_NEAR(t[std::size_t(c) * ni * ni + a + ni * b], expected, 1e-14 * expected)
              << "k=" << k << " lumped=" << lumped << " (" << a << ", " << b << ", " << c << ")";
          }
  };
  using O = KernelOptimization;
  for (int k = 3; k <= 8; ++k)
    dispatch_degree(k, [&](auto K) {
      if constexpr (decltype(K)::value >= 3)
        {
          check(K, std::integral_constant<O, O::linear_indexing>{}, std::false_type{}, true);
          check(K, std::integral_constant<O, O::linear_indexing>{}, std::true_type{}, true);
          check(K, std::integral_constant<O, O::conflict_free>{}, std::false_type{}, false);
        }
    });
  // float divides (a reciprocal instruction), 2D double too (measured slower with the table)
  EXPECT_TRUE((fiber_inverse_eigenvalue_sums<3, 4, float, O::linear_indexing>(coef).empty()));
  EXPECT_TRUE((fiber_inverse_eigenvalue_sums<2, 4, double, O::linear_indexing>(coef).empty()));
  EXPECT_FALSE((fiber_inverse_eigenvalue_sums<3, 4, double, O::linear_indexing>(coef).empty()));
  // a kernel that needs the table refuses to be made without it
  using Kd = FiberPatchKernel<3, 4, double, PatchKernelKind::fused, O::linear_indexing>;
  ASSERT_TRUE(Kd::inverse_sums_table);
  EXPECT_THROW((make_fiber_kernel<3, 4, double, PatchKernelKind::fused, O::linear_indexing>(
                 PatchColorGeometry{}, nullptr, nullptr, nullptr, coef, 1, nullptr)),
               std::logic_error);
}

// S and Sᵀ through the halves of the parity columns equal the dense products, for a random
// matrix of that parity (n = 1..19), on three fibers at once.
TEST(PatchSmoother, ParityColumnsEqualDenseProducts)
{
  std::mt19937                           gen(3);
  std::uniform_real_distribution<double> u(-1, 1);
  auto                                   check = [&](auto N) {
    constexpr int n = decltype(N)::value, ne = (n + 1) / 2, G = 3;
    double        S[n][n], in[G][n], out[G][n], outT[G][n];
    for (int i = 0; i <= n / 2; ++i)
      for (int a = 0; a < n; ++a)
        {
          S[i][a]         = i == n / 2 && a >= ne ? 0.0 : u(gen);
          S[n - 1 - i][a] = a < ne ? S[i][a] : -S[i][a];
        }
    for (auto &fiber : in)
      for (double &v : fiber)
        v = u(gen);
    const auto P = ParityColumns<double, n>::from([&](int i, int a) { return S[i][a]; });
    apply_parity_columns(P, in, out);
    apply_parity_columns_transposed(P, in, outT);
    for (int g = 0; g < G; ++g)
      for (int i = 0; i < n; ++i)
        {
          double ref = 0, refT = 0;
          for (int j = 0; j < n; ++j)
            {
              ref += S[i][j] * in[g][j];
              refT += S[j][i] * in[g][j];
            }
          EXPECT_NEAR(out[g][i], ref, 1e-14 * n) << "n=" << n << " fiber " << g << " i=" << i;
          EXPECT_NEAR(outT[g][i], refT, 1e-14 * n) << "n=" << n << " fiber " << g << " i=" << i;
        }
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 3>{});
  check(std::integral_constant<int, 7>{});
  check(std::integral_constant<int, 13>{});
  check(std::integral_constant<int, 19>{});
}

// The tensor-core kernel's matrix table: the two cells' blocks add up to the patch mass and
// stiffness matrices, and the lane-ordered A fragments the GPU loads are those tiles' entries
// and the eigenvectors (Sᵀ and S in 16 rows).
TEST(PatchSmoother, TensorCoreMatrixTable)
{
  auto check = [&](auto K) {
    constexpr int k = decltype(K)::value, np = 2 * k + 1, ni = 2 * k - 1;
    using Kern                  = MmaPatchKernel<k, double>;
    const PatchData1D         d = patch_data_1d(k, false);
    const std::vector<double> m = mma_patch_matrices<k, double>(d);
    for (int mat = 0; mat < 2; ++mat)
      {
        const Matrix1D &P = mat == 0 ? d.mass : d.stiffness;
        for (int r = 0; r < np; ++r)
          for (int j = 0; j < np; ++j)
            {
              double sum = 0;
              for (int c = 0; c < 2; ++c)
                if (r >= c * k && r <= c * k + k && j >= c * k && j <= c * k + k)
                  sum += m[Kern::off_cell(mat, c) + (r - c * k) * Kern::ld_c + (j - c * k)];
              EXPECT_NEAR(sum, P(r, j), 1e-13 * (1 + std::abs(P(r, j))))
                << "k=" << k << " mat " << mat << " (" << r << ", " << j << ")";
            }
      }
    // the lane-ordered copy the GPU loads its A fragments from: lane l holds A(l / 4, l % 4);
    // Sᵀ and S in 16 rows, the eigenvectors, zero beyond ni
    for (int h = 0; h < 2; ++h)
      for (int st = 0; st < Kern::KSd; ++st)
        for (int l = 0; l < 32; ++l)
          {
            const int  r = 8 * h + l / 4, c = 4 * st + l % 4;
            const bool in = r < ni && c < ni;
            EXPECT_EQ(m[Kern::off_frag + 32 * (Kern::frag_Sf + 2 * st + h) + l], in ? d.eigenvectors(c, r) : 0.0);
            EXPECT_EQ(m[Kern::off_frag + 32 * (Kern::frag_Sb + 2 * st + h) + l], in ? d.eigenvectors(r, c) : 0.0);
          }
    for (int i = 0; i < ni; ++i) // the eigenvalues after the fragments
      EXPECT_EQ(m[Kern::off_frag + 32 * Kern::n_frag + i], d.eigenvalues[i]);
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(m[Kern::off_frag + 32 * Kern::frag_cell(1, 1, Kern::MTc - 1, Kern::KSc - 1) + l],
                m[Kern::off_cell(1, 1) + (8 * (Kern::MTc - 1) + l / 4) * Kern::ld_c + 4 * (Kern::KSc - 1) + l % 4]);
  };
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 7>{});
  check(std::integral_constant<int, 8>{});
}

namespace
{
  /// a 3D level of 2 x 2 x 2 cells (for the checks at setup), or 2D
  CartesianLevel two_cells_each_way(int k, int dim = 3)
  {
    Domain d;
    d.dim          = dim;
    d.coarse_cells = {2, 2, 2};
    return make_hierarchy(d, k, 0).back();
  }
} // namespace

// Every setting check_smoother_settings accepts has compiled kernels: the smoother's one
// dispatch (VertexPatchSmoother::colour_launcher) finds a launcher for what resolve_smoother makes
// of it, on either backend, and the configuration keeps the user's explicit choice.
TEST(PatchSmoother, EveryAcceptedSettingHasKernels)
{
  using O  = KernelOptimization;
  int made = 0;
  for (int dim : {2, 3})
    for (int k = 1; k <= max_solver_degree(dim); ++k)
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          if constexpr (VertexPatchSmoother<dd, kk, float>::supported())
            {
              const auto lev     = two_cells_each_way(kk, dd);
              auto       try_all = [&](auto number) {
                using Number              = decltype(number);
                const Precision precision = std::is_same_v<Number, float> ? Precision::fp32 : Precision::fp64;
                CartesianLaplaceOperator<dd, kk, Number> op(lev, Backend::cpu);
                for (SmootherKernel kernel : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
                  for (O opt : {O::automatic, O::basic, O::linear_indexing, O::conflict_free, O::reduced_residual,
                                O::tensor_core})
                    for (bool lumped : {false, true})
                      for (LocalSolver ls : {LocalSolver::fast_diagonalization, LocalSolver::inverse_matrix})
                        for (ThreadStructure ts : {ThreadStructure::automatic, ThreadStructure::dof})
                          for (Backend backend : {Backend::cpu, Backend::cuda})
                            {
                              PatchSmootherSettings s;
                              s.kernel           = kernel;
                              s.optimization     = opt;
                              s.local_solver     = ls;
                              s.thread_structure = ts;
                              if (check_smoother_settings(s, dd, kk, precision, backend))
                                continue;
                              // (the dense inverse of a large patch takes seconds to set up: its
                              // kernels are the same template at every degree)
                              if (ls == LocalSolver::inverse_matrix && kk > 2)
                                continue;
                              // the configuration as the smoother of that backend resolves it
                              const SmootherConfiguration c = resolve_smoother(s, dd, kk, precision, backend);
                              if (opt != O::automatic)
                                {
                                  EXPECT_EQ(c.settings.optimization, opt);
                                }
                              // built on the CPU (its kernels are the GPU's), with the CPU's choice
                              if (backend == Backend::cpu)
                                {
                                  EXPECT_NO_THROW((VertexPatchSmoother<dd, kk, Number>(lev, Backend::cpu, s, &op,
                                                                                       PatchProblem{lumped})))
                                    << dd << "D k=" << kk << " " << to_string(kernel) << " " << to_string(opt)
                                    << (lumped ? " lumped" : "");
                                  ++made;
                                }
                            }
              };
              try_all(float());
              try_all(double());
            }
        });
      });
  EXPECT_GT(made, 1000);
}

// tensor_core is the 3D fused kernel only: the other combinations are refused at setup.
TEST(PatchSmoother, TensorCoreRefusesOtherKernels)
{
  const auto            lev3 = two_cells_each_way(3);
  PatchSmootherSettings s;
  s.optimization = KernelOptimization::tensor_core;
  s.kernel       = SmootherKernel::separate;
  EXPECT_THROW((VertexPatchSmoother<3, 3, double>(lev3, Backend::cpu, s, nullptr)), std::invalid_argument);
  s.kernel            = SmootherKernel::fused;
  s.patches_per_block = 2;
  EXPECT_THROW((VertexPatchSmoother<3, 3, double>(lev3, Backend::cpu, s, nullptr)), std::invalid_argument);
  const auto lev2     = two_cells_each_way(3, 2);
  s.patches_per_block = 0;
  EXPECT_THROW((VertexPatchSmoother<2, 3, double>(lev2, Backend::cpu, s, nullptr)), std::invalid_argument);
}

// The fused linear_indexing kernel at 3D k = 7 (and float k = 6) asks for resident blocks
// (FiberPatchKernel::resident_blocks) of one patch (float k = 7: two): more patches per block
// are refused at setup with the limit in the message (a launch would fail), and the automatic
// choice is that limit. The other fiber kernels of that degree keep two.
TEST(PatchSmoother, ResidentBlocksTakeOnePatchPerBlock)
{
  const auto            lev = two_cells_each_way(7), lev6 = two_cells_each_way(6);
  PatchSmootherSettings s;
  s.kernel       = SmootherKernel::fused;
  s.optimization = KernelOptimization::linear_indexing;
  // the smoother's message refusing s at degree 7 or 6, "" if it accepts them
  constexpr auto degree7 = std::integral_constant<int, 7>{};
  auto           refused = [&](auto number, auto degree) {
    using Number    = decltype(number);
    constexpr int k = decltype(degree)::value;
    try
      {
        VertexPatchSmoother<3, k, Number> sm(k == 7 ? lev : lev6, Backend::cpu, s, nullptr);
        return std::string();
      }
    catch (const std::invalid_argument &e)
      {
        return std::string(e.what());
      }
  };
  for (int P : {0, 1})
    {
      s.patches_per_block = P;
      EXPECT_EQ(refused(float(), degree7), "") << P;
      EXPECT_EQ(refused(double(), degree7), "") << P;
    }
  // float k = 7: blocks of two patches (resident_patches)
  s.patches_per_block = 0;
  EXPECT_EQ((VertexPatchSmoother<3, 7, float>(lev, Backend::cpu, s, nullptr).configuration().patches_per_block), 2);
  s.patches_per_block = 2;
  EXPECT_EQ(refused(float(), degree7), "");
  EXPECT_EQ(refused(double(), degree7), "patches per block 2 exceeds the maximum 1 for this degree");
  s.patches_per_block = 4;
  EXPECT_EQ(refused(float(), degree7), "patches per block 4 exceeds the maximum 2 for this degree");
  s.patches_per_block = 2;
  s.optimization      = KernelOptimization::conflict_free;
  EXPECT_EQ(refused(float(), degree7), "");
  s.optimization = KernelOptimization::linear_indexing;
  s.kernel       = SmootherKernel::separate;
  EXPECT_EQ(refused(float(), degree7), "");
  // float k = 6 asks for 8 blocks of one patch too; double k = 6 does not
  s.kernel               = SmootherKernel::fused;
  constexpr auto degree6 = std::integral_constant<int, 6>{};
  EXPECT_EQ(refused(float(), degree6), "patches per block 2 exceeds the maximum 1 for this degree");
  EXPECT_EQ(refused(double(), degree6), "");
}

// The 32-bit patch coordinates (PatchColorGeometry::first_index) give each patch of every
// color, and of the launch over all of them (all_colours), the node below-left of its vertex, k
// nodes in each direction; a color with 2^31 patches or more is refused.
TEST(PatchSmoother, PatchFirstNodes)
{
  for (int dim : {2, 3})
    for (int k : {1, 3})
      {
        Domain d;
        d.dim                      = dim;
        d.coarse_cells             = {5, 4, 3};
        const CartesianLevel lev   = make_hierarchy(d, k, 1).back();
        index_t              total = 0;
        for (int color = all_colours; color < (1 << dim); ++color)
          {
            const PatchColorGeometry geo = patch_color_geometry(lev, color);
            ASSERT_EQ(geo.vertex_step, color == all_colours ? 1 : 2);
            if (color == all_colours)
              EXPECT_EQ(geo.n_patches, lev.n_patches());
            else
              total += geo.n_patches;
            for (index_t p = 0; p < geo.n_patches; ++p)
              {
                // vertex of patch p of this color: first_vertex + 2 q (all colours: + q), q lexicographic
                index_t v[3] = {0, 0, 0}, q = p;
                for (int e = 0; e < dim; ++e)
                  {
                    v[e] = geo.first_vertex[e] + geo.vertex_step * (q % geo.count[e]);
                    q /= geo.count[e];
                  }
                if (color != all_colours)
                  EXPECT_EQ((v[0] & 1) + 2 * (v[1] & 1) + (dim == 3 ? 4 * (v[2] & 1) : 0), color);
                const index_t first = lev.dof_index((v[0] - 1) * k, (v[1] - 1) * k, dim == 3 ? (v[2] - 1) * k : 0);
                ASSERT_EQ(geo.first_index(p), first) << dim << "D k=" << k << " color " << color << " patch " << p;
                EXPECT_EQ(first + geo.offset(2 * k, 1, 0),
                          lev.dof_index((v[0] + 1) * k, (v[1] - 1) * k + 1, dim == 3 ? (v[2] - 1) * k : 0));
                EXPECT_EQ(index_t(geo.offset32(2 * k, 1, dim == 3 ? 2 * k : 0)),
                          geo.offset(2 * k, 1, dim == 3 ? 2 * k : 0));
              }
          }
        EXPECT_EQ(total, lev.n_patches());
      }
  // 64-bit first nodes beyond 2^32 (8e9 nodes), from the 32-bit steps
  CartesianLevel big;
  big.dim      = 3;
  big.degree   = 2;
  big.cells    = {1000, 1000, 1000};
  big.cell_end = big.cells;
  for (int color : {0, 7})
    {
      const PatchColorGeometry geo = patch_color_geometry(big, color);
      for (index_t p : {index_t(0), geo.n_patches / 3, geo.n_patches - 1})
        {
          index_t v[3], q = p;
          for (int e = 0; e < 3; ++e)
            {
              v[e] = geo.first_vertex[e] + 2 * (q % geo.count[e]);
              q /= geo.count[e];
            }
          EXPECT_EQ(geo.first_index(p), big.dof_index((v[0] - 1) * 2, (v[1] - 1) * 2, (v[2] - 1) * 2))
            << color << " " << p;
          EXPECT_EQ(index_t(geo.offset32(4, 4, 4)), geo.offset(4, 4, 4));
        }
      EXPECT_GT(geo.first_index(geo.n_patches - 1), index_t(1) << 32);
    }
  CartesianLevel huge;
  huge.dim      = 3;
  huge.degree   = 1;
  huge.cells    = {4100, 4100, 4100}; // 2050^3 > 2^31 patches in color 7
  huge.cell_end = huge.cells;
  EXPECT_THROW(patch_color_geometry(huge, 7), std::length_error);
}

// On level 1 of a single coarse cell the one patch covers every interior node: one sweep
// from x = 0 solves the system exactly (the coarsest-level solve of docs/method.md, "Coarse solve"), which
// also checks the fast-diagonalization inverse against a dense solve for the high degrees.
TEST(PatchSmoother, OnePatchSolvesExactly)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 10 : 8); ++k)
      {
        if (dim == 3 && k == 7)
          continue; // 3375-unknown dense solves are slow; k = 6 and 8 cover the high end
        Domain d;
        d.dim                                                  = dim;
        d.upper                                                = {2.0, 1.0, 1.5};
        const auto                                         lev = make_hierarchy(d, k, 1).back();
        const Eigen::SparseMatrix<double>                  A   = assemble_laplace(lev);
        const auto                                         b   = random_vector(lev, 5);
        Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(A);
        const auto                                         exact = to_std(ldlt.solve(to_eigen(b)));
        dispatch_dim(dim, [&](auto D) {
          dispatch_degree(k, [&](auto K) {
            constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
            if constexpr (VertexPatchSmoother<dd, kk, double>::supported())
              {
                const std::vector<double> zero(lev.n_dofs(), 0.0);
                Case c{dd, kk, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::standard};
                EXPECT_LT(rel_diff(run_smoother<dd, kk, double>(lev, c, zero, b), exact), 1e-11) << dim << "D k=" << k;
              }
          });
        });
      }
}

// 3D k = 6..8: the optimized kernels and the per-DoF basic ones against the basic (column) ones
// (the dense reference is too slow)
TEST(PatchSmoother, OptimizedEqualBasicForHighDegrees3D)
{
  for (int k = 6; k <= 8; ++k)
    dispatch_degree(k, [&](auto K) {
      constexpr int kk = decltype(K)::value;
      if constexpr (VertexPatchSmoother<3, kk, double>::supported())
        {
          Domain d;
          d.dim          = 3;
          d.coarse_cells = {3, 2, 2};
          const auto lev = make_hierarchy(d, kk, 0).back();
          const auto x0  = random_vector(lev, 31);
          const auto b   = random_vector(lev, 32);
          Case       basic{3, kk, SmootherKernel::fused, LocalSolver::fast_diagonalization, ColorOrder::standard};
          basic.threads  = ThreadStructure::column;
          const auto ref = run_smoother<3, kk, double>(lev, basic, x0, b);
          for (KernelOptimization opt : {KernelOptimization::linear_indexing, KernelOptimization::conflict_free,
                                         KernelOptimization::reduced_residual})
            for (SmootherKernel kern : {SmootherKernel::separate, SmootherKernel::fused})
              {
                Case c   = basic;
                c.kernel = kern;
                c.opt    = opt;
                EXPECT_LT(rel_diff(run_smoother<3, kk, double>(lev, c, x0, b), ref), 1e-11) << name(c);
                EXPECT_LT(rel_diff(run_smoother<3, kk, float>(lev, c, x0, b), ref), 5e-5) << name(c);
              }
          // GLL-lumped masses (bp5), against the basic kernel with them (checked against the
          // assembled operator at k <= 4, above)
          Case lumped_basic     = basic;
          lumped_basic.lumped   = true;
          const auto ref_lumped = run_smoother<3, kk, double>(lev, lumped_basic, x0, b);
          for (KernelOptimization opt : {KernelOptimization::linear_indexing, KernelOptimization::reduced_residual})
            {
              Case c = lumped_basic;
              c.opt  = opt;
              EXPECT_LT(rel_diff(run_smoother<3, kk, double>(lev, c, x0, b), ref_lumped), 1e-11) << name(c);
              EXPECT_LT(rel_diff(run_smoother<3, kk, float>(lev, c, x0, b), ref_lumped), 5e-5) << name(c);
            }
          Case tc = basic;
          tc.opt  = KernelOptimization::tensor_core;
          EXPECT_LT(rel_diff(run_smoother<3, kk, double>(lev, tc, x0, b), ref), 1e-11) << name(tc);
          EXPECT_LT(rel_diff(run_smoother<3, kk, float>(lev, tc, x0, b), ref), 5e-5) << name(tc);
          // one thread per DoF, z strided (169, 225, 289 threads per z plane)
          for (SmootherKernel kern : {SmootherKernel::separate, SmootherKernel::fused})
            {
              Case c    = basic;
              c.kernel  = kern;
              c.threads = ThreadStructure::dof;
              EXPECT_LT(rel_diff(run_smoother<3, kk, double>(lev, c, x0, b), ref), 1e-11) << name(c);
              EXPECT_LT(rel_diff(run_smoother<3, kk, float>(lev, c, x0, b), ref), 5e-5) << name(c);
            }
        }
    });
}

// k = 1: the fused optimized kernels are the tile kernel (patches share their loads). On
// meshes of several tiles per direction, with partial tiles, against the basic kernel
// (itself checked against the dense reference above), both colour orders.
TEST(PatchSmoother, TileKernelForK1OverSeveralTiles)
{
  for (int dim : {2, 3})
    dispatch_dim(dim, [&](auto D) {
      constexpr int dd = decltype(D)::value;
      Domain        d;
      d.dim          = dd;
      d.coarse_cells = dd == 2 ? std::array<int, 3>{37, 70, 1} : std::array<int, 3>{35, 18, 13};
      const auto lev = make_hierarchy(d, 1, 0).back();
      const auto x0  = random_vector(lev, 41);
      const auto b   = random_vector(lev, 42);
      for (ColorOrder order : {ColorOrder::standard, ColorOrder::odd_first})
        {
          Case       basic{dd, 1, SmootherKernel::fused, LocalSolver::fast_diagonalization, order};
          const auto ref = run_smoother<dd, 1, double>(lev, basic, x0, b);
          for (KernelOptimization opt : {KernelOptimization::linear_indexing, KernelOptimization::conflict_free,
                                         KernelOptimization::reduced_residual})
            {
              Case c = basic;
              c.opt  = opt;
              EXPECT_LT(rel_diff(run_smoother<dd, 1, double>(lev, c, x0, b), ref), 1e-13) << name(c);
              EXPECT_LT(rel_diff(run_smoother<dd, 1, float>(lev, c, x0, b), ref), 1e-5) << name(c);
            }
        }
    });
}

// A float sweep of an iterate that is a large constant plus O(1) detail: the residual stages
// read x minus its patch-centre value (A_I 1 = 0), so the float sums do not cancel |A| |x|
// down to |r|: the float result stays within one ulp of the constant of the double one
// (0.26-0.40 ulps measured), what storing x in float allows. Without the shift: 0.5-4.6 ulps,
// above one ulp for every case but the basic kernel at k = 1 (the float V-cycle's loss at 3D
// Q7 on 128^3 cells; docs/performance/smoother.md, "Centre-value subtraction").
namespace
{
  template <int dim, int k>
  void check_offset_iterate(double offset)
  {
    const double ulp = offset * std::numeric_limits<float>::epsilon();
    const auto   lev = smoother_level(dim, k);
    auto         x0  = random_vector(lev, 41);
    for (auto &v : x0)
      v += offset;
    const auto b = random_vector(lev, 42);
    for (KernelOptimization opt :
         {KernelOptimization::basic, KernelOptimization::linear_indexing, KernelOptimization::conflict_free})
      for (SmootherKernel kern : {SmootherKernel::separate, SmootherKernel::fused})
        {
          const Case c{dim, k, kern, LocalSolver::fast_diagonalization, ColorOrder::standard, opt};
          const auto ref = run_smoother<dim, k, double>(lev, c, x0, b);
          const auto x   = run_smoother<dim, k, float>(lev, c, x0, b);
          double     err = 0;
          for (std::size_t i = 0; i < x.size(); ++i)
            err = std::max(err, std::abs(x[i] - ref[i]));
          EXPECT_LT(err, ulp) << name(c) << ": " << err / ulp << " ulps of the offset";
        }
  }
} // namespace

TEST(PatchSmoother, FloatSweepOfAnOffsetIterateIsAccurateToItsStorage)
{
  check_offset_iterate<2, 1>(1000.0);
  check_offset_iterate<2, 2>(1000.0);
  check_offset_iterate<2, 4>(1000.0);
  check_offset_iterate<3, 1>(1000.0);
  check_offset_iterate<3, 2>(1000.0);
  check_offset_iterate<3, 4>(1000.0);
}
