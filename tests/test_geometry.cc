// Deformed-mesh geometry (tpmg/geometry.h) and the independent BP reference assembly
// (tests/reference_bp.h).
#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <src/discretization/level_mesh.h>

#include <gtest/gtest.h>

#include "reference.h"
#include "reference_bp.h"

#include <cmath>
#include <random>
#include <string>

using namespace tpmg;
using namespace tpmg::test;

namespace
{

  /// Level 0 of a box with the given cells per direction.
  CartesianLevel make_level(int dim, int degree, std::array<int, 3> cells,
                            std::array<double, 3> lower = {{-0.5, 0.25, 1.0}},
                            std::array<double, 3> upper = {{1.5, 1.0, 1.6}})
  {
    Domain dom;
    dom.dim          = dim;
    dom.lower        = lower;
    dom.upper        = upper;
    dom.coarse_cells = cells;
    return make_hierarchy(dom, degree, 0)[0];
  }

  double extent(const CartesianLevel &lev, int d) { return lev.h[d] * double(lev.cells[d]); }
  double upper(const CartesianLevel &lev, int d) { return lev.lower[d] + extent(lev, d); }
  double box_volume(const CartesianLevel &lev)
  {
    double v = 1;
    for (int d = 0; d < lev.dim; ++d)
      v *= extent(lev, d);
    return v;
  }

  DeformationSettings sine(double a) { return {Deformation::sine, a}; }
  DeformationSettings kershaw(double eps) { return {Deformation::kershaw, eps}; }

  std::string name(const DeformationSettings &s)
  {
    const char *t = s.type == Deformation::none ? "none" : s.type == Deformation::sine ? "sine" : "kershaw";
    return std::string(t) + "(" + std::to_string(s.amplitude) + ")";
  }

  /// Random point of the box with normalized coordinates in [0,1].
  std::array<double, 3> random_point(const CartesianLevel &lev, std::mt19937 &gen)
  {
    std::uniform_real_distribution<double> u(0, 1);
    std::array<double, 3>                  x{{0, 0, 0}};
    for (int d = 0; d < lev.dim; ++d)
      x[d] = lev.lower[d] + u(gen) * extent(lev, d);
    return x;
  }

  /// The unconstrained operator applied with stored geometric factors, written naively (no sum
  /// factorization): v = Σ_cells B^T D B u with the BP definitions of the factors.
  std::vector<double> apply_with_factors(const CartesianLevel &lev, const Quadrature1D &q, GeometricFactorKind kind,
                                         const std::vector<double> &factors, const std::vector<double> &u)
  {
    const int       dim = lev.dim, k = lev.degree, n = k + 1;
    const int       nd = dim == 3 ? n * n * n : n * n;
    const int       nq = int(q.size());
    const int       np = dim == 3 ? nq * nq * nq : nq * nq;
    const int       ne = n_geometric_entries(dim, kind);
    LagrangeBasis1D basis(k);
    const Matrix1D  V = basis.values(q.points), D = basis.derivatives(q.points);
    // reference values and gradients of all basis functions at all points
    std::vector<double> phi(std::size_t(np) * nd), dphi(std::size_t(np) * nd * dim);
    for (int p = 0; p < np; ++p)
      for (int I = 0; I < nd; ++I)
        {
          const int qi[3] = {p % nq, (p / nq) % nq, dim == 3 ? p / (nq * nq) : 0};
          const int ii[3] = {I % n, (I / n) % n, dim == 3 ? I / (n * n) : 0};
          double    v     = 1;
          for (int d = 0; d < dim; ++d)
            {
              v *= V(qi[d], ii[d]);
              double g = 1;
              for (int e = 0; e < dim; ++e)
                g *= e == d ? D(qi[e], ii[e]) : V(qi[e], ii[e]);
              dphi[(std::size_t(p) * nd + I) * dim + d] = g;
            }
          phi[std::size_t(p) * nd + I] = v;
        }
    std::vector<double> out(u.size(), 0.0);
    index_t             cell = 0;
    for (index_t cz = 0; cz < (dim == 3 ? lev.cells[2] : 1); ++cz)
      for (index_t cy = 0; cy < lev.cells[1]; ++cy)
        for (index_t cx = 0; cx < lev.cells[0]; ++cx, ++cell)
          {
            std::vector<double> ul(nd), vl(nd, 0.0);
            for (int I = 0; I < nd; ++I)
              ul[I] = u[cell_node(lev, cx, cy, cz, I)];
            const double *f = factors.data() + std::size_t(cell) * ne * np;
            for (int p = 0; p < np; ++p)
              {
                if (kind == GeometricFactorKind::mass)
                  {
                    double uq = 0;
                    for (int I = 0; I < nd; ++I)
                      uq += phi[std::size_t(p) * nd + I] * ul[I];
                    for (int I = 0; I < nd; ++I)
                      vl[I] += phi[std::size_t(p) * nd + I] * f[p] * uq;
                    continue;
                  }
                double G[3][3];
                int    e = 0;
                for (int a = 0; a < dim; ++a)
                  for (int b = a; b < dim; ++b, ++e)
                    G[a][b] = G[b][a] = f[std::size_t(e) * np + p];
                double g[3] = {0, 0, 0};
                for (int I = 0; I < nd; ++I)
                  for (int d = 0; d < dim; ++d)
                    g[d] += dphi[(std::size_t(p) * nd + I) * dim + d] * ul[I];
                double Gg[3] = {0, 0, 0};
                for (int a = 0; a < dim; ++a)
                  for (int b = 0; b < dim; ++b)
                    Gg[a] += G[a][b] * g[b];
                for (int I = 0; I < nd; ++I)
                  for (int d = 0; d < dim; ++d)
                    vl[I] += dphi[(std::size_t(p) * nd + I) * dim + d] * Gg[d];
              }
            for (int I = 0; I < nd; ++I)
              out[cell_node(lev, cx, cy, cz, I)] += vl[I];
          }
    return out;
  }
} // namespace

