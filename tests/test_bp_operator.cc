// CEED bake-off operators against independent references (docs/method.md, "Level operators").
#include <tpmg/box_layout.h>
#include <tpmg/bp_operator.h>
#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/partition.h>
#include <tpmg/robin_faces.h>

#include <gtest/gtest.h>

#include "reference.h"
#include "reference_bp.h"
#include <kernels/operators/bp_operator.h>

#include <random>

using namespace tpmg;
using namespace tpmg::test;

namespace
{
  template <int dim, int k, typename Number>
  std::vector<double> apply_bp(const CartesianLevel &lev, BakeOff bp, const DeformationSettings &d,
                               const std::vector<double> &x, bool constrained = true, int components = 1,
                               GeometryMode mode = GeometryMode::stored)
  {
    BPOperator<dim, k, Number> op(lev, Backend::cpu, bp, d, constrained, mode);
    Vector<Number>             src(index_t(x.size()), Backend::cpu), dst;
    src.from_host(std::vector<Number>(x.begin(), x.end()));
    op.vmult_components(dst, src, components);
    const auto h = dst.to_host();
    return std::vector<double>(h.begin(), h.end());
  }

  CartesianLevel kershaw_level(int dim, int k)
  {
    Domain d;
    d.dim          = dim;
    d.coarse_cells = {6, 2, 2};
    return make_hierarchy(d, k, 0).back();
  }

  CartesianLevel box_level(int dim, int k, int level)
  {
    Domain d;
    d.dim          = dim;
    d.upper        = {1.0, 1.5, 0.75};
    d.coarse_cells = {2, 1, 1};
    return make_hierarchy(d, k, level).back();
  }

  class BPTest : public ::testing::TestWithParam<std::tuple<int, int>>
  {};
} // namespace

TEST_P(BPTest, EqualsReferenceAssemblyOnDeformedMeshes)
{
  // (no structured binding: lambdas capture these, which C++17 does not allow)
  const int dim = std::get<0>(GetParam()), k = std::get<1>(GetParam());
  for (const DeformationSettings &d :
       {DeformationSettings{Deformation::sine, 0.15}, DeformationSettings{Deformation::kershaw, 0.3}})
    {
      const auto lev = d.type == Deformation::kershaw ? kershaw_level(dim, k) : box_level(dim, k, 1);
      const auto x   = random_vector(lev, 41);
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree<8>(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          struct Case
          {
            BakeOff             bp;
            Quadrature1D        q;
            GeometricFactorKind kind;
          };
          for (const Case &c : {Case{BakeOff::bp1, gauss_quadrature(kk + 2), GeometricFactorKind::mass},
                                Case{BakeOff::bp3, gauss_quadrature(kk + 2), GeometricFactorKind::laplace},
                                Case{BakeOff::bp5, gauss_lobatto_quadrature(kk + 1), GeometricFactorKind::laplace}})
            {
              // (the reference's product and diagonal at the points, not its matrix: 3D k = 7
              // would assemble 24 element matrices of 512² entries from 729 points each)
              const auto [ref, ref_diag] = apply_bp_reference(lev, d, c.q, c.kind, x);
              EXPECT_LT(rel_diff(apply_bp<dd, kk, double>(lev, c.bp, d, x), ref), 1e-12)
                << "BP" << int(c.bp) << " " << dd << "D k=" << kk << " deformation " << int(d.type);
              EXPECT_LT(rel_diff(apply_bp<dd, kk, float>(lev, c.bp, d, x), ref), 5e-6);
              // factors computed on the fly from the vertices: the same multilinear map
              EXPECT_LT(rel_diff(apply_bp<dd, kk, double>(lev, c.bp, d, x, true, 1, GeometryMode::on_the_fly), ref),
                        1e-12)
                << "on the fly: BP" << int(c.bp) << " " << dd << "D k=" << kk << " deformation " << int(d.type);
              EXPECT_LT(rel_diff(apply_bp<dd, kk, float>(lev, c.bp, d, x, true, 1, GeometryMode::on_the_fly), ref),
                        5e-6);
              // the Laplacians' diagonal, matrix-free, against the assembled one
              if (c.bp != BakeOff::bp1)
                {
                  BPOperator<dd, kk, double> op(lev, Backend::cpu, c.bp, d);
                  Vector<double>             diag;
                  ASSERT_TRUE(op.diagonal(diag));
                  EXPECT_LT(rel_diff(diag.to_host(), ref_diag), 1e-12)
                    << "diagonal: BP" << int(c.bp) << " " << dd << "D k=" << kk << " deformation " << int(d.type);
                }
              // the mass with |J| interpolated from its node values (exact on a multilinear cell)
              if (c.bp == BakeOff::bp1)
                {
                  EXPECT_LT(rel_diff(apply_bp<dd, kk, double>(lev, c.bp, d, x, true, 1, GeometryMode::polynomial), ref),
                            1e-12)
                    << "polynomial: " << dd << "D k=" << kk << " deformation " << int(d.type);
                  EXPECT_LT(rel_diff(apply_bp<dd, kk, float>(lev, c.bp, d, x, false, 1, GeometryMode::polynomial),
                                     apply_bp_reference(lev, d, c.q, c.kind, x, false)[0]),
                            5e-6);
                }
            }
        });
      });
    }
}

