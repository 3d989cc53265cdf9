// The geometry-fitted patch surrogates (tpmg/fitted_patches.h) and their solves
// (tpmg/fitted_patch_solver.h) against dense references.
#include <kernels/common/mma.h>
#include <kernels/smoothers/patch_common.h>
#include <tpmg/dispatch.h>
#include <tpmg/fitted_patch_solver.h>
#include <tpmg/fitted_patches.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/patch_data.h>
#include <tpmg/robin_faces.h>
#include <tpmg/smoother_configuration.h>

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>

using namespace tpmg;

namespace
{
  CartesianLevel level_of(int dim, int k, std::array<index_t, 3> cells, std::array<double, 3> h,
                          unsigned dirichlet_faces = all_faces, unsigned robin_faces = 0)
  {
    Domain d;
    d.dim             = dim;
    d.dirichlet_faces = dirichlet_faces;
    d.robin_faces     = robin_faces;
    d.coarse_cells    = {int(cells[0]), int(cells[1]), int(cells[2])};
    for (int e = 0; e < 3; ++e)
      d.upper[e] = d.lower[e] + h[e] * double(cells[e]);
    return make_hierarchy(d, k, 0).back();
  }

  /// Uniform in [-1, 1] at every node of `lev`.
  std::vector<double> random_values(const CartesianLevel &lev, unsigned seed)
  {
    std::mt19937                     gen(seed);
    std::uniform_real_distribution<> u(-1, 1);
    std::vector<double>              v(std::size_t(lev.n_dofs()));
    for (double &x : v)
      x = u(gen);
    return v;
  }

  /// The fitted solve of every colour on a random residual, patch by patch against the dense
  /// inverse of that patch's surrogate: relative errors below `tol`; returns the largest.
  template <int dim, int k>
  double expect_solves_equal_dense(const CartesianLevel &lev, const DeformationSettings &def, bool lumped,
                                   const Coefficients &coefficient = {},
                                   FittedPatchKernel kernel = FittedPatchKernel::scalar, double tol = 1e-10)
  {
    FittedPatchSolver<dim, k, double> solver(lev, Backend::cpu, def, lumped, coefficient, nullptr, kernel);
    EXPECT_EQ(solver.kernel(), kernel);
    const std::vector<FittedPatchWidths> widths = fitted_patch_widths(lev, def, coefficient);
    const std::vector<double>            rh     = random_values(lev, 7);
    Vector<double>                       r(lev.n_dofs(), Backend::cpu);
    r.from_host(rh);
    const int ni = 2 * k - 1, n = dim == 3 ? ni * ni * ni : ni * ni;
    int       checked = 0;
    double    largest = 0;
    for (int color = 0; color < (1 << dim); ++color)
      {
        Vector<double> x(lev.n_dofs(), Backend::cpu);
        solver.solve_color(x, r, color);
        const std::vector<double> xh = x.to_host();
        // every interior vertex of this colour's parity
        const index_t nv[3] = {lev.cells[0] + 1, lev.cells[1] + 1, dim == 3 ? lev.cells[2] + 1 : 1};
        for (index_t vz = (dim == 3); vz < (dim == 3 ? nv[2] - 1 : 1); ++vz)
          for (index_t vy = 1; vy < nv[1] - 1; ++vy)
            for (index_t vx = 1; vx < nv[0] - 1; ++vx)
              {
                const index_t v[3] = {vx, vy, vz};
                bool          mine = true;
                for (int d = 0; d < dim; ++d)
                  mine = mine && (v[d] & 1) == ((color >> d) & 1);
                if (!mine)
                  continue;
                const FittedPatchWidths  &w = widths[std::size_t(vx + nv[0] * (vy + nv[1] * vz))];
                const std::vector<double> a = fitted_patch_matrix(dim, k, lumped, w);
                const Eigen::MatrixXd     A = Eigen::Map<const Eigen::MatrixXd>(a.data(), n, n);
                Eigen::VectorXd           rl(n), xl(n);
                for (int I = 0; I < n; ++I)
                  {
                    const index_t i[3] = {I % ni, (I / ni) % ni, I / (ni * ni)};
                    index_t       g[3] = {0, 0, 0};
                    for (int d = 0; d < dim; ++d)
                      g[d] = (v[d] - 1) * k + 1 + i[d];
                    const index_t node = lev.dof_index(g[0], g[1], g[2]);
                    rl(I)              = rh[std::size_t(node)];
                    xl(I)              = xh[std::size_t(node)];
                  }
                const Eigen::VectorXd ref = A.llt().solve(rl);
                const double          e   = (xl - ref).norm() / ref.norm();
                EXPECT_LT(e, tol) << to_string(kernel) << " " << dim << "D k=" << k << " patch (" << vx << "," << vy
                                  << "," << vz << ")";
                largest = std::max(largest, e);
                ++checked;
              }
      }
    EXPECT_GT(checked, 0);
    return largest;
  }