// ------------------------------------------------------------------------------------------
// deformed_point
// ------------------------------------------------------------------------------------------

TEST(Geometry, SineIsIdentityOnTheBoundary)
{
  std::mt19937 gen(1);
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 2, {{4, 3, 5}});
      for (double a : {0.1, dim == 3 ? 0.27 : 0.3})
        for (int face = 0; face < 2 * dim; ++face)
          for (int sample = 0; sample < 20; ++sample)
            {
              auto      x  = random_point(lev, gen);
              const int d  = face / 2;
              x[d]         = face % 2 ? upper(lev, d) : lev.lower[d];
              const auto y = deformed_point(lev, sine(a), x);
              for (int e = 0; e < 3; ++e)
                EXPECT_NEAR(y[e], x[e], 1e-15 * extent(lev, e % dim))
                  << "dim " << dim << " face " << face << " amplitude " << a;
            }
    }
}

TEST(Geometry, KershawMapsEveryFaceOntoItself)
{
  std::mt19937 gen(2);
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 1, {{6, 2, 4}});
      for (int face = 0; face < 2 * dim; ++face)
        for (int sample = 0; sample < 20; ++sample)
          {
            auto      x  = random_point(lev, gen);
            const int d  = face / 2;
            x[d]         = face % 2 ? upper(lev, d) : lev.lower[d];
            const auto y = deformed_point(lev, kershaw(0.3), x);
            EXPECT_NEAR(y[d], x[d], 1e-15 * extent(lev, d)) << "face " << face;
            for (int e = 0; e < dim; ++e)
              {
                EXPECT_GE(y[e], lev.lower[e] - 1e-15);
                EXPECT_LE(y[e], upper(lev, e) + 1e-15);
              }
          }
      // not the identity on x faces: the other coordinates are moved within the face
      const auto y = deformed_point(lev, kershaw(0.3), {{lev.lower[0], lev.lower[1] + 0.25 * extent(lev, 1), 1.3}});
      EXPECT_GT(std::abs(y[1] - (lev.lower[1] + 0.25 * extent(lev, 1))), 0.1 * extent(lev, 1));
    }
}

