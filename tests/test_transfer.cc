// Prolongation interpolates coarse Q_k functions exactly; restriction is its transpose.
#include <tpmg/dispatch.h>
#include <tpmg/transfer.h>

#include <gtest/gtest.h>

#include "reference.h"

using namespace tpmg;
using namespace tpmg::test;

namespace
{
  // Value of the coarse FE function (nodal values u) at point x, by direct evaluation.
  double evaluate(const CartesianLevel &lev, const LagrangeBasis1D &b, const std::vector<double> &u,
                  const std::array<double, 3> &x)
  {
    index_t cell[3] = {0, 0, 0};
    double  xi[3]   = {0, 0, 0};
    for (int d = 0; d < lev.dim; ++d)
      {
        const double t = (x[d] - lev.lower[d]) / lev.h[d];
        cell[d]        = std::min<index_t>(index_t(t), lev.cells[d] - 1);
        xi[d]          = t - double(cell[d]);
      }
    const int n = lev.degree + 1;
    double    v = 0;
    for (int l = 0; l < (lev.dim == 3 ? n : 1); ++l)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          {
            double phi = b.value(i, xi[0]) * b.value(j, xi[1]);
            if (lev.dim == 3)
              phi *= b.value(l, xi[2]);
            v += phi * u[lev.dof_index(cell[0] * lev.degree + i, cell[1] * lev.degree + j,
                                       lev.dim == 3 ? cell[2] * lev.degree + l : 0)];
          }
    return v;
  }

  /// Dirichlet faces of the cases: all, or all but x+, y-, z+, or all but x-, y+, z- (the
  /// nodes of the others are unknowns the transfers interpolate and restrict like interior ones)
  const unsigned face_cases[] = {all_faces, all_faces & ~(2u | 4u | 32u), all_faces & ~(1u | 8u | 16u)};

  class TransferTest : public ::testing::TestWithParam<std::tuple<int, int>>
  {};
} // namespace

TEST_P(TransferTest, ProlongationInterpolatesAndRestrictionIsTranspose)
{
  // (no structured binding: lambdas capture these, which C++17 does not allow)
  const int dim = std::get<0>(GetParam()), k = std::get<1>(GetParam());
  for (unsigned faces : face_cases)
    {
      SCOPED_TRACE("Dirichlet faces " + std::to_string(faces));
      Domain d;
      d.dim              = dim;
      d.upper            = {1.0, 2.0, 0.5};
      d.coarse_cells     = {2, 1, 3};
      d.dirichlet_faces  = faces;
      const auto  levels = make_hierarchy(d, k, dim == 3 && k > 4 ? 1 : 2);
      const auto &fine = levels.back(), &coarse = levels[levels.size() - 2];
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          if constexpr (dd == 2 || kk <= 8)
            {
              Transfer<dd, kk, double> t(coarse, fine, Backend::cpu);
              const auto               uc = random_vector(coarse, 21);
              Vector<double>           c(coarse.n_dofs(), Backend::cpu), f(fine.n_dofs(), Backend::cpu);
              c.from_host(uc);
              // prolongate_add adds: start from a known fine vector
              const auto f0 = random_vector(fine, 22);
              f.from_host(f0);
              t.prolongate_add(f, c);
              const auto            pf = f.to_host();
              const LagrangeBasis1D b(kk);
              double                max_err = 0;
              for (index_t l = 0; l < fine.nodes(2); ++l)
                for (index_t j = 0; j < fine.nodes(1); ++j)
                  for (index_t i = 0; i < fine.nodes(0); ++i)
                    {
                      const index_t               g = fine.dof_index(i, j, l);
                      const std::array<double, 3> x{fine.node_coordinate(0, i, b.support_points()),
                                                    fine.node_coordinate(1, j, b.support_points()),
                                                    dd == 3 ? fine.node_coordinate(2, l, b.support_points()) : 0.0};
                      const double expect = is_boundary(fine, g) ? f0[g] : f0[g] + evaluate(coarse, b, uc, x);
                      max_err             = std::max(max_err, std::fabs(pf[g] - expect));
                    }
              EXPECT_LT(max_err, 1e-12);

              // (R r, v) = (r, P v) for random r (fine) and v (coarse)
              const auto     r = random_vector(fine, 23);
              const auto     v = random_vector(coarse, 24);
              Vector<double> rf(fine.n_dofs(), Backend::cpu), rc, vc(coarse.n_dofs(), Backend::cpu),
                pv(fine.n_dofs(), Backend::cpu);
              rf.from_host(r);
              vc.from_host(v);
              t.restrict_to(rc, rf);
              t.prolongate_add(pv, vc);
              const auto Rr = rc.to_host(), Pv = pv.to_host();
              double     lhs = 0, rhs = 0, scale = 0;
              for (index_t g = 0; g < coarse.n_dofs(); ++g)
                {
                  lhs += Rr[g] * v[g];
                  if (is_boundary(coarse, g))
                    {
                      EXPECT_EQ(Rr[g], 0.0);
                    }
                }
              for (index_t g = 0; g < fine.n_dofs(); ++g)
                {
                  rhs += r[g] * Pv[g];
                  scale += std::fabs(r[g] * Pv[g]);
                }
              EXPECT_NEAR(lhs, rhs, 1e-13 * scale);

              // float path agrees with double
              Transfer<dd, kk, float> tf(coarse, fine, Backend::cpu);
              Vector<float>           rff(fine.n_dofs(), Backend::cpu), rcf;
              rff.from_host(std::vector<float>(r.begin(), r.end()));
              tf.restrict_to(rcf, rff);
              EXPECT_LT(rel_diff(rcf.to_host(), Rr), 1e-6);
            }
          else
            FAIL() << "3D transfers exist for k <= 8 only";
        });
      });
    }
}