INSTANTIATE_TEST_SUITE_P(Degrees, BPTest,
                         ::testing::Combine(::testing::Values(2, 3), ::testing::Values(1, 2, 3, 4, 5, 6, 7)),
                         [](const auto &param_info) {
                           return std::to_string(std::get<0>(param_info.param)) + "D_k" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

TEST(BP, BP3EqualsCartesianOnCartesianMeshes)
{
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, 5, 8})
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree<8>(k, [&](auto K) {
          constexpr int                            dd = decltype(D)::value, kk = decltype(K)::value;
          const auto                               lev = box_level(dd, kk, dd == 3 && kk > 4 ? 0 : 1);
          const auto                               x   = random_vector(lev, 42);
          CartesianLaplaceOperator<dd, kk, double> cart(lev, Backend::cpu);
          Vector<double>                           src(lev.n_dofs(), Backend::cpu), dst;
          src.from_host(x);
          cart.vmult(dst, src);
          EXPECT_LT(rel_diff(apply_bp<dd, kk, double>(lev, BakeOff::bp3, {}, x), dst.to_host()), 1e-13)
            << dd << "D k=" << kk;
        });
      });
}

// Constant a and c: the Kronecker form's a K + c M (with its k = 1 stencil, the residual in one
// call and the diagonal) equals bp3 evaluating the same constants at its points, which the deal.II
// cross-check ties to the assembled matrix.
TEST(BP, CartesianWithConstantCoefficientsEqualsBP3)
{
  const ConstantCoefficients ac{2.5, 40};
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, 4})
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree<8>(k, [&](auto K) {
          constexpr int                            dd = decltype(D)::value, kk = decltype(K)::value;
          const auto                               lev = box_level(dd, kk, 1);
          const auto                               x = random_vector(lev, 42), b = random_vector(lev, 43);
          CartesianLaplaceOperator<dd, kk, double> cart(lev, Backend::cpu, nullptr, ac);
          BPOperator<dd, kk, double>               bp3(lev, Backend::cpu, BakeOff::bp3, {}, true, GeometryMode::stored,
                                                       Coefficients(Expression("2.5", dd), Expression("40", dd)));
          Vector<double> src(lev.n_dofs(), Backend::cpu), rhs(lev.n_dofs(), Backend::cpu), y1, y2, r1, r2, d1, d2;
          src.from_host(x);
          rhs.from_host(b);
          cart.vmult(y1, src);
          bp3.vmult(y2, src);
          EXPECT_LT(rel_diff(y1.to_host(), y2.to_host()), 1e-13) << dd << "D k=" << kk;
          cart.residual(r1, rhs, src);
          bp3.residual(r2, rhs, src);
          EXPECT_LT(rel_diff(r1.to_host(), r2.to_host()), 1e-13) << dd << "D k=" << kk;
          ASSERT_TRUE(cart.diagonal(d1) && bp3.diagonal(d2));
          EXPECT_LT(rel_diff(d1.to_host(), d2.to_host()), 1e-13) << dd << "D k=" << kk;
          // and the constants do something: the Laplacian differs
          CartesianLaplaceOperator<dd, kk, double> plain(lev, Backend::cpu);
          plain.vmult(y2, src);
          EXPECT_GT(rel_diff(y1.to_host(), y2.to_host()), 0.1);
        });
      });
}