TEST(Geometry, IdentityWithoutDeformation)
{
  std::mt19937 gen(3);
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 3, {{12, 4, 2}});
      for (const auto &s : {DeformationSettings{}, sine(0.0), kershaw(1.0)})
        for (int sample = 0; sample < 200; ++sample)
          {
            const auto x = random_point(lev, gen);
            const auto y = deformed_point(lev, s, x);
            for (int e = 0; e < 3; ++e)
              EXPECT_NEAR(y[e], x[e], 1e-14) << name(s);
          }
      // and the deformed vertices are the Cartesian ones
      const auto v = deformed_vertices(lev, kershaw(1.0));
      ASSERT_EQ(v.size(), std::size_t(13 * 5 * (dim == 3 ? 3 : 1) * 3));
      for (std::size_t g = 0; g < v.size() / 3; ++g)
        {
          const index_t i[3] = {index_t(g % 13), index_t((g / 13) % 5), index_t(g / 65)};
          for (int d = 0; d < 3; ++d)
            EXPECT_NEAR(v[3 * g + d], d < dim ? lev.lower[d] + double(i[d]) * lev.h[d] : 0.0, 1e-14);
        }
    }
}

TEST(Geometry, MapsMatchTheirDefinitionAtKnownPoints)
{
  // unit box: sine moves the center by amplitude in every direction
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 1, {{6, 2, 2}}, {{0, 0, 0}}, {{1, 1, 1}});
      const auto y   = deformed_point(lev, sine(0.25), {{0.5, 0.5, dim == 3 ? 0.5 : 0.0}});
      for (int d = 0; d < dim; ++d)
        EXPECT_NEAR(y[d], 0.75, 1e-15);
      // x' = x + a sin(πx) sin(πy) [sin(πz)]
      const std::array<double, 3> x{{0.2, 0.7, 0.4}};
      const double prod = std::sin(pi * 0.2) * std::sin(pi * 0.7) * (dim == 3 ? std::sin(pi * 0.4) : 1.0);
      const auto   z    = deformed_point(lev, sine(0.2), x);
      for (int d = 0; d < dim; ++d)
        EXPECT_NEAR(z[d], x[d] + 0.2 * prod, 1e-15);
      // Kershaw ε = 0.3: L(1/4) = 0.075, R(1/4) = 0.425, L(3/4) = 0.575, R(3/4) = 0.925
      const double eps = 0.3;
      struct Case
      {
        double xi_x, wR; // weight of R_ε
      };
      for (const Case c : {Case{1.0 / 12, 0}, Case{0.25, 0.5}, Case{2.5 / 6, 0.75}, Case{0.5, 0.5}, Case{3.5 / 6, 0.25},
                           Case{4.5 / 6, 0.5}, Case{11.0 / 12, 1}, Case{1.0, 1.0}})
        {
          const auto k = deformed_point(lev, kershaw(eps), {{c.xi_x, 0.25, dim == 3 ? 0.75 : 0.0}});
          EXPECT_NEAR(k[0], c.xi_x, 1e-15);
          EXPECT_NEAR(k[1], (1 - c.wR) * 0.075 + c.wR * 0.425, 1e-15) << "xi_x = " << c.xi_x;
          if (dim == 3)
            {
              EXPECT_NEAR(k[2], (1 - c.wR) * 0.575 + c.wR * 0.925, 1e-15) << "xi_x = " << c.xi_x;
            }
        }
    }
}

TEST(Geometry, RejectsInvalidSettings)
{
  const auto l2 = make_level(2, 2, {{6, 2, 1}});
  const auto l3 = make_level(3, 2, {{6, 2, 2}});
  for (double a : {-0.01, 0.31, std::nan("")})
    EXPECT_THROW(deformed_point(l2, sine(a), {{0, 0.5, 0}}), std::invalid_argument) << a;
  EXPECT_NO_THROW(deformed_point(l2, sine(0.3), {{0, 0.5, 0}}));
  // in 3D the smooth sine map folds beyond √3/(2π) ≈ 0.2757
  EXPECT_NO_THROW(deformed_point(l3, sine(0.27), {{0, 0.5, 1.2}}));
  try
    {
      deformed_point(l3, sine(0.28), {{0, 0.5, 1.2}});
      ADD_FAILURE() << "no exception";
    }
  catch (const std::invalid_argument &e)
    {
      EXPECT_NE(std::string(e.what()).find("fold"), std::string::npos) << e.what();
    }
  for (double eps : {0.0, -0.5, 1.01, std::nan("")})
    EXPECT_THROW(geometric_factors(l3, kershaw(eps), gauss_quadrature(3), GeometricFactorKind::mass),
                 std::invalid_argument)
      << eps;
  for (auto cells : {std::array<int, 3>{{4, 2, 2}}, std::array<int, 3>{{6, 3, 2}}, std::array<int, 3>{{6, 2, 1}},
                     std::array<int, 3>{{3, 2, 2}}})
    {
      const auto lev = make_level(3, 1, cells);
      try
        {
          deformed_vertices(lev, kershaw(0.5));
          ADD_FAILURE() << "no exception for " << lev.describe();
        }
      catch (const std::invalid_argument &e)
        {
          EXPECT_NE(std::string(e.what()).find("cells_x % 6 == 0"), std::string::npos) << e.what();
        }
    }
  EXPECT_NO_THROW(deformed_vertices(make_level(2, 1, {{12, 4, 3}}), kershaw(0.5))); // z ignored in 2D
  EXPECT_EQ(n_geometric_entries(2, GeometricFactorKind::mass), 1);
  EXPECT_EQ(n_geometric_entries(3, GeometricFactorKind::mass), 1);
  EXPECT_EQ(n_geometric_entries(2, GeometricFactorKind::laplace), 3);
  EXPECT_EQ(n_geometric_entries(3, GeometricFactorKind::laplace), 6);
}