  /// The level's nodes of the unknowns of boundary patch p (lexicographic, x fastest).
  std::vector<index_t> boundary_patch_nodes(const CartesianLevel &lev, const FittedBoundaryPatch &p)
  {
    const int     dim = lev.dim, k = lev.degree;
    const index_t nv[3]    = {lev.cells[0] + 1, lev.cells[1] + 1, dim == 3 ? lev.cells[2] + 1 : 1};
    const index_t v[3]     = {p.vertex % nv[0], (p.vertex / nv[0]) % nv[1], p.vertex / (nv[0] * nv[1])};
    index_t       first[3] = {0, 0, 0}, n[3] = {1, 1, 1};
    for (int d = 0; d < dim; ++d)
      {
        const int t = p.kind[std::size_t(d)];
        first[d]    = t == 1 ? 0 : (v[d] - 1) * k + 1;
        n[d]        = t == 0 ? 2 * k - 1 : k;
      }
    std::vector<index_t> nodes;
    for (index_t l = 0; l < n[2]; ++l)
      for (index_t j = 0; j < n[1]; ++j)
        for (index_t i = 0; i < n[0]; ++i)
          nodes.push_back(lev.dof_index(first[0] + i, first[1] + j, first[2] + l));
    return nodes;
  }

  /// The fitted solves on the Neumann and Robin faces of every colour on a random residual, patch
  /// by patch against the dense inverse of that patch's surrogate; nothing written off the
  /// colour's patches.
  template <int dim, int k>
  void expect_boundary_solves_equal_dense(const CartesianLevel &lev, const DeformationSettings &def, bool lumped,
                                          const Coefficients &coefficients, const std::string &alpha)
  {
    const auto robin = make_robin_faces<double>(lev, alpha, Backend::cpu, def);
    ASSERT_EQ(robin != nullptr, (lev.robin_faces & ~lev.dirichlet_faces) != 0);
    FittedPatchSolver<dim, k, double> solver(lev, Backend::cpu, def, lumped, coefficients, robin);
    const auto patches           = fitted_boundary_patches(lev, def, coefficients, robin_cell_integrals(robin.get()));
    const std::vector<double> rh = random_values(lev, 11);
    Vector<double>            r(lev.n_dofs(), Backend::cpu);
    r.from_host(rh);
    int checked = 0;
    for (int color = 0; color < (1 << dim); ++color)
      {
        Vector<double> x(lev.n_dofs(), Backend::cpu);
        solver.solve_boundary_color(x, r, color);
        std::vector<double> xh = x.to_host();
        for (const FittedBoundaryPatch &p : patches[std::size_t(color)])
          {
            const std::vector<index_t> nodes = boundary_patch_nodes(lev, p);
            const int                  n     = int(nodes.size());
            const std::vector<double>  a     = fitted_boundary_patch_matrix(dim, k, lumped, p);
            ASSERT_EQ(a.size(), std::size_t(n) * std::size_t(n));
            const Eigen::MatrixXd A = Eigen::Map<const Eigen::MatrixXd>(a.data(), n, n);
            Eigen::VectorXd       rl(n), xl(n);
            for (int i = 0; i < n; ++i)
              {
                rl(i)                                  = rh[std::size_t(nodes[std::size_t(i)])];
                xl(i)                                  = xh[std::size_t(nodes[std::size_t(i)])];
                xh[std::size_t(nodes[std::size_t(i)])] = 0; // (what is left must be 0)
              }
            const Eigen::VectorXd ref = A.llt().solve(rl);
            EXPECT_LT((xl - ref).norm(), 1e-10 * ref.norm())
              << dim << "D k=" << k << " colour " << color << " patch at vertex " << p.vertex;
            ++checked;
          }
        for (std::size_t i = 0; i < xh.size(); ++i)
          ASSERT_EQ(xh[i], 0.0) << "node " << i << " written off the patches of colour " << color;
      }
    EXPECT_GT(checked, 0);
  }
} // namespace

