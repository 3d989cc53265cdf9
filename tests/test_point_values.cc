// The solution at points (point_values.h): on boxes the Q_k interpolant at a located point equals
// a polynomial of degree k per variable; on deformed meshes (sine, Kershaw) the cell walk finds
// the cell of a point placed by a cell's map, and a function linear in the physical coordinates
// (multilinear in the reference ones, so in the Q_k space of a multilinear cell) is reproduced;
// points outside the mesh are not located. min_max of a vector against a loop.
#include <tpmg/box_layout.h>
#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/point_values.h>
#include <tpmg/vector.h>
#include <tpmg/vector_ops.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

using namespace tpmg;

namespace
{
  using Point = std::array<double, 3>;

  /// The position of a point of reference coordinates xi in `cell`: the multilinear map
  /// through the cell's deformed vertices.
  Point map_point(const CartesianLevel &lev, const DeformationSettings &s, const std::array<index_t, 3> &cell,
                  const Point &xi)
  {
    Point x{{0, 0, 0}};
    for (int v = 0; v < (1 << lev.dim); ++v)
      {
        Point  corner{{0, 0, 0}};
        double w = 1;
        for (int d = 0; d < lev.dim; ++d)
          {
            const int bit          = (v >> d) & 1;
            corner[std::size_t(d)] = lev.origin(d) + lev.h[std::size_t(d)] * double(cell[std::size_t(d)] + bit);
            w *= bit ? xi[std::size_t(d)] : 1 - xi[std::size_t(d)];
          }
        const Point y = s.type == Deformation::none ? corner : deformed_point(lev, s, corner);
        for (int d = 0; d < 3; ++d)
          x[std::size_t(d)] += w * y[std::size_t(d)];
      }
    return x;
  }

  /// u at every node of the level (where the cells' maps put the nodes).
  Vector<double> nodal(const CartesianLevel &lev, const DeformationSettings &s, const std::function<double(Point)> &u)
  {
    const LagrangeBasis1D basis(unsigned(lev.degree));
    const auto           &gll = basis.support_points();
    std::vector<double>   h(std::size_t(lev.n_dofs()));
    const index_t         k = lev.degree;
    for (index_t l = 0; l < lev.nodes(2); ++l)
      for (index_t j = 0; j < lev.nodes(1); ++j)
        for (index_t i = 0; i < lev.nodes(0); ++i)
          {
            const index_t          g[3] = {i, j, l};
            std::array<index_t, 3> cell{{0, 0, 0}};
            Point                  xi{{0, 0, 0}};
            for (int d = 0; d < lev.dim; ++d)
              {
                cell[std::size_t(d)] = std::min(g[d] / k, lev.cells[std::size_t(d)] - 1);
                xi[std::size_t(d)]   = gll[std::size_t(g[d] - cell[std::size_t(d)] * k)];
              }
            h[std::size_t(lev.dof_index(i, j, l))] = u(map_point(lev, s, cell, xi));
          }
    Vector<double> v(lev.n_dofs(), Backend::cpu);
    v.from_host(h);
    return v;
  }
} // namespace