TEST(Geometry, MapsAreContinuous)
{
  // across the Kershaw layer boundaries (x = j/6), its kinks (y, z = 1/2), and everywhere for sine
  std::mt19937 gen(4);
  const double delta = 1e-9;
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 1, {{6, 2, 2}});
      for (const auto &s : {kershaw(0.3), kershaw(0.05), sine(dim == 3 ? 0.27 : 0.3)})
        for (int sample = 0; sample < 40; ++sample)
          for (int d = 0; d < dim; ++d)
            for (int j = 1; j < (d == 0 ? 6 : 2); ++j)
              {
                auto x  = random_point(lev, gen);
                x[d]    = lev.lower[d] + extent(lev, d) * (d == 0 ? j / 6.0 : 0.5);
                auto xm = x, xp = x;
                xm[d] -= delta * extent(lev, d);
                xp[d] += delta * extent(lev, d);
                const auto ym = deformed_point(lev, s, xm), yp = deformed_point(lev, s, xp);
                double     dist = 0;
                for (int e = 0; e < dim; ++e)
                  dist = std::max(dist, std::abs(yp[e] - ym[e]));
                EXPECT_LT(dist, 10 * delta * 2.0) << name(s) << " direction " << d << " j " << j;
              }
    }
}

TEST(Geometry, DeformedVerticesAreTheDeformedPoints)
{
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 2, {{6, 4, 2}});
      for (const auto &s : {kershaw(0.3), sine(0.2)})
        {
          const auto    v  = deformed_vertices(lev, s);
          const index_t nx = 7, ny = 5, nz = dim == 3 ? 3 : 1;
          ASSERT_EQ(v.size(), std::size_t(nx * ny * nz * 3));
          for (index_t iz = 0; iz < nz; ++iz)
            for (index_t iy = 0; iy < ny; ++iy)
              for (index_t ix = 0; ix < nx; ++ix)
                {
                  const std::array<double, 3> x{{lev.lower[0] + ix * lev.h[0], lev.lower[1] + iy * lev.h[1],
                                                 dim == 3 ? lev.lower[2] + iz * lev.h[2] : 0.0}};
                  const auto                  y = deformed_point(lev, s, x);
                  const std::size_t           g = std::size_t(ix + nx * (iy + ny * iz));
                  for (int d = 0; d < 3; ++d)
                    EXPECT_NEAR(v[3 * g + d], y[d], 1e-14) << name(s) << " vertex " << g;
                }
        }
    }
}