// The cells' shear, max |Ḡ_de| / √(Ḡ_dd Ḡ_ee): 0 on boxes and on a polar map (its cells meet at
// right angles), and for the shear map (x + s y, y) with square cells J⁻¹J⁻ᵀ ∝ [[1 + s², −s], [−s,
// 1]], so s / √(1 + s²) on every cell, in 2D and in 3D (z untouched).
TEST(FittedPatches, CellShearMeasuresTheOffDiagonalMetric)
{
  for (int dim : {2, 3})
    {
      const CartesianLevel lev   = level_of(dim, 2, {4, 4, 4}, {0.25, 0.25, 0.25});
      double               shear = -1;
      fitted_cell_widths(lev, {}, &shear);
      EXPECT_LT(shear, 1e-14) << dim << "D box";
      for (const double s : {0.2, 0.5, 1.5})
        {
          DeformationSettings d;
          d.type = Deformation::function;
          d.map  = make_deformation_map("x + " + std::to_string(s) + " * y; y" + (dim == 3 ? "; z" : ""), dim);
          for (Mapping m : {Mapping::multilinear, Mapping::exact})
            {
              d.mapping = m;
              EXPECT_NEAR(fitted_cell_data(lev, d).shear, s / std::sqrt(1 + s * s), 1e-12) << dim << "D s = " << s;
            }
        }
      DeformationSettings polar;
      polar.type = Deformation::function;
      polar.map =
        make_deformation_map(std::string("(1 + x) * cos(y); (1 + x) * sin(y)") + (dim == 3 ? "; z" : ""), dim);
      fitted_cell_widths(lev, polar, &shear);
      EXPECT_LT(shear, 1e-12) << dim << "D polar";
    }
  // the built-in deformations, finest of four levels: Kershaw's transition layers shear its cells
  // beyond fitted_mild_shear at eps = 0.3, the sine map at amplitude 0.1 stays within it
  const std::vector<CartesianLevel> sine    = make_hierarchy(Domain{3, {{0, 0, 0}}, {{1, 1, 1}}, {{1, 1, 1}}}, 1, 3);
  const std::vector<CartesianLevel> kershaw = make_hierarchy(Domain{3, {{0, 0, 0}}, {{1, 1, 1}}, {{6, 6, 6}}}, 1, 1);
  EXPECT_LT(fitted_cell_data(sine.back(), {Deformation::sine, 0.1}).shear, fitted_mild_shear);
  EXPECT_GT(fitted_cell_data(kershaw.back(), {Deformation::kershaw, 0.3}).shear, fitted_mild_shear);
}

TEST(FittedPatches, CellWidthsAreExactOnUndeformedCells)
{
  for (int dim : {2, 3})
    {
      const CartesianLevel      lev = level_of(dim, 2, {3, 2, 2}, {0.5, 0.25, 2.0});
      const std::vector<double> h   = fitted_cell_widths(lev, {});
      for (index_t c = 0; c < lev.n_cells(); ++c)
        for (int d = 0; d < dim; ++d)
          EXPECT_NEAR(h[std::size_t(c) * dim + d], lev.h[d], 1e-14) << dim << "D cell " << c;
      // the patches: ratio 1, widths h, and the surrogate is the Cartesian patch matrix
      const std::vector<FittedPatchWidths> w = fitted_patch_widths(lev, DeformationSettings{});
      const FittedPatchWidths &p = w[std::size_t(1 + (lev.cells[0] + 1) * (1 + (lev.cells[1] + 1) * (dim == 3)))];
      std::array<double, 3>    coef{{1, 1, 1}};
      for (int d = 0; d < dim; ++d)
        {
          EXPECT_EQ(p.row[d], FittedRatioTable::n / 2);
          EXPECT_NEAR(p.a[d], lev.h[d], 1e-14);
          for (int e = 0; e < dim; ++e)
            coef[d] *= e == d ? 1.0 / lev.h[e] : lev.h[e];
        }
      for (bool lumped : {false, true})
        {
          const std::vector<double> fitted = fitted_patch_matrix(dim, 2, lumped, p);
          const std::vector<double> cart   = patch_interior_matrix(dim, 2, coef, lumped);
          ASSERT_EQ(fitted.size(), cart.size());
          for (std::size_t i = 0; i < cart.size(); ++i)
            EXPECT_NEAR(fitted[i], cart[i], 1e-12 * std::abs(cart[0]));
        }
    }
}

