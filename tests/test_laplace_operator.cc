#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>

#include <gtest/gtest.h>

#include "reference.h"

using namespace tpmg;
using namespace tpmg::test;

namespace
{
  template <int dim, int k, typename Number>
  std::vector<Number> apply(const CartesianLevel &lev, const std::vector<double> &x)
  {
    CartesianLaplaceOperator<dim, k, Number> op(lev, Backend::cpu);
    Vector<Number>                           src(lev.n_dofs(), Backend::cpu), dst;
    std::vector<Number>                      xn(x.begin(), x.end());
    src.from_host(xn);
    op.vmult(dst, src);
    return dst.to_host();
  }

  /// Dirichlet faces of the cases: all, or x+, y-, z+ only (x-, y+, z- Neumann: their nodes are
  /// unknowns, the operator's rows there the natural ones)
  constexpr unsigned mixed_faces = all_faces & ~(1u | 8u | 16u);

  class LaplaceOperatorTest : public ::testing::TestWithParam<std::tuple<int, int, unsigned>>
  {};
} // namespace

TEST_P(LaplaceOperatorTest, EqualsAssembledMatrixAndIsSymmetric)
{
  // (no structured binding: lambdas capture these, which C++17 does not allow)
  const int      dim = std::get<0>(GetParam()), k = std::get<1>(GetParam());
  const unsigned dirichlet = std::get<2>(GetParam());
  const int      level     = (dim == 3 && k > 4) ? 0 : 1;
  auto           lev       = anisotropic_level(dim, k, level);
  lev.dirichlet_faces      = dirichlet;
  const auto A             = assemble_laplace(lev);
  dispatch_dim(dim, [&](auto D) {
    dispatch_degree(k, [&](auto K) {
      constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
      // random vector with nonzero boundary values: boundary rows act as identity
      const auto x  = random_vector(lev, 1, /*with_boundary=*/false);
      auto       xb = random_vector(lev, 7, true);
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        if (!is_boundary(lev, g))
          xb[g] = x[g];
      const std::vector<double> ref = to_std(A * to_eigen(x));
      EXPECT_LT(rel_diff(apply<dd, kk, double>(lev, x), ref), 1e-13);
      EXPECT_LT(rel_diff(apply<dd, kk, float>(lev, x), ref), 2e-6);
      // identity on the boundary rows, interior rows ignore the boundary values
      const auto yb = apply<dd, kk, double>(lev, xb);
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        if (is_boundary(lev, g))
          ASSERT_EQ(yb[g], xb[g]);
        else
          ASSERT_NEAR(yb[g], ref[g], 1e-12 * (1 + std::fabs(ref[g])));
      // the residual b - A x (b - x on the boundary rows), fused into the cell kernel from
      // k = 2: equals b minus vmult
      const auto bvec        = random_vector(lev, 9, true);
      auto       residual_of = [&](auto zero) {
        using N = decltype(zero);
        CartesianLaplaceOperator<dd, kk, N> op(lev, Backend::cpu);
        Vector<N>                           xv(lev.n_dofs(), Backend::cpu), bv(lev.n_dofs(), Backend::cpu), r;
        xv.from_host(std::vector<N>(xb.begin(), xb.end()));
        bv.from_host(std::vector<N>(bvec.begin(), bvec.end()));
        op.residual(r, bv, xv);
        return r.to_host();
      };
      std::vector<double> rref(lev.n_dofs());
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        rref[g] = bvec[g] - yb[g];
      EXPECT_LT(rel_diff(residual_of(double{}), rref), 1e-13);
      EXPECT_LT(rel_diff(residual_of(float{}), rref), 2e-6);
      // symmetry: (A x, y) = (x, A y)
      const auto y   = random_vector(lev, 2);
      const auto Ax  = apply<dd, kk, double>(lev, x);
      const auto Ay  = apply<dd, kk, double>(lev, y);
      double     xAy = 0, yAx = 0, scale = 0;
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        {
          xAy += x[g] * Ay[g];
          yAx += y[g] * Ax[g];
          scale += std::fabs(x[g] * Ay[g]);
        }
      EXPECT_NEAR(xAy, yAx, 1e-13 * scale);
    });
  });
}

INSTANTIATE_TEST_SUITE_P(AllDegrees, LaplaceOperatorTest,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Range(1, 11),
                                            ::testing::Values(all_faces, mixed_faces)),
                         [](const auto &param_info) {
                           return std::to_string(std::get<0>(param_info.param)) + "D_k" +
                                  std::to_string(std::get<1>(param_info.param)) +
                                  (std::get<2>(param_info.param) == all_faces ? "" : "_neumann_faces");
                         });