TEST(Geometry, KershawIsReproducedByTheMultilinearCells)
{
  // all kinks lie on cell faces, so the multilinear map of each cell is the Kershaw map itself
  std::mt19937                           gen(5);
  std::uniform_real_distribution<double> u(0, 1);
  for (int dim = 2; dim <= 3; ++dim)
    {
      const auto lev = make_level(dim, 1, {{12, 4, 2}});
      const auto s   = kershaw(0.2);
      for (index_t cz = 0; cz < (dim == 3 ? 2 : 1); ++cz)
        for (index_t cy = 0; cy < 4; ++cy)
          for (index_t cx = 0; cx < 12; ++cx)
            {
              const auto X = bp_cell_vertices(lev, s, cx, cy, cz);
              for (int sample = 0; sample < 5; ++sample)
                {
                  const std::array<double, 3> xi{{u(gen), u(gen), dim == 3 ? u(gen) : 0.0}};
                  const index_t               c[3] = {cx, cy, cz};
                  std::array<double, 3>       x{{0, 0, 0}};
                  for (int d = 0; d < dim; ++d)
                    x[d] = lev.lower[d] + (double(c[d]) + xi[d]) * lev.h[d];
                  const auto            y = deformed_point(lev, s, x);
                  const Eigen::Vector3d m = bp_cell_map(dim, X, xi);
                  for (int d = 0; d < dim; ++d)
                    EXPECT_NEAR(m(d), y[d], 1e-14) << "cell " << cx << "," << cy << "," << cz;
                }
            }
    }
}

// ------------------------------------------------------------------------------------------
// geometric_factors
// ------------------------------------------------------------------------------------------

TEST(GeometricFactors, MassFactorsSumToTheBoxVolume)
{
  // 1ᵀ·BP1·1 = volume: the deformed cells tile the box exactly, and |J| of a multilinear map is
  // integrated exactly by Gauss rules with >= 2 points
  for (int dim = 2; dim <= 3; ++dim)
    for (const auto &s : {DeformationSettings{}, sine(0.2), sine(dim == 3 ? 0.23 : 0.3), kershaw(0.3), kershaw(0.05)})
      for (int k : {1, 2, 4})
        {
          // sine: fine enough that the multilinear cells do not fold (see FoldedMeshIsRejected)
          const auto lev =
            s.type == Deformation::sine
              ? make_level(dim, k, dim == 3 ? std::array<int, 3>{{12, 12, 12}} : std::array<int, 3>{{32, 32, 1}})
              : make_level(dim, k, {{6, 4, 2}});
          const auto q  = gauss_quadrature(k + 2);
          const auto f  = geometric_factors(lev, s, q, GeometricFactorKind::mass);
          const int  np = dim == 3 ? (k + 2) * (k + 2) * (k + 2) : (k + 2) * (k + 2);
          ASSERT_EQ(f.size(), std::size_t(lev.n_cells() * np));
          double total = 0, max_cell_change = 0;
          for (index_t c = 0; c < lev.n_cells(); ++c)
            {
              double vol = 0;
              for (int p = 0; p < np; ++p)
                vol += f[std::size_t(c) * np + p];
              total += vol;
              max_cell_change =
                std::max(max_cell_change, std::abs(vol / (lev.h[0] * lev.h[1] * (dim == 3 ? lev.h[2] : 1)) - 1));
            }
          EXPECT_NEAR(total, box_volume(lev), 1e-12 * box_volume(lev)) << name(s) << " dim " << dim << " k " << k;
          if (s.type != Deformation::none) // the cells really are deformed
            {
              EXPECT_GT(max_cell_change, 0.05) << name(s);
            }
        }
}

TEST(GeometricFactors, PositiveJacobianOnDeformedLevels)
{
  for (int dim = 2; dim <= 3; ++dim)
    {
      std::vector<std::pair<CartesianLevel, DeformationSettings>> cases;
      // the multilinear cells of coarse sine-deformed meshes fold before the smooth map does:
      // with 0.2, 3D needs >= 4 cells per direction (FoldedMeshIsRejected)
      for (int n : {dim == 3 ? 4 : 2, 5, 8, 12})
        cases.push_back({make_level(dim, 2, {{n, n, n}}), sine(0.2)});
      for (int n : {1, 2, 4})
        cases.push_back({make_level(dim, 2, {{6 * n, 2 * n, 2 * n}}), kershaw(0.3)});
      for (const auto &[lev, s] : cases)
        for (const auto &q : {gauss_quadrature(4), gauss_lobatto_quadrature(3)})
          {
            std::vector<double> f;
            ASSERT_NO_THROW(f = geometric_factors(lev, s, q, GeometricFactorKind::mass)) << lev.describe();
            for (double v : f)
              ASSERT_GT(v, 0.0) << name(s) << " " << lev.describe();
          }
    }
}