// Neumann and Robin faces: bp3 and bp5 read and write the nodes of the faces that are not
// Dirichlet faces like interior ones. On a sine-deformed mesh with Neumann faces x-, y+ (3D z-)
// each equals its assembled matrix with those faces' rows and columns kept (reference_bp.h's
// constraint follows the level's Dirichlet faces), its diagonal too; on a box with Robin faces x-
// and y+ and the constants a = 2.5, c = 40, bp3 equals the Kronecker form with the same faces (the
// Robin term α ∫_F u v added by both) in the product, the residual and the diagonal.
TEST(BP, NeumannAndRobinFacesEqualTheirReferences)
{
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, 4})
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree<8>(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          auto          lev   = box_level(dd, kk, 1);
          lev.dirichlet_faces = all_faces & ~(1u | 8u | 16u);
          const DeformationSettings sine{Deformation::sine, 0.15};
          const auto                x = random_vector(lev, 44), b = random_vector(lev, 45);
          for (BakeOff bp : {BakeOff::bp3, BakeOff::bp5})
            {
              const Quadrature1D q = bp == BakeOff::bp5 ? gauss_lobatto_quadrature(kk + 1) : gauss_quadrature(kk + 2);
              const auto         A = assemble_bp(lev, sine, q, GeometricFactorKind::laplace);
              EXPECT_LT(rel_diff(apply_bp<dd, kk, double>(lev, bp, sine, x), to_std(A * to_eigen(x))), 1e-12)
                << "BP" << int(bp) << " " << dd << "D k=" << kk;
              EXPECT_LT(rel_diff(apply_bp<dd, kk, float>(lev, bp, sine, x), to_std(A * to_eigen(x))), 5e-6)
                << "BP" << int(bp) << " " << dd << "D k=" << kk;
              BPOperator<dd, kk, double> op(lev, Backend::cpu, bp, sine);
              Vector<double>             diag;
              ASSERT_TRUE(op.diagonal(diag));
              EXPECT_LT(rel_diff(diag.to_host(), to_std(Eigen::VectorXd(A.diagonal()))), 1e-12)
                << "diagonal: BP" << int(bp) << " " << dd << "D k=" << kk;
            }
          auto rl        = lev;
          rl.robin_faces = 1u | 8u;
          const Expression           alpha("1 + x^2 + 0.5*y", dd);
          const ConstantCoefficients ac{2.5, 40};
          const auto                 robin = std::make_shared<const RobinFaces<double>>(rl, alpha, Backend::cpu);
          CartesianLaplaceOperator<dd, kk, double> cart(rl, Backend::cpu, robin, ac);
          BPOperator<dd, kk, double>               bp3(rl, Backend::cpu, BakeOff::bp3, {}, true, GeometryMode::stored,
                                                       Coefficients(Expression("2.5", dd), Expression("40", dd)), robin);
          Vector<double> src(rl.n_dofs(), Backend::cpu), rhs(rl.n_dofs(), Backend::cpu), y1, y2, r1, r2, d1, d2;
          src.from_host(x);
          rhs.from_host(b);
          cart.vmult(y1, src);
          bp3.vmult(y2, src);
          EXPECT_LT(rel_diff(y1.to_host(), y2.to_host()), 1e-13) << "Robin " << dd << "D k=" << kk;
          cart.residual(r1, rhs, src);
          bp3.residual(r2, rhs, src);
          EXPECT_LT(rel_diff(r1.to_host(), r2.to_host()), 1e-13) << "Robin " << dd << "D k=" << kk;
          ASSERT_TRUE(cart.diagonal(d1) && bp3.diagonal(d2));
          EXPECT_LT(rel_diff(d1.to_host(), d2.to_host()), 1e-13) << "Robin " << dd << "D k=" << kk;
          // the Robin term is there: without it bp3 differs
          BPOperator<dd, kk, double> neumann(lev, Backend::cpu, BakeOff::bp3, {}, true, GeometryMode::stored,
                                             Coefficients(Expression("2.5", dd), Expression("40", dd)));
          neumann.vmult(y2, src);
          EXPECT_GT(rel_diff(y1.to_host(), y2.to_host()), 1e-6) << "Robin " << dd << "D k=" << kk;
        });
      });
}