TEST(LaplaceOperator, EnergyOfAnExactlyRepresentedFunction)
{
  // u = x(1-x) y(1-y) lies in Q_2 and vanishes on the boundary, so u·A u = ∫|∇u|² = 1/45.
  Domain d;
  d.dim                     = 2;
  const auto            lev = make_hierarchy(d, 2, 2).back();
  const LagrangeBasis1D b(2);
  std::vector<double>   u(lev.n_dofs());
  for (index_t j = 0; j < lev.nodes(1); ++j)
    for (index_t i = 0; i < lev.nodes(0); ++i)
      {
        const double x         = lev.node_coordinate(0, i, b.support_points());
        const double y         = lev.node_coordinate(1, j, b.support_points());
        u[lev.dof_index(i, j)] = x * (1 - x) * y * (1 - y);
      }
  const auto Au     = apply<2, 2, double>(lev, u);
  double     energy = 0;
  for (index_t g = 0; g < lev.n_dofs(); ++g)
    energy += u[g] * Au[g];
  EXPECT_NEAR(energy, 1.0 / 45.0, 1e-14);
}

// k = 1 runs the stencil kernel (laplace_stencil.h): meshes of several tiles with partial
// tiles in every direction, anisotropic cells, nonzero boundary values in the input.
TEST(LaplaceOperator, Q1StencilOverSeveralTilesEqualsAssembledMatrix)
{
  for (int dim : {2, 3})
    {
      Domain d;
      d.dim          = dim;
      d.lower        = {0.0, -1.0, 0.25};
      d.upper        = {1.0, 1.0, 0.75};
      d.coarse_cells = dim == 2 ? std::array<int, 3>{71, 45, 1} : std::array<int, 3>{69, 10, 19};
      const auto lev = make_hierarchy(d, 1, 0).back();
      const auto A   = assemble_laplace(lev);
      const auto x   = random_vector(lev, 3, /*with_boundary=*/false);
      auto       xb  = random_vector(lev, 4, true);
      for (index_t g = 0; g < lev.n_dofs(); ++g)
        if (!is_boundary(lev, g))
          xb[g] = x[g];
      const std::vector<double> ref = to_std(A * to_eigen(x));
      dispatch_dim(dim, [&](auto D) {
        constexpr int dd = decltype(D)::value;
        const auto    yb = apply<dd, 1, double>(lev, xb);
        for (index_t g = 0; g < lev.n_dofs(); ++g)
          if (is_boundary(lev, g))
            ASSERT_EQ(yb[g], xb[g]);
          else
            ASSERT_NEAR(yb[g], ref[g], 1e-12 * (1 + std::fabs(ref[g]))) << dd << "D node " << g;
        EXPECT_LT(rel_diff(apply<dd, 1, float>(lev, x), ref), 2e-6);
      });
    }
}