// 2D: k = 1..10, 3D: k = 1..8 (the multigrid's range)
INSTANTIATE_TEST_SUITE_P(Degrees2D, TransferTest, ::testing::Combine(::testing::Values(2), ::testing::Range(1, 11)),
                         [](const auto &param_info) {
                           return std::to_string(std::get<0>(param_info.param)) + "D_k" +
                                  std::to_string(std::get<1>(param_info.param));
                         });
INSTANTIATE_TEST_SUITE_P(Degrees3D, TransferTest, ::testing::Combine(::testing::Values(3), ::testing::Range(1, 9)),
                         [](const auto &param_info) {
                           return std::to_string(std::get<0>(param_info.param)) + "D_k" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

// The transfer between Q_k and Q_1 on the same cells (the coarse solve by degree): P maps Q_1
// functions into the Q_k space, so on a Cartesian level the Q_k energy of P u equals the Q_1
// energy of u (both exact); the restriction is Pᵀ.
#include <kernels/runtime/forall.h>
#include <kernels/transfer/degree_transfer.h>
#include <src/multigrid/transfer_builders.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/multigrid.h>

#include <random>

namespace
{
  template <int dim, int k>
  void expect_degree_transfer_is_exact()
  {
    Domain d;
    d.dim                   = dim;
    d.coarse_cells          = {3, 2, 4};
    d.upper                 = {1.5, 1.0, 0.5};
    const CartesianLevel lk = make_hierarchy(d, k, 0).back();
    const CartesianLevel l1 = linear_level(lk);
    using namespace transfer_kernels;
    const DegreeTransferShape        s = degree_transfer_shape(lk);
    std::mt19937                     gen(3);
    std::uniform_real_distribution<> u(-1, 1);
    auto                             interior_random = [&](const CartesianLevel &l) {
      std::vector<double> v(std::size_t(l.n_dofs()), 0.0);
      for (index_t c = 0; c < l.nodes(2); ++c)
        for (index_t b = 0; b < l.nodes(1); ++b)
          for (index_t a = 0; a < l.nodes(0); ++a)
            if (!l.on_boundary(a, b, c))
              v[std::size_t(l.dof_index(a, b, c))] = u(gen);
      return v;
    };
    auto prolongate = [&](const std::vector<double> &x1) {
      std::vector<double> xk(std::size_t(lk.n_dofs()), 0.0);
      forall(Backend::cpu, lk.n_dofs(), ProlongateFromQ1<double>{s, x1.data(), xk.data()});
      return xk;
    };
    auto apply = [](const CartesianLevel &l, const std::vector<double> &x, auto op) {
      Vector<double> src(l.n_dofs(), Backend::cpu), dst;
      src.from_host(x);
      op.vmult(dst, src);
      return dst.to_host();
    };
    auto dot = [](const std::vector<double> &a, const std::vector<double> &b) {
      return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
    };
    const std::vector<double> x1 = interior_random(l1), y1 = interior_random(l1);
    const std::vector<double> ak =
      apply(lk, prolongate(x1), CartesianLaplaceOperator<dim, k, double>(lk, Backend::cpu));
    const std::vector<double> a1 = apply(l1, x1, CartesianLaplaceOperator<dim, 1, double>(l1, Backend::cpu));
    EXPECT_NEAR(dot(prolongate(y1), ak), dot(y1, a1), 1e-12 * std::abs(dot(y1, a1))) << dim << "D k=" << k;
    // restriction = prolongationᵀ
    const std::vector<double> rk = interior_random(lk);
    std::vector<double>       r1(std::size_t(l1.n_dofs()), 7.0);
    forall(Backend::cpu, l1.n_dofs(), RestrictToQ1<double>{s, rk.data(), r1.data()});
    EXPECT_NEAR(dot(r1, x1), dot(rk, prolongate(x1)), 1e-12 * std::abs(dot(r1, x1))) << dim << "D k=" << k;
    for (index_t c = 0; c < l1.nodes(2); ++c)
      for (index_t b = 0; b < l1.nodes(1); ++b)
        for (index_t a = 0; a < l1.nodes(0); ++a)
          if (l1.on_boundary(a, b, c))
            {
              EXPECT_EQ(r1[std::size_t(l1.dof_index(a, b, c))], 0.0);
            }
  }
} // namespace

TEST(DegreeTransfer, ProlongationKeepsTheEnergyAndRestrictionIsItsTranspose)
{
  expect_degree_transfer_is_exact<2, 2>();
  expect_degree_transfer_is_exact<2, 5>();
  expect_degree_transfer_is_exact<3, 3>();
  expect_degree_transfer_is_exact<3, 7>();
}