TEST(BP, BP1OfOnesIsTheVolume)
{
  for (int dim : {2, 3})
    for (const DeformationSettings &d : {DeformationSettings{}, DeformationSettings{Deformation::sine, 0.1},
                                         DeformationSettings{Deformation::kershaw, 0.3}})
      dispatch_dim(dim, [&](auto D) {
        constexpr int             dd  = decltype(D)::value;
        const auto                lev = d.type == Deformation::kershaw ? kershaw_level(dd, 3) : box_level(dd, 3, 1);
        const std::vector<double> ones(lev.n_dofs(), 1.0);
        const auto                m      = apply_bp<dd, 3, double>(lev, BakeOff::bp1, d, ones, /*constrained=*/false);
        double                    volume = 0;
        for (double v : m)
          volume += v;
        double box = 1;
        for (int e = 0; e < dd; ++e)
          box *= lev.h[e] * double(lev.cells[e]);
        EXPECT_NEAR(volume, box, 1e-12 * box) << dd << "D deformation " << int(d.type);
      });
}

TEST(BP, SymmetricOnDeformedMeshes)
{
  const DeformationSettings d{Deformation::sine, 0.1};
  const auto                lev = box_level(3, 3, 1);
  const auto                x = random_vector(lev, 43), y = random_vector(lev, 44);
  for (BakeOff bp : {BakeOff::bp1, BakeOff::bp3, BakeOff::bp5})
    {
      const auto Ax = apply_bp<3, 3, double>(lev, bp, d, x), Ay = apply_bp<3, 3, double>(lev, bp, d, y);
      double     xAy = 0, yAx = 0, s = 0;
      for (std::size_t i = 0; i < x.size(); ++i)
        {
          xAy += x[i] * Ay[i];
          yAx += y[i] * Ax[i];
          s += std::fabs(x[i] * Ay[i]);
        }
      EXPECT_NEAR(xAy, yAx, 1e-13 * s) << "BP" << int(bp);
    }
}

TEST(BP, VectorVersionsAreThreeScalarOnes)
{
  const DeformationSettings d{Deformation::kershaw, 0.5};
  const auto                lev = kershaw_level(3, 2);
  const index_t             n   = lev.n_dofs();
  std::vector<double>       x3(3 * n);
  for (int c = 0; c < 3; ++c)
    {
      const auto xc = random_vector(lev, 50 + c);
      std::copy(xc.begin(), xc.end(), x3.begin() + c * n);
    }
  for (BakeOff bp : {BakeOff::bp1, BakeOff::bp3, BakeOff::bp5})
    {
      const auto v = apply_bp<3, 2, double>(lev, bp, d, x3, true, 3); // BP2, BP4, BP6
      for (int c = 0; c < 3; ++c)
        {
          const std::vector<double> xc(x3.begin() + c * n, x3.begin() + (c + 1) * n);
          const auto                s = apply_bp<3, 2, double>(lev, bp, d, xc);
          // equal up to the order of the atomic additions
          const std::vector<double> vc(v.begin() + c * n, v.begin() + (c + 1) * n);
          EXPECT_LT(rel_diff(vc, s), 1e-14) << "BP" << int(bp) + 1 << " component " << c;
        }
    }
}