TEST(GeometricFactors, FoldedMeshIsRejected)
{
  // a valid smooth map on a mesh too coarse for it: with 2x2 cells the middle vertex moves to
  // (0.8, 0.8) and the upper right cell becomes a non-convex quadrilateral
  const auto lev = make_level(2, 1, {{2, 2, 1}}, {{0, 0, 0}}, {{1, 1, 1}});
  EXPECT_THROW(geometric_factors(lev, sine(0.3), gauss_lobatto_quadrature(2), GeometricFactorKind::laplace),
               std::runtime_error);
  EXPECT_NO_THROW(geometric_factors(lev, sine(0.1), gauss_lobatto_quadrature(2), GeometricFactorKind::laplace));
  // 3D: amplitude 0.2 folds the 2x2x2 mesh (at 1/6 the middle vertex makes the corner cells
  // degenerate), not the 4x4x4 one
  for (const auto &q : {gauss_quadrature(3), gauss_lobatto_quadrature(3)})
    {
      EXPECT_THROW(geometric_factors(make_level(3, 1, {{2, 2, 2}}), sine(0.2), q, GeometricFactorKind::mass),
                   std::runtime_error);
      EXPECT_NO_THROW(geometric_factors(make_level(3, 1, {{2, 2, 2}}), sine(0.15), q, GeometricFactorKind::mass));
      EXPECT_NO_THROW(geometric_factors(make_level(3, 1, {{4, 4, 4}}), sine(0.2), q, GeometricFactorKind::mass));
    }
}

TEST(GeometricFactors, CartesianFactorsAreTheCellWidths)
{
  for (int dim = 2; dim <= 3; ++dim)
    for (const auto &s : {DeformationSettings{}, sine(0.0), kershaw(1.0)})
      {
        const auto   lev = make_level(dim, 3, {{6, 4, 2}}); // anisotropic cells
        const auto   q   = gauss_quadrature(5);
        const auto   fm  = geometric_factors(lev, s, q, GeometricFactorKind::mass);
        const auto   fl  = geometric_factors(lev, s, q, GeometricFactorKind::laplace);
        const int    nq = 5, np = dim == 3 ? 125 : 25, ne = dim == 3 ? 6 : 3;
        const double vol = lev.h[0] * lev.h[1] * (dim == 3 ? lev.h[2] : 1);
        ASSERT_EQ(fl.size(), std::size_t(lev.n_cells() * ne * np));
        for (index_t c = 0; c < lev.n_cells(); ++c)
          for (int p = 0; p < np; ++p)
            {
              const double w = q.weights[p % nq] * q.weights[(p / nq) % nq] * (dim == 3 ? q.weights[p / (nq * nq)] : 1);
              EXPECT_NEAR(fm[std::size_t(c) * np + p], w * vol, 1e-14 * w * vol);
              int e = 0;
              for (int a = 0; a < dim; ++a)
                for (int b = a; b < dim; ++b, ++e)
                  {
                    const double expected = a == b ? w * vol / (lev.h[a] * lev.h[a]) : 0.0;
                    EXPECT_NEAR(fl[(std::size_t(c) * ne + e) * np + p], expected,
                                1e-13 * w * vol / (lev.h[0] * lev.h[0]))
                      << name(s) << " cell " << c << " point " << p << " entry " << e;
                  }
            }
      }
}

TEST(GeometricFactors, AgreeWithTheReferenceAssembly)
{
  // the operator applied with the stored factors (naive B^T D B) against the reference matrix
  struct Rule
  {
    const char         *name;
    GeometricFactorKind kind;
    bool                lobatto;
  };
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= (dim == 3 ? 3 : 4); ++k)
      for (const auto &s : {sine(0.12), kershaw(0.3)})
        for (const Rule r :
             {Rule{"bp1", GeometricFactorKind::mass, false}, Rule{"bp3", GeometricFactorKind::laplace, false},
              Rule{"bp5", GeometricFactorKind::laplace, true}})
          {
            const auto            lev = make_level(dim, k, {{6, 2, 2}});
            const auto            q   = r.lobatto ? gauss_lobatto_quadrature(k + 1) : gauss_quadrature(k + 2);
            const auto            f   = geometric_factors(lev, s, q, r.kind);
            const auto            A   = assemble_bp(lev, s, q, r.kind, false);
            const auto            u   = random_vector(lev, 10 * k + dim, true);
            const auto            v   = apply_with_factors(lev, q, r.kind, f, u);
            const Eigen::VectorXd ref = A * to_eigen(u);
            EXPECT_LT(rel_diff(v, to_std(ref)), 1e-13) << r.name << " " << name(s) << " dim " << dim << " k " << k;
          }
}