// Robin faces (x- and y+ Robin, x+ Neumann, the others Dirichlet; 3D also z- Robin) with a
// coefficient that varies along the faces: the operator, its residual and its diagonal equal the
// assembled Laplacian plus the Robin term assembled entry by entry (test::assemble_robin), in
// double and float, 2D k = 1..10 and 3D k = 1..8; the Dirichlet nodes' values are ignored. With
// constant coefficients a = 2.5, c = 40 as well: a K + c M + the Robin term (α not scaled by a:
// the natural conditions are on the flux a ∂u/∂n).
TEST(LaplaceOperator, RobinFacesEqualAssembledMatrix)
{
  for (const ConstantCoefficients cc : {ConstantCoefficients{}, ConstantCoefficients{2.5, 40}})
    for (int dim : {2, 3})
      for (int k = 1; k <= (dim == 2 ? 10 : 8); ++k)
        {
          if (!cc.laplacian() && k > 5) // (the constants' terms are the same code at every degree)
            continue;
          const std::string alpha_text = dim == 3 ? "1 + x^2 + 0.5*y*z" : "1 + x^2 + 0.5*y";
          SCOPED_TRACE(std::to_string(dim) + "D k=" + std::to_string(k) + (cc.laplacian() ? "" : " a=2.5 c=40"));
          auto lev            = anisotropic_level(dim, k, dim == 3 && k > 4 ? 0 : 1);
          lev.dirichlet_faces = all_faces & ~(1u | 2u | 8u | 16u);
          lev.robin_faces     = 1u | 8u | 16u;
          const Expression alpha(alpha_text, dim);
          const auto       A = Eigen::SparseMatrix<double>(
            assemble_laplace(lev, false, cc.diffusion, cc.reaction) +
            assemble_robin(lev, [&](double x, double y, double z) { return alpha(x, y, z); }));
          const auto x  = random_vector(lev, 1);
          auto       xb = random_vector(lev, 7, true);
          for (index_t g = 0; g < lev.n_dofs(); ++g)
            if (!is_boundary(lev, g))
              xb[g] = x[g];
          const std::vector<double> ref = to_std(A * to_eigen(x));
          const auto                b0  = random_vector(lev, 9, true);
          dispatch_dim(dim, [&](auto D) {
            dispatch_degree(k, [&](auto K) {
              constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
              auto          run = [&](auto zero, const std::vector<double> &in) {
                using N = decltype(zero);
                CartesianLaplaceOperator<dd, kk, N> op(
                           lev, Backend::cpu, std::make_shared<const RobinFaces<N>>(lev, alpha, Backend::cpu), cc);
                Vector<N> src(lev.n_dofs(), Backend::cpu), b(lev.n_dofs(), Backend::cpu), dst, r, diag;
                src.from_host(std::vector<N>(in.begin(), in.end()));
                b.from_host(std::vector<N>(b0.begin(), b0.end()));
                op.vmult(dst, src);
                op.residual(r, b, src);
                EXPECT_TRUE(op.diagonal(diag));
                return std::array<std::vector<N>, 3>{dst.to_host(), r.to_host(), diag.to_host()};
              };
              const auto          yd    = run(double{}, xb);
              const auto          yf    = run(float{}, xb);
              std::vector<double> y_ref = ref, r_ref(lev.n_dofs()), d_ref(lev.n_dofs());
              for (index_t g = 0; g < lev.n_dofs(); ++g)
                {
                  if (is_boundary(lev, g))
                    y_ref[g] = xb[g];
                  r_ref[g] = b0[g] - y_ref[g];
                  d_ref[g] = A.coeff(g, g);
                }
              EXPECT_LT(rel_diff(yd[0], y_ref), 1e-13);
              EXPECT_LT(rel_diff(yf[0], y_ref), 2e-6);
              EXPECT_LT(rel_diff(yd[1], r_ref), 1e-13);
              EXPECT_LT(rel_diff(yf[1], r_ref), 2e-6);
              EXPECT_LT(rel_diff(yd[2], d_ref), 1e-13);
              // the term is there: without it the product differs
              if (cc.laplacian())
                {
                  EXPECT_GT(rel_diff(apply<dd, kk, double>(
                                       [&] {
                                         auto l        = lev;
                                         l.robin_faces = 0;
                                         return l;
                                       }(),
                                       x),
                                     ref),
                            1e-6);
                }
            });
          });
        }
}

#include <kernels/operators/laplace_cartesian.h>

// The constrained rows' kernel visits each node of the Dirichlet faces exactly once and no other:
// every mask of six face bits (in 2D the z bits set too, as the levels' masks have them), 2D and
// 3D, with 2 nodes along a direction (no unconstrained coordinate there when both its faces are)
// and more.
TEST(LaplaceOperator, ConstrainedRowsAreTheNodesOnTheDirichletFaces)
{
  for (int dim = 2; dim <= 3; ++dim)
    for (const std::array<index_t, 3> &shape :
         {std::array<index_t, 3>{5, 4, 3}, std::array<index_t, 3>{2, 3, 2}, std::array<index_t, 3>{2, 2, 2}})
      for (unsigned mask = 0; mask < 64u; ++mask)
        {
          const index_t       nodes[3] = {shape[0], shape[1], dim == 3 ? shape[2] : 1};
          const index_t       n        = nodes[0] * nodes[1] * nodes[2];
          std::vector<double> src(static_cast<std::size_t>(n)), b(src), dst(src.size(), -1.0);
          for (index_t i = 0; i < n; ++i)
            {
              src[std::size_t(i)] = double(i);
              b[std::size_t(i)]   = 3.0 * double(i) + 1.0;
            }
          CopyBoundaryLines<double> copy{src.data(), dst.data(), {nodes[0], nodes[1], nodes[2]}, dim, b.data(), mask};
          for (index_t t = 0; t < copy.count(); ++t)
            copy(t);
          index_t on = 0;
          for (index_t i = 0; i < n; ++i)
            {
              const index_t g[3] = {i % nodes[0], (i / nodes[0]) % nodes[1], i / (nodes[0] * nodes[1])};
              const bool    c    = on_faces(nodes, dim, g, mask);
              on += c;
              EXPECT_EQ(dst[std::size_t(i)], c ? 2.0 * double(i) + 1.0 : -1.0)
                << dim << "D, mask " << mask << ", node " << i;
            }
          // as many visits as nodes on the faces, each of them written: none twice
          EXPECT_EQ(copy.count(), on) << dim << "D, mask " << mask;
        }
}