TEST(BP, BP5ApproachesBP3WithTheQuadratureErrorOrder)
{
  // (v, (A5 - A3) u) for interpolants of smooth u, v on a deformed mesh decreases like h^(2k)
  // (GLL with k+1 points integrates degree 2k-1 exactly, Gauss with k+2 degree 2k+3).
  const DeformationSettings d{Deformation::sine, 0.1};
  for (int k : {2, 3})
    {
      std::vector<double> diff;
      for (int level = 2; level <= 4; ++level)
        dispatch_degree<8>(k, [&](auto K) {
          constexpr int kk = decltype(K)::value;
          Domain        dom;
          dom.dim                   = 2;
          const auto            lev = make_hierarchy(dom, kk, level).back();
          const LagrangeBasis1D b(kk);
          std::vector<double>   u(lev.n_dofs()), v(lev.n_dofs());
          for (index_t j = 0; j < lev.nodes(1); ++j)
            for (index_t i = 0; i < lev.nodes(0); ++i)
              {
                const std::array<double, 3> p = deformed_point(
                  lev, d,
                  {lev.node_coordinate(0, i, b.support_points()), lev.node_coordinate(1, j, b.support_points()), 0.0});
                const bool bd          = lev.on_boundary(i, j, 0);
                u[lev.dof_index(i, j)] = bd ? 0.0 : std::sin(M_PI * p[0]) * std::sin(M_PI * p[1]);
                v[lev.dof_index(i, j)] = bd ? 0.0 : std::sin(2 * M_PI * p[0]) * std::sin(M_PI * p[1]);
              }
          const auto a3 = apply_bp<2, kk, double>(lev, BakeOff::bp3, d, u);
          const auto a5 = apply_bp<2, kk, double>(lev, BakeOff::bp5, d, u);
          double     s  = 0;
          for (index_t i = 0; i < lev.n_dofs(); ++i)
            if (!is_boundary(lev, i))
              s += v[i] * (a5[i] - a3[i]);
          diff.push_back(std::fabs(s));
        });
      for (std::size_t i = 1; i < diff.size(); ++i)
        {
          const double rate = std::log2(diff[i - 1] / diff[i]);
          EXPECT_GT(rate, 2 * k - 0.6) << "k=" << k << " rate " << rate << " " << diff[i - 1] << " -> " << diff[i];
        }
    }
}

// The kernels' fiber node indices (index arithmetic and boundary tests once per fiber) are
// cell_node's, node by node, for every fiber of every cell of a small mesh, with and without
// the boundary constraint.
TEST(BP, FiberNodeIndicesAreTheCellNodes)
{
  auto check = [](auto K) {
    constexpr int k = decltype(K)::value;
    using Kernel    = BPOperatorKernel<3, k, double, BakeOff::bp1>;
    Kernel        kern{};
    const index_t nc[3] = {3, 2, 4};
    for (int d = 0; d < 3; ++d)
      {
        kern.cells[d] = nc[d];
        kern.nodes[d] = nc[d] * k + 1;
      }
    // every face constrained, none, and Dirichlet faces x+, y-, z+ only (Neumann faces' nodes unknowns)
    for (unsigned constrained : {all_faces, 0u, 2u | 4u | 32u})
      {
        kern.constrained = constrained;
        int n_out        = 0;
        for (index_t cz = 0; cz < nc[2]; ++cz)
          for (index_t cy = 0; cy < nc[1]; ++cy)
            for (index_t cx = 0; cx < nc[0]; ++cx)
              {
                const index_t c0[3] = {cx * k, cy * k, cz * k};
                for (int a = 0; a <= k; ++a)
                  for (int b = 0; b <= k; ++b)
                    {
                      const auto y = kern.template node_fiber<1>(c0, a, b);
                      const auto z = kern.template node_fiber<2>(c0, a, b);
                      for (int j = 0; j <= k; ++j)
                        {
                          ASSERT_EQ(y(j), kern.node(c0, a, j, b))
                            << "k=" << k << " y fiber " << a << "," << b << " j=" << j;
                          ASSERT_EQ(z(j), kern.node(c0, a, b, j))
                            << "k=" << k << " z fiber " << a << "," << b << " j=" << j;
                          n_out += z(j) < 0;
                        }
                    }
              }
        // constrained: the boundary nodes, counted once per cell that touches them
        EXPECT_EQ(n_out > 0, constrained != 0);
      }
  };
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 5>{});
}