TEST(FittedPatches, RatioTableHoldsTheGeneralizedEigenpairs)
{
  for (int k : {1, 3, 8})
    for (bool lumped : {false, true})
      {
        const FittedRatioTable t  = fitted_ratio_table(k, lumped);
        const int              ni = 2 * k - 1;
        for (int row : {0, FittedRatioTable::n / 3, FittedRatioTable::n / 2, FittedRatioTable::n - 1})
          {
            Matrix1D M, K;
            two_cell_patch_matrices(k, lumped, 1.0, FittedRatioTable::ratio(row), M, K);
            Eigen::MatrixXd Mi(ni, ni), Ki(ni, ni), S(ni, ni);
            for (int a = 0; a < ni; ++a)
              for (int b = 0; b < ni; ++b)
                {
                  Mi(a, b) = M(a + 1, b + 1);
                  Ki(a, b) = K(a + 1, b + 1);
                  S(a, b)  = t.eigenvectors[(std::size_t(row) * ni + a) * ni + b];
                }
            const Eigen::MatrixXd I = S.transpose() * Mi * S, L = S.transpose() * Ki * S;
            EXPECT_LT((I - Eigen::MatrixXd::Identity(ni, ni)).norm(), 1e-11) << "k=" << k << " row " << row;
            for (int a = 0; a < ni; ++a)
              EXPECT_NEAR(L(a, a), t.eigenvalues[std::size_t(row) * ni + a], 1e-9 * L.norm());
            EXPECT_LT((L - Eigen::MatrixXd(L.diagonal().asDiagonal())).norm(), 1e-9 * L.norm());
          }
        EXPECT_EQ(FittedRatioTable::row(1.0), FittedRatioTable::n / 2);
        EXPECT_NEAR(FittedRatioTable::ratio(FittedRatioTable::row(1.3)), 1.3, 0.006 * 1.3);
      }
}

TEST(FittedPatches, SolveEqualsTheDenseInverseOnDeformedPatches)
{
  // sine and Kershaw meshes, 2D and 3D, Gauss and lumped masses
  const DeformationSettings sine{Deformation::sine, 0.15}, kershaw{Deformation::kershaw, 0.3};
  expect_solves_equal_dense<2, 3>(level_of(2, 3, {5, 4, 1}, {0.2, 0.25, 1}), sine, false);
  expect_solves_equal_dense<2, 4>(level_of(2, 4, {6, 4, 1}, {1.0 / 6, 0.25, 1}), kershaw, true);
  expect_solves_equal_dense<3, 2>(level_of(3, 2, {4, 3, 4}, {0.25, 1.0 / 3, 0.25}), sine, true);
  expect_solves_equal_dense<3, 3>(level_of(3, 3, {6, 4, 4}, {1.0 / 6, 0.25, 0.25}), kershaw, false);
}