TEST(PointValues, BoxInterpolantEqualsPolynomialsOfDegreeK)
{
  std::mt19937 gen(7);
  for (int dim : {2, 3})
    for (int k = 1; k <= 4; ++k)
      {
        Domain d;
        d.dim                    = dim;
        d.lower                  = {-1, 0.5, 2};
        d.upper                  = {1, 2, 3};
        d.coarse_cells           = {2, 1, 1};
        const CartesianLevel lev = make_hierarchy(d, k, 1).back();
        auto                 u   = [&](const Point &x) { // degree k in each variable
          double p = 1;
          for (int c = 0; c < dim; ++c)
            p *= 1 + 0.7 * x[std::size_t(c)] - std::pow(0.6 * x[std::size_t(c)] - 0.1 * c, k);
          return p;
        };
        const BoxLayout                        layout(lev, Backend::cpu);
        const Vector<double>                   v      = nodal(lev, {}, u);
        std::vector<Point>                     points = {d.lower, d.upper, {{0, 1.25, 2.5}}};
        std::uniform_real_distribution<double> t(0, 1);
        for (int q = 0; q < 20; ++q)
          {
            Point x{{0, 0, 0}};
            for (int c = 0; c < dim; ++c)
              x[std::size_t(c)] =
                d.lower[std::size_t(c)] + t(gen) * (d.upper[std::size_t(c)] - d.lower[std::size_t(c)]);
            points.push_back(x);
          }
        std::vector<PointLocation> where;
        for (Point &x : points)
          {
            if (dim == 2)
              x[2] = 0;
            const auto at = locate_point(lev, {}, x);
            ASSERT_TRUE(at) << format_point(x, dim);
            where.push_back(*at);
          }
        const std::vector<double> values = point_values(layout, v, where);
        for (std::size_t q = 0; q < points.size(); ++q)
          EXPECT_NEAR(values[q], u(points[q]), 1e-12 * (1 + std::abs(u(points[q]))))
            << dim << "D k = " << k << " at " << format_point(points[q], dim);
        // outside the box, and on its faces
        EXPECT_FALSE(locate_point(lev, {}, {{1.01, 1, 2.5}}));
        EXPECT_FALSE(locate_point(lev, {}, {{0, 0.49, 2.5}}));
        EXPECT_TRUE(locate_point(lev, {}, {{1.0, 2.0, dim == 3 ? 3.0 : 0.0}}));
      }
}

TEST(PointValues, DeformedMeshesLocatePointsAndReproduceLinearFunctions)
{
  std::mt19937 gen(11);
  for (int dim : {2, 3})
    for (const DeformationSettings &s :
         {DeformationSettings{Deformation::sine, 0.2}, DeformationSettings{Deformation::kershaw, 0.3}})
      for (int k : {1, 3})
        {
          Domain d;
          d.dim                    = dim;
          d.coarse_cells           = {6, 2, 2};
          const CartesianLevel lev = make_hierarchy(d, k, 1).back(); // 12 x 4 (x 4) cells
          auto                 u   = [](const Point &x) { return 1 + 2 * x[0] - 3 * x[1] + 0.5 * x[2]; };
          const BoxLayout      layout(lev, Backend::cpu);
          const Vector<double> v = nodal(lev, s, u);
          std::uniform_real_distribution<double> t(0, 1);
          std::vector<Point>                     points;
          std::vector<PointLocation>             where;
          for (int q = 0; q < 30; ++q)
            {
              std::array<index_t, 3> cell{{0, 0, 0}};
              Point                  xi{{0, 0, 0}};
              for (int c = 0; c < dim; ++c)
                {
                  cell[std::size_t(c)] =
                    std::min(index_t(t(gen) * double(lev.cells[std::size_t(c)])), lev.cells[std::size_t(c)] - 1);
                  xi[std::size_t(c)] = 0.05 + 0.9 * t(gen);
                }
              const Point x  = map_point(lev, s, cell, xi);
              const auto  at = locate_point(lev, s, x);
              ASSERT_TRUE(at) << format_point(x, dim);
              EXPECT_EQ(at->cell, cell) << format_point(x, dim);
              for (int c = 0; c < dim; ++c)
                EXPECT_NEAR(at->xi[std::size_t(c)], xi[std::size_t(c)], 1e-11);
              points.push_back(x);
              where.push_back(*at);
            }
          const std::vector<double> values = point_values(layout, v, where);
          for (std::size_t q = 0; q < points.size(); ++q)
            EXPECT_NEAR(values[q], u(points[q]), 1e-11) << format_point(points[q], dim);
          EXPECT_FALSE(locate_point(lev, s, {{1.2, 0.5, 0.5}}));
          EXPECT_FALSE(locate_point(lev, s, {{0.5, -0.1, 0.5}}));
        }
}

TEST(PointValues, MinMaxOfAVector)
{
  std::vector<double> h = {3, -1, 7.5, 2, -4.25, 0};
  Vector<double>      v(index_t(h.size()), Backend::cpu);
  v.from_host(h);
  const std::array<double, 2> m = min_max(v);
  EXPECT_EQ(m[0], -4.25);
  EXPECT_EQ(m[1], 7.5);
  Vector<float> empty(0, Backend::cpu);
  EXPECT_EQ(min_max(empty)[1], -std::numeric_limits<double>::infinity());
}