// The cell map in monomial form reproduces the vertices, and a column's Jacobian (base + t
// slope) is the derivative of the multilinear map, by central differences, in 2D and 3D.
TEST(BP, MonomialColumnIsTheJacobianOfTheMultilinearMap)
{
  std::mt19937                           gen(7);
  std::uniform_real_distribution<double> u(-0.2, 0.2), p(0.05, 0.95);
  for (int trial = 0; trial < 20; ++trial)
    {
      double v[8][3];
      for (int a = 0; a < 8; ++a)
        for (int r = 0; r < 3; ++r)
          v[a][r] = ((a >> r) & 1) * (1.0 + r) + u(gen);
      // x(ξ) by the multilinear blend of the vertices
      auto x = [&](int dim, const double *xi, int r) {
        double s = 0;
        for (int a = 0; a < (1 << dim); ++a)
          {
            double w = 1;
            for (int d = 0; d < dim; ++d)
              w *= (a >> d) & 1 ? xi[d] : 1 - xi[d];
            s += w * v[a][r];
          }
        return s;
      };
      for (int r = 0; r < 3; ++r)
        {
          double m[8];
          for (int a = 0; a < 8; ++a)
            m[a] = v[a][r];
          map_monomials<3>(m);
          for (int a = 0; a < 8; ++a) // at vertex a, Σ_b m_b Π_{d in b} ξ_d over b ⊆ a
            {
              double s = 0;
              for (int b = 0; b < 8; ++b)
                if ((b & a) == b)
                  s += m[b];
              EXPECT_NEAR(s, v[a][r], 1e-14);
            }
        }
      const double xi[3] = {p(gen), p(gen), p(gen)}, h = 1e-5;
      auto         check = [&](auto D) {
        constexpr int dim = decltype(D)::value;
        const auto    col = vertex_column<dim>(v, xi);
        const double  t   = xi[dim - 1];
        for (int c = 0; c < dim; ++c)
          for (int r = 0; r < dim; ++r)
            {
              double lo[3] = {xi[0], xi[1], xi[2]}, hi[3] = {xi[0], xi[1], xi[2]};
              lo[c] -= h;
              hi[c] += h;
              const double fd = (x(dim, hi, r) - x(dim, lo, r)) / (2 * h);
              EXPECT_NEAR(col.base[c][r] + t * col.slope[c][r], fd, 1e-8)
                << dim << "D column " << c << " component " << r;
            }
      };
      check(std::integral_constant<int, 2>{});
      check(std::integral_constant<int, 3>{});
    }
}

TEST(BP, PolynomialGeometryIsTheMassOperatorsAndItsBytesAreEstimated)
{
  // the node basis interpolates: L_r(node s) = δ_rs, in 2D and 3D
  for (int s = 0; s < 3; ++s)
    {
      double l3[3], l2[2];
      determinant_node_basis<3>(determinant_node<3>(s), l3);
      for (int r = 0; r < 3; ++r)
        EXPECT_EQ(l3[r], r == s ? 1.0 : 0.0);
      if (s < 2)
        {
          determinant_node_basis<2>(determinant_node<2>(s), l2);
          for (int r = 0; r < 2; ++r)
            EXPECT_EQ(l2[r], r == s ? 1.0 : 0.0);
        }
    }
  const DeformationSettings sine{Deformation::sine, 0.1};
  const auto                lev = box_level(3, 2, 1);
  EXPECT_THROW((BPOperator<3, 2, double>(lev, Backend::cpu, BakeOff::bp3, sine, true, GeometryMode::polynomial)),
               std::invalid_argument);
  EXPECT_THROW((BPOperator<3, 2, double>(lev, Backend::cpu, BakeOff::bp5, sine, true, GeometryMode::polynomial)),
               std::invalid_argument);
  const BPOperator<3, 2, double> d(lev, Backend::cpu, BakeOff::bp1, sine, false, GeometryMode::polynomial);
  const BPOperator<3, 2, float>  f(lev, Backend::cpu, BakeOff::bp1, sine, false, GeometryMode::polynomial);
  EXPECT_EQ(d.geometry_bytes(), bp_geometry_bytes(lev, BakeOff::bp1, GeometryMode::polynomial, sizeof(double)));
  EXPECT_EQ(f.geometry_bytes(), bp_geometry_bytes(lev, BakeOff::bp1, GeometryMode::polynomial, sizeof(float)));
  // 3 node values for each of the (k+2)^2 columns of points of a cell
  EXPECT_EQ(d.geometry_bytes(), std::size_t(lev.n_cells()) * 48 * sizeof(double));
  EXPECT_EQ(f.geometry_bytes(), std::size_t(lev.n_cells()) * 48 * sizeof(float));
}