// ------------------------------------------------------------------------------------------
// reference assembly
// ------------------------------------------------------------------------------------------

TEST(ReferenceBP, CartesianBP3IsTheKroneckerLaplacian)
{
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 3; ++k)
      {
        const auto                        lev  = make_level(dim, k, {{3, 2, 2}});
        const Eigen::SparseMatrix<double> A    = assemble_bp3(lev, {});
        const Eigen::SparseMatrix<double> Aref = assemble_laplace(lev);
        EXPECT_LT((A - Aref).norm(), 1e-12 * Aref.norm()) << "dim " << dim << " k " << k;
        // BP5 is a different discretization for k >= 2 (inexact GLL quadrature)
        const Eigen::SparseMatrix<double> A5 = assemble_bp5(lev, {});
        if (k == 1)
          {
            EXPECT_GT((A5 - Aref).norm(), 1e-3 * Aref.norm()); // 2-point GLL is inexact already
          }
      }
}

TEST(ReferenceBP, SymmetricWithConstantsInTheKernelAndVolume)
{
  for (int dim = 2; dim <= 3; ++dim)
    for (int k : {1, 3})
      for (const auto &s : {sine(0.12), kershaw(0.3)})
        {
          const auto lev = make_level(dim, k, {{6, 2, 2}});
          for (int bp : {1, 3, 5})
            for (bool dirichlet : {true, false})
              {
                const Eigen::SparseMatrix<double> A  = bp == 1   ? assemble_bp1(lev, s, dirichlet)
                                                       : bp == 3 ? assemble_bp3(lev, s, dirichlet)
                                                                 : assemble_bp5(lev, s, dirichlet);
                const Eigen::SparseMatrix<double> At = A.transpose();
                EXPECT_LT((A - At).norm(), 1e-14 * A.norm()) << "bp" << bp << " " << name(s);
                const Eigen::VectorXd one = Eigen::VectorXd::Ones(lev.n_dofs());
                if (!dirichlet && bp != 1)
                  {
                    EXPECT_LT((A * one).norm(), 1e-12 * A.norm()) << "bp" << bp << " " << name(s);
                  }
                if (!dirichlet && bp == 1)
                  {
                    EXPECT_NEAR(one.dot(A * one), box_volume(lev), 1e-12 * box_volume(lev)) << name(s);
                  }
                if (dirichlet)
                  {
                    Eigen::SimplicialLLT<Eigen::SparseMatrix<double>> llt(A);
                    EXPECT_EQ(llt.info(), Eigen::Success) << "bp" << bp << " " << name(s) << " not SPD";
                  }
              }
        }
}