// The CPU runner's TF32 rounding is cvt.rna.tf32.f32's: 10 mantissa bits kept, to nearest with
// ties away from zero, in the exponent's own scale; infinities stay.
TEST(FittedPatches, Tf32RoundingKeepsTenMantissaBits)
{
  const float u = std::ldexp(1.0f, -10); // the spacing of TF32 numbers in [1, 2)
  EXPECT_EQ(round_to_tf32(1.0f + u), 1.0f + u);
  EXPECT_EQ(round_to_tf32(1.0f + 0.5f * u), 1.0f + u);   // a tie: away from zero
  EXPECT_EQ(round_to_tf32(-1.0f - 0.5f * u), -1.0f - u); // the same below zero
  EXPECT_EQ(round_to_tf32(1.0f + 0.49f * u), 1.0f);
  EXPECT_EQ(round_to_tf32(3.0f + 2.25f * u), 3.0f + 2.0f * u); // spacing 2u in [2, 4)
  EXPECT_EQ(round_to_tf32(3.0f + 3.0f * u), 3.0f + 4.0f * u);  // a tie there: away from zero
  EXPECT_EQ(round_to_tf32(std::ldexp(1.0f + 0.5f * u, -20)), std::ldexp(1.0f + u, -20));
  EXPECT_EQ(round_to_tf32(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
  // every float's rounding error is at most half a TF32 spacing: 2^-11 relative
  std::mt19937                          gen(3);
  std::uniform_real_distribution<float> v(-100, 100);
  for (int i = 0; i < 1000; ++i)
    {
      const float x = v(gen), r = round_to_tf32(x);
      EXPECT_LE(std::fabs(r - x), std::ldexp(std::fabs(x), -11)) << x;
    }
}

// The tensor-core kernels (kernels/smoothers/patch_fitted_mma.h) on the CPU runner, which computes
// each lane's tile entries as dot products of the operands the tensor cores take: with FP64
// products the scalar kernel's solves to rounding; with TF32 operands (10 mantissa bits, unit
// roundoff u = 2^-11) each of the 2d contractions errs by about u relative, amplified where
// Λ⁻¹ spreads the modes: measured at most 1.3e-3 here (k = 2, 3, 5, 7), held below 0.02, and
// above 1e-5 (the rounding takes place).
TEST(FittedPatches, TensorKernelsEqualTheDenseInverse)
{
  const DeformationSettings kershaw{Deformation::kershaw, 0.3}, sine{Deformation::sine, 0.15};
  const FittedPatchKernel   fp64 = FittedPatchKernel::tensor_fp64, tf32 = FittedPatchKernel::tensor_tf32;
  const CartesianLevel      l2  = level_of(2, 7, {6, 4, 1}, {1.0 / 6, 0.25, 1});
  const CartesianLevel      l3a = level_of(3, 3, {6, 4, 4}, {1.0 / 6, 0.25, 0.25});
  const CartesianLevel      l3b = level_of(3, 2, {4, 3, 4}, {0.25, 1.0 / 3, 0.25});
  const CartesianLevel      l3c = level_of(3, 5, {6, 4, 4}, {1.0 / 6, 0.25, 0.25}); // two warps a patch
  expect_solves_equal_dense<2, 7>(l2, kershaw, true, {}, fp64);
  expect_solves_equal_dense<3, 3>(l3a, kershaw, false, {}, fp64);
  expect_solves_equal_dense<3, 2>(l3b, sine, true, {}, fp64);
  expect_solves_equal_dense<3, 5>(l3c, kershaw, true, {}, fp64);
  double largest = 0;
  largest        = std::max(largest, expect_solves_equal_dense<2, 7>(l2, kershaw, true, {}, tf32, 0.02));
  largest        = std::max(largest, expect_solves_equal_dense<3, 3>(l3a, kershaw, false, {}, tf32, 0.02));
  largest        = std::max(largest, expect_solves_equal_dense<3, 2>(l3b, sine, true, {}, tf32, 0.02));
  largest        = std::max(largest, expect_solves_equal_dense<3, 5>(l3c, kershaw, true, {}, tf32, 0.02));
  EXPECT_GT(largest, 1e-5);
  std::cout << "largest TF32 error relative to the dense solve: " << largest << "\n";
}

// With a coefficient every patch's surrogate is scaled by the mean of its cells' mean
// coefficients: the solves still equal the dense inverse of that scaled surrogate, and on an
// undeformed mesh with a constant coefficient per patch it is a times the Cartesian patch.
TEST(FittedPatches, CoefficientScalesTheSurrogates)
{
  const DeformationSettings sine{Deformation::sine, 0.15};
  for (int dim : {2, 3})
    {
      const Coefficient a = make_coefficient("2 + sin(3*x)*cos(2*y) + (x < 0.5 ? 5 : 0)", dim);
      if (dim == 2)
        {
          expect_solves_equal_dense<2, 3>(level_of(2, 3, {5, 4, 1}, {0.2, 0.25, 1}), sine, false, a);
          expect_solves_equal_dense<2, 2>(level_of(2, 2, {4, 4, 1}, {0.25, 0.25, 1}), {}, true, a);
        }
      else
        expect_solves_equal_dense<3, 2>(level_of(3, 2, {4, 3, 4}, {0.25, 1.0 / 3, 0.25}), sine, true, a);
      // a = 3 on the box: every interior patch's scale is 3 (the cell means, 3-point Gauss, exact)
      const CartesianLevel                 lev = level_of(dim, 2, {3, 3, 3}, {0.5, 0.25, 1.0});
      const std::vector<FittedPatchWidths> w   = fitted_patch_widths(lev, {}, make_coefficient("3", dim));
      const std::vector<FittedPatchWidths> one = fitted_patch_widths(lev, DeformationSettings{});
      const FittedPatchWidths &p = w[std::size_t(1 + (lev.cells[0] + 1) * (1 + (lev.cells[1] + 1) * (dim == 3)))];
      const FittedPatchWidths &q = one[std::size_t(1 + (lev.cells[0] + 1) * (1 + (lev.cells[1] + 1) * (dim == 3)))];
      EXPECT_NEAR(p.scale, 3.0, 1e-14);
      EXPECT_EQ(q.scale, 1.0);
      const std::vector<double> scaled = fitted_patch_matrix(dim, 2, false, p),
                                plain  = fitted_patch_matrix(dim, 2, false, q);
      for (std::size_t i = 0; i < plain.size(); ++i)
        EXPECT_NEAR(scaled[i], 3.0 * plain[i], 1e-12 * std::abs(plain[0]));
    }
}

// A reaction term c u adds γ times each surrogate's mass (γ the patch's mean c): the solves equal
// the dense inverses of σ L + γ M, and a constant c is every interior patch's γ.
TEST(FittedPatches, ReactionShiftsTheSurrogates)
{
  const DeformationSettings sine{Deformation::sine, 0.15};
  for (int dim : {2, 3})
    {
      const Coefficients ac(make_coefficient("2 + sin(3*x)*cos(2*y)", dim), make_reaction("50*(1 + cos(x + y))", dim));
      ASSERT_TRUE(ac.reaction.has_value());
      if (dim == 2)
        {
          expect_solves_equal_dense<2, 3>(level_of(2, 3, {5, 4, 1}, {0.2, 0.25, 1}), sine, false, ac);
          expect_solves_equal_dense<2, 2>(level_of(2, 2, {4, 4, 1}, {0.25, 0.25, 1}), {}, true,
                                          Coefficients({}, make_reaction("1e4", dim)));
        }
      else
        expect_solves_equal_dense<3, 2>(level_of(3, 2, {4, 3, 4}, {0.25, 1.0 / 3, 0.25}), sine, true, ac);
      const CartesianLevel                 lev = level_of(dim, 2, {3, 3, 3}, {0.5, 0.25, 1.0});
      const std::vector<FittedPatchWidths> w = fitted_patch_widths(lev, {}, Coefficients({}, make_reaction("7", dim)));
      const FittedPatchWidths &p = w[std::size_t(1 + (lev.cells[0] + 1) * (1 + (lev.cells[1] + 1) * (dim == 3)))];
      EXPECT_NEAR(p.reaction, 7.0, 1e-14);
      EXPECT_EQ(p.scale, 1.0);
      // the difference to the Laplacian's surrogate is 7 ⊗_d M_d: positive definite, so every
      // diagonal entry grows
      FittedPatchWidths q         = p;
      q.reaction                  = 0;
      const std::vector<double> r = fitted_patch_matrix(dim, 2, false, p), l = fitted_patch_matrix(dim, 2, false, q);
      const int                 n = dim == 3 ? 27 : 9;
      for (int i = 0; i < n; ++i)
        EXPECT_GT(r[std::size_t(i * n + i)], l[std::size_t(i * n + i)]);
    }
}

TEST(FittedPatches, WidthsFollowTheDeformation)
{
  // Kershaw ε = 0.3 squeezes the cells of some layers: the fitted widths differ from the box's
  // and from each other, and their ratios stay inside the table
  const CartesianLevel                 lev = level_of(3, 2, {6, 4, 4}, {1.0 / 6, 0.25, 0.25});
  const std::vector<FittedPatchWidths> w   = fitted_patch_widths(lev, {Deformation::kershaw, 0.3});
  double                               lo = 1e30, hi = 0;
  for (const FittedPatchWidths &p : w)
    for (int d = 1; d < 3; ++d)
      if (p.row[d] != FittedRatioTable::n / 2 || p.a[d] != 1.0)
        {
          lo = std::min(lo, p.a[d]);
          hi = std::max(hi, p.a[d]);
          EXPECT_GT(p.row[d], 0);
          EXPECT_LT(p.row[d], FittedRatioTable::n - 1);
        }
  EXPECT_GT(hi / lo, 2.0); // ε = 0.3: widths from 0.3 h to (2 - 0.3) h
}

// The patches on the Neumann and Robin faces of deformed levels (truncated along the faces'
// normals, a Robin face's mean α in the direction's 1D problem): every patch's solve equals the
// dense inverse of its surrogate, in 2D and 3D, with Gauss and lumped masses, a coefficient, a
// reaction term and an α that varies along the faces.
TEST(FittedPatches, BoundaryPatchSolvesEqualTheDenseSurrogates)
{
  const DeformationSettings sine{Deformation::sine, 0.15}, kershaw{Deformation::kershaw, 0.3};
  // faces x- Dirichlet, x+ Robin, y- Neumann, y+ Robin, z- Neumann, z+ Dirichlet
  const unsigned     dirichlet = 0x01 | 0x20, robin = 0x02 | 0x08;
  const Coefficients none, ac(make_coefficient("2 + sin(3*x)*cos(2*y)", 3), make_reaction("5*(1 + x*y)", 3));
  expect_boundary_solves_equal_dense<2, 1>(level_of(2, 1, {4, 3, 1}, {0.25, 1.0 / 3, 1}, dirichlet, robin), sine, false,
                                           none, "1 + x*x");
  expect_boundary_solves_equal_dense<2, 3>(level_of(2, 3, {5, 4, 1}, {0.2, 0.25, 1}, dirichlet, robin), sine, true,
                                           Coefficients(make_coefficient("2 + sin(3*x)*cos(2*y)", 2)), "3");
  expect_boundary_solves_equal_dense<2, 4>(level_of(2, 4, {6, 4, 1}, {1.0 / 6, 0.25, 1}, 0, 0), kershaw, false, none,
                                           "0"); // pure Neumann: every vertex has a patch
  expect_boundary_solves_equal_dense<3, 2>(level_of(3, 2, {4, 3, 4}, {0.25, 1.0 / 3, 0.25}, dirichlet, robin), sine,
                                           false, ac, "1 + x*x + 2*z");
  expect_boundary_solves_equal_dense<3, 3>(level_of(3, 3, {6, 4, 2}, {1.0 / 6, 0.25, 0.5}, 0, 0x3f), kershaw, true,
                                           none, "10"); // every face Robin
}

// All patches in one launch (all_colours, atomic additions; the additive Schwarz step's launch on
// the GPU) add what the colours add one after the other, the patches on Neumann and Robin faces
// included, with the scalar and the tensor kernels; AdditiveSchwarz gives the same z with either
// launch (FittedPatchLaunch). Double sums in another order: equal to 1e-13.
TEST(FittedPatches, AllPatchesInOneLaunchAddWhatTheColoursAdd)
{
  const DeformationSettings kershaw{Deformation::kershaw, 0.3}, sine{Deformation::sine, 0.15};
  // max |a - b| against 1e-13 max |a| (a not zero)
  auto expect_same_sums = [](const Vector<double> &x, const Vector<double> &y, const std::string &what) {
    const std::vector<double> a = x.to_host(), b = y.to_host();
    double                    norm = 0, diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      norm = std::max(norm, std::abs(a[i])), diff = std::max(diff, std::abs(a[i] - b[i]));
    EXPECT_GT(norm, 0.0) << what;
    EXPECT_LE(diff, 1e-13 * norm) << what;
  };
  auto check = [&](auto D, auto K, const CartesianLevel &lev, const DeformationSettings &def,
                   FittedPatchKernel kernel) {
    constexpr int                     dim = decltype(D)::value, k = decltype(K)::value;
    const Coefficients                none;
    const auto                        robin = make_robin_faces<double>(lev, "2", Backend::cpu, def);
    FittedPatchSolver<dim, k, double> solver(lev, Backend::cpu, def, false, none, robin, kernel);
    Vector<double>                    r(lev.n_dofs(), Backend::cpu), by_colour(lev.n_dofs(), Backend::cpu),
      at_once(lev.n_dofs(), Backend::cpu);
    r.from_host(random_values(lev, 5));
    for (int c = 0; c < solver.n_colors(); ++c)
      solver.solve_color(by_colour, r, c);
    solver.solve_color(at_once, r, all_colours);
    expect_same_sums(by_colour, at_once,
                     std::to_string(dim) + "D k=" + std::to_string(k) + " " + std::string(to_string(kernel)) +
                       (solver.has_boundary_patches() ? " with face patches" : ""));
    return solver.has_boundary_patches();
  };
  const FittedPatchKernel scalar = FittedPatchKernel::scalar, fp64 = FittedPatchKernel::tensor_fp64;
  // faces x- Dirichlet, x+ Robin, y- Neumann, y+ Robin, z- Neumann, z+ Dirichlet
  const unsigned dirichlet = 0x01 | 0x20, robin = 0x02 | 0x08;
  EXPECT_FALSE(check(std::integral_constant<int, 2>{}, std::integral_constant<int, 3>{},
                     level_of(2, 3, {5, 4, 1}, {0.2, 0.25, 1}), sine, scalar));
  EXPECT_TRUE(check(std::integral_constant<int, 2>{}, std::integral_constant<int, 2>{},
                    level_of(2, 2, {4, 3, 1}, {0.25, 1.0 / 3, 1}, dirichlet, robin), sine, scalar));
  EXPECT_TRUE(check(std::integral_constant<int, 3>{}, std::integral_constant<int, 2>{},
                    level_of(3, 2, {4, 3, 4}, {0.25, 1.0 / 3, 0.25}, dirichlet, robin), sine, scalar));
  EXPECT_FALSE(check(std::integral_constant<int, 3>{}, std::integral_constant<int, 3>{},
                     level_of(3, 3, {6, 4, 4}, {1.0 / 6, 0.25, 0.25}), kershaw, fp64));
  EXPECT_FALSE(check(std::integral_constant<int, 3>{}, std::integral_constant<int, 5>{},
                     level_of(3, 5, {6, 4, 4}, {1.0 / 6, 0.25, 0.25}), kershaw, fp64));

  // the additive Schwarz step with either launch, on the bp5 operator of a Kershaw level
  const CartesianLevel lev = level_of(3, 3, {6, 4, 4}, {1.0 / 6, 0.25, 0.25});
  const auto           op  = make_level_operator<3, 3, double>(lev, Backend::cpu, LevelOperatorType::bp5, kershaw);
  const FittedPatchSolver<3, 3, double> solver(lev, Backend::cpu, kershaw, true);
  const AdditiveSchwarz<3, 3, double>   colours(solver, *op, ExchangeOverlap::never, FittedPatchLaunch::by_colour),
    once(solver, *op, ExchangeOverlap::never, FittedPatchLaunch::all_at_once);
  Vector<double> r(lev.n_dofs(), Backend::cpu), z1, z2;
  r.from_host(random_values(lev, 9));
  colours.vmult(z1, r);
  once.vmult(z2, r);
  expect_same_sums(z1, z2, "AdditiveSchwarz, 3D k=3 bp5");
  // the rule of `automatic`: at once on the GPU, by colour on the CPU (the same sums on any
  // thread count)
  EXPECT_TRUE(fitted_patches_at_once(FittedPatchLaunch::automatic, Backend::cuda));
  EXPECT_FALSE(fitted_patches_at_once(FittedPatchLaunch::automatic, Backend::cpu));
  EXPECT_TRUE(fitted_patches_at_once(FittedPatchLaunch::all_at_once, Backend::cpu));
  EXPECT_FALSE(fitted_patches_at_once(FittedPatchLaunch::by_colour, Backend::cuda));
}

// On an undeformed box with constant a, c and α the fitted surrogate of a boundary patch is its
// exact local problem: it equals the level operator's block on the patch's unknowns.
TEST(FittedPatches, BoundaryPatchSurrogatesEqualTheOperatorOnBoxes)
{
  auto check = [](auto D, auto K, const CartesianLevel &lev) {
    constexpr int                                  dim = decltype(D)::value, k = decltype(K)::value;
    const Coefficients                             ac(make_coefficient("2", dim), make_reaction("3", dim));
    const auto                                     robin = make_robin_faces<double>(lev, "5", Backend::cpu);
    const CartesianLaplaceOperator<dim, k, double> op(lev, Backend::cpu, robin, ConstantCoefficients{2, 3});
    int                                            checked = 0, robin_patches = 0;
    for (const std::vector<FittedBoundaryPatch> &colour :
         fitted_boundary_patches(lev, {}, ac, robin_cell_integrals(robin.get())))
      for (const FittedBoundaryPatch &p : colour)
        {
          const std::vector<index_t> nodes = boundary_patch_nodes(lev, p);
          const std::size_t          n     = nodes.size();
          const std::vector<double>  a     = fitted_boundary_patch_matrix(dim, k, false, p);
          double                     norm  = 0;
          for (double v : a)
            norm = std::max(norm, std::abs(v));
          for (std::size_t j = 0; j < n; ++j)
            {
              Vector<double>      e(lev.n_dofs(), Backend::cpu), y;
              std::vector<double> eh(std::size_t(lev.n_dofs()), 0.0);
              eh[std::size_t(nodes[j])] = 1;
              e.from_host(eh);
              op.vmult(y, e);
              const std::vector<double> yh = y.to_host();
              for (std::size_t i = 0; i < n; ++i)
                EXPECT_NEAR(a[i + n * j], yh[std::size_t(nodes[i])], 1e-12 * norm)
                  << dim << "D k=" << k << " patch at vertex " << p.vertex << " (" << i << ", " << j << ")";
            }
          for (double b : p.beta)
            robin_patches += b > 0;
          ++checked;
        }
    EXPECT_GT(checked, 0);
    EXPECT_GT(robin_patches, 0);
  };
  // x- Dirichlet, x+ Robin, y- Neumann, y+ Robin (3D: z- Neumann, z+ Robin); widths 0.5, 0.25, 1
  check(std::integral_constant<int, 2>{}, std::integral_constant<int, 2>{},
        level_of(2, 2, {3, 4, 1}, {0.5, 0.25, 1}, 0x01, 0x0a));
  check(std::integral_constant<int, 2>{}, std::integral_constant<int, 4>{},
        level_of(2, 4, {2, 3, 1}, {0.5, 0.25, 1}, 0x01, 0x0a));
  check(std::integral_constant<int, 3>{}, std::integral_constant<int, 2>{},
        level_of(3, 2, {2, 3, 2}, {0.5, 0.25, 1}, 0x01, 0x2a));
  check(std::integral_constant<int, 3>{}, std::integral_constant<int, 3>{},
        level_of(3, 3, {2, 2, 2}, {0.5, 0.25, 1}, 0x01, 0x2a));
}