TEST(DistributedOperator, TwoStepsLeaveOnlyTheInnerCellsNodesOpen)
{
  // apply_in_two_steps on a rank's part (the exchange of DistributedOperator runs in `between`):
  // the result equals vmult (residual), and when between() runs every node but those of the
  // inner cells holds its final value already; the Cartesian Laplacian (vmult and residual), BP5
  // with stored factors and BP3 on the fly on a Kershaw mesh, a Neumann face, 2D and 3D
  struct Case
  {
    int dim, level, ranks;
  };
  int checked = 0;
  for (const Case &c : {Case{3, 3, 4}, Case{2, 4, 2}, Case{3, 3, 8}})
    dispatch_dim(c.dim, [&](auto D) {
      constexpr int dim = decltype(D)::value, k = 2;
      Domain        dom;
      dom.dim                         = dim;
      dom.coarse_cells                = {3, 1, 1};       // (Kershaw: cells_x a multiple of 6)
      dom.dirichlet_faces             = all_faces & ~2u; // x+ Neumann
      const auto               levels = make_hierarchy(dom, k, c.level);
      const HierarchyPartition part(levels, make_process_grid(c.ranks, levels), 0);
      const int                l = int(levels.size()) - 1;
      for (int r = 0; r < c.ranks; ++r)
        {
          SCOPED_TRACE("dim " + std::to_string(dim) + " ranks " + std::to_string(c.ranks) + " rank " +
                       std::to_string(r));
          const CartesianLevel lev   = BoxLayout::plan(part, l, r).stored;
          const CellSplit      split = split_cells(lev);
          ASSERT_FALSE(split.near.empty());
          if (split.inner.count() == 0) // (a part too thin for inner cells)
            continue;
          Vector<double> x(lev.n_dofs(), Backend::cpu), b(lev.n_dofs(), Backend::cpu), ref, two, early;
          x.from_host(random_vector(lev, 3 + unsigned(r), true));
          b.from_host(random_vector(lev, 11 + unsigned(r), true));
          // nodes of the inner cells (the part's node coordinates)
          auto open = [&](index_t i) {
            const index_t g[3] = {i % lev.nodes(0), (i / lev.nodes(0)) % lev.nodes(1),
                                  i / (lev.nodes(0) * lev.nodes(1))};
            for (int d = 0; d < dim; ++d)
              if (g[d] < k * split.inner.begin[d] || g[d] > k * split.inner.end[d])
                return false;
            return true;
          };
          auto check = [&](const LinearOperator<double> &op, const Vector<double> *rhs, const char *what) {
            SCOPED_TRACE(what);
            if (rhs)
              op.residual(ref, *rhs, x);
            else
              op.vmult(ref, x);
            int calls = 0;
            ASSERT_TRUE(op.apply_in_two_steps(two, x, rhs, split, [&] {
              ++calls;
              early.reinit(two.size(), Backend::cpu, false);
              early.copy_from(two);
            }));
            ASSERT_EQ(calls, 1);
            const auto R = ref.to_host(), T = two.to_host(), E = early.to_host();
            double     scale = 0;
            for (double v : R)
              scale = std::max(scale, std::fabs(v));
            index_t closed = 0;
            for (index_t i = 0; i < lev.n_dofs(); ++i)
              {
                ASSERT_NEAR(T[std::size_t(i)], R[std::size_t(i)], 1e-13 * scale) << "node " << i;
                if (!open(i))
                  {
                    ASSERT_NEAR(E[std::size_t(i)], R[std::size_t(i)], 1e-13 * scale) << "node " << i << " not final";
                    ++closed;
                  }
              }
            EXPECT_GT(closed, 0);
            ++checked;
          };
          const CartesianLaplaceOperator<dim, k, double> laplace(lev, Backend::cpu);
          check(laplace, nullptr, "cartesian vmult");
          check(laplace, &b, "cartesian residual");
          const DeformationSettings        kershaw{Deformation::kershaw, 0.3};
          const BPOperator<dim, k, double> bp5(lev, Backend::cpu, BakeOff::bp5, kershaw);
          const BPOperator<dim, k, double> bp3(lev, Backend::cpu, BakeOff::bp3, kershaw, true,
                                               GeometryMode::on_the_fly);
          check(bp5, nullptr, "bp5 stored");
          check(bp3, nullptr, "bp3 on the fly");
          EXPECT_FALSE(bp5.apply_in_two_steps(two, x, &b, split, [] {})); // (no two-step residual)
        }
    });
  EXPECT_GE(checked, 4 * 8); // (the middle parts of a row of four have no inner cells)
}