TEST(ReferenceBP, PhysicalCoordinatesAreIntegratedExactly)
{
  // The multilinear cell maps lie in Q_k, so the physical coordinates x_d are in the mapped Q_k
  // space. For the unconstrained Laplacian A (exact quadrature): (A x_d)_i = ∫ ∇x_d·∇φ_i = 0 for
  // interior nodes i, x_dᵀ A x_e = δ_de · volume. Checked for the reference matrix and for the
  // operator with stored factors.
  for (int dim = 2; dim <= 3; ++dim)
    for (int k = 1; k <= 3; ++k)
      for (const auto &s : {sine(0.12), kershaw(0.3)})
        for (bool lobatto : {false, true})
          {
            if (lobatto && k == 1)
              continue; // 2-point Gauss–Lobatto does not integrate these exactly
            const auto                   lev = make_level(dim, k, {{6, 2, 2}});
            const auto                   q   = lobatto ? gauss_lobatto_quadrature(k + 1) : gauss_quadrature(k + 2);
            const auto                   A   = assemble_bp(lev, s, q, GeometricFactorKind::laplace, false);
            const auto                   f   = geometric_factors(lev, s, q, GeometricFactorKind::laplace);
            std::vector<Eigen::VectorXd> x, Ax, Fx;
            for (int d = 0; d < dim; ++d)
              {
                x.push_back(to_eigen(bp_coordinate_function(lev, s, d)));
                Ax.push_back(A * x.back());
                Fx.push_back(to_eigen(apply_with_factors(lev, q, GeometricFactorKind::laplace, f, to_std(x.back()))));
              }
            const double vol = box_volume(lev);
            for (int d = 0; d < dim; ++d)
              {
                double max_interior = 0, max_interior_f = 0;
                for (index_t g = 0; g < lev.n_dofs(); ++g)
                  if (!is_boundary(lev, g))
                    {
                      max_interior   = std::max(max_interior, std::abs(Ax[d](g)));
                      max_interior_f = std::max(max_interior_f, std::abs(Fx[d](g)));
                    }
                const std::string what = name(s) + " dim " + std::to_string(dim) + " k " + std::to_string(k) +
                                         (lobatto ? " GLL" : " Gauss") + " d " + std::to_string(d);
                EXPECT_LT(max_interior, 1e-12) << what;
                EXPECT_LT(max_interior_f, 1e-12) << what;
                for (int e = 0; e < dim; ++e)
                  {
                    EXPECT_NEAR(x[e].dot(Ax[d]), d == e ? vol : 0.0, 1e-12 * vol) << what << " e " << e;
                    EXPECT_NEAR(x[e].dot(Fx[d]), d == e ? vol : 0.0, 1e-12 * vol) << what << " e " << e;
                  }
              }
          }
}

TEST(Geometry, FactorsAtPointsEqualTheHostLoop)
{
  // geometric_factors_at_points (the GPU's path, here run on the CPU) against geometric_factors:
  // box, sine, Kershaw, an exact function map (polar), mass and Laplacian, with and without a
  // coefficient, Gauss and Gauss-Lobatto rules, 2D and 3D, a rank's part; a folded mesh throws
  for (int dim : {2, 3})
    {
      Domain dom;
      dom.dim                    = dim;
      dom.coarse_cells           = {3, 1, 1};
      const CartesianLevel whole = make_hierarchy(dom, 3, 1).back();
      DeformationSettings  polar;
      polar.type = Deformation::function;
      polar.map =
        make_deformation_map(dim == 3 ? "(1 + x)*cos(y); (1 + x)*sin(y); z" : "(1 + x)*cos(y); (1 + x)*sin(y)", dim);
      const Coefficient a = make_coefficient("1 + x*x + 0.5*sin(3*y)", dim);
      for (const DeformationSettings &s : {DeformationSettings{}, sine(0.15), kershaw(0.3), polar})
        for (const Quadrature1D &q : {gauss_quadrature(5), gauss_lobatto_quadrature(4)})
          for (GeometricFactorKind kind : {GeometricFactorKind::mass, GeometricFactorKind::laplace})
            for (const Coefficient &c : {Coefficient{}, a})
              {
                SCOPED_TRACE("dim " + std::to_string(dim) + " " +
                             (s.type == Deformation::function ? "polar" : name(s)) + " points " +
                             std::to_string(q.size()) + (kind == GeometricFactorKind::mass ? " mass" : " laplace") +
                             (c ? " coefficient" : ""));
                const std::vector<double> ref = geometric_factors(whole, s, q, kind, c);
                Vector<double>            at;
                geometric_factors_at_points(whole, s, q, kind, c, Backend::cpu, at);
                const std::vector<double> got = at.to_host();
                ASSERT_EQ(got.size(), ref.size());
                double scale = 0;
                for (double v : ref)
                  scale = std::max(scale, std::fabs(v));
                for (std::size_t i = 0; i < ref.size(); ++i)
                  ASSERT_NEAR(got[i], ref[i], 1e-13 * scale) << "entry " << i;
              }
      // a folded mesh (det DF = 2x - 1 changes sign inside the cells next to x = 1/2): an error
      DeformationSettings fold;
      fold.type = Deformation::function;
      fold.map  = make_deformation_map(dim == 3 ? "x*x - x; y; z" : "x*x - x; y", dim);
      Vector<double> at;
      EXPECT_ANY_THROW(geometric_factors_at_points(whole, fold, gauss_quadrature(3), GeometricFactorKind::laplace, {},
                                                   Backend::cpu, at));
    }
}
