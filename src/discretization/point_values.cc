#include <tpmg/box_layout.h>
#include <tpmg/device.h>
#include <tpmg/fe_1d.h>
#include <tpmg/point_values.h>
#include <tpmg/vector.h>

#include <algorithm>
#include <cmath>

namespace tpmg
{
  namespace
  {
    /// The multilinear map of one cell through its (deformed) vertices, x(ξ) = Σ_v w_v(ξ) X_v,
    /// and its Jacobian.
    struct CellMap
    {
      int                   dim = 3;
      std::array<double, 3> vertex[8]{};
      /// an exact map: F and its derivatives at [dim + r dim + d] (else null: multilinear)
      const std::vector<Expression> *exact = nullptr;
      std::array<double, 3>          lower{}, h{}; ///< the cell's box corner and widths (exact)

      void evaluate(const std::array<double, 3> &xi, std::array<double, 3> &x, double (&jacobian)[3][3]) const
      {
        x = {{0, 0, 0}};
        for (auto &row : jacobian)
          row[0] = row[1] = row[2] = 0;
        if (exact)
          {
            double x0[3] = {0, 0, 0};
            for (int d = 0; d < dim; ++d)
              x0[d] = lower[std::size_t(d)] + h[std::size_t(d)] * xi[std::size_t(d)];
            for (int c = 0; c < dim; ++c)
              {
                x[std::size_t(c)] = (*exact)[std::size_t(c)](x0[0], x0[1], x0[2]);
                for (int e = 0; e < dim; ++e)
                  jacobian[c][e] = (*exact)[std::size_t(dim + c * dim + e)](x0[0], x0[1], x0[2]) * h[std::size_t(e)];
              }
            return;
          }
        for (int v = 0; v < (1 << dim); ++v)
          {
            double w = 1, dw[3] = {1, 1, 1};
            for (int d = 0; d < dim; ++d)
              {
                const int    bit = (v >> d) & 1;
                const double f   = bit ? xi[std::size_t(d)] : 1 - xi[std::size_t(d)];
                w *= f;
                for (int e = 0; e < dim; ++e)
                  dw[e] *= e == d ? (bit ? 1.0 : -1.0) : f;
              }
            for (int c = 0; c < dim; ++c)
              {
                x[std::size_t(c)] += w * vertex[v][std::size_t(c)];
                for (int e = 0; e < dim; ++e)
                  jacobian[c][e] += dw[e] * vertex[v][std::size_t(c)];
              }
          }
      }
    };

    /// Solves J d = r for the dim x dim system (Cramer's rule; false where J is singular).
    bool solve_small(int dim, const double (&j)[3][3], const double (&r)[3], double (&d)[3])
    {
      if (dim == 2)
        {
          const double det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
          if (!(std::abs(det) > 0))
            return false;
          d[0] = (r[0] * j[1][1] - j[0][1] * r[1]) / det;
          d[1] = (j[0][0] * r[1] - r[0] * j[1][0]) / det;
          return true;
        }
      auto det3 = [](const double(&m)[3][3]) {
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
               m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
      };
      const double det = det3(j);
      if (!(std::abs(det) > 0))
        return false;
      for (int c = 0; c < 3; ++c)
        {
          double m[3][3];
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
              m[a][b] = b == c ? r[a] : j[a][b];
          d[c] = det3(m) / det;
        }
      return true;
    }
  } // namespace

  std::optional<PointLocation> locate_point(const CartesianLevel &level, const DeformationSettings &deformation,
                                            const std::array<double, 3> &x)
  {
    const int    dim = level.dim;
    const double tol = 1e-10; // how far outside [0, 1] a reference coordinate still counts as inside
    // the cell the undeformed box puts x in (clamped: the walk below corrects it)
    PointLocation p;
    for (int d = 0; d < dim; ++d)
      {
        const double t         = (x[std::size_t(d)] - level.origin(d)) / level.h[std::size_t(d)];
        p.cell[std::size_t(d)] = std::clamp<index_t>(index_t(std::floor(t)), 0, level.cells[std::size_t(d)] - 1);
        p.xi[std::size_t(d)]   = t - double(p.cell[std::size_t(d)]);
      }
    const bool deformed = deformation.type != Deformation::none;
    if (!deformed)
      {
        for (int d = 0; d < dim; ++d)
          if (p.xi[std::size_t(d)] < -tol || p.xi[std::size_t(d)] > 1 + tol)
            return std::nullopt;
          else
            p.xi[std::size_t(d)] = std::clamp(p.xi[std::size_t(d)], 0.0, 1.0);
        return p;
      }
    index_t steps = 2;
    for (int d = 0; d < dim; ++d)
      steps += level.cells[std::size_t(d)];
    // F, then DF, where the cells are the map's exact images
    const std::vector<Expression> exact =
      exact_mapping(deformation) ? map_with_derivatives(deformation, dim) : std::vector<Expression>();
    for (index_t step = 0; step < steps; ++step)
      {
        CellMap map;
        map.dim = dim;
        if (!exact.empty())
          {
            map.exact = &exact;
            for (int d = 0; d < dim; ++d)
              {
                map.lower[std::size_t(d)] = level.origin(d) + level.h[std::size_t(d)] * double(p.cell[std::size_t(d)]);
                map.h[std::size_t(d)]     = level.h[std::size_t(d)];
              }
          }
        for (int v = 0; v < (1 << dim); ++v)
          {
            std::array<double, 3> corner{{0, 0, 0}};
            for (int d = 0; d < dim; ++d)
              corner[std::size_t(d)] =
                level.origin(d) + level.h[std::size_t(d)] * double(p.cell[std::size_t(d)] + ((v >> d) & 1));
            map.vertex[v] = deformed_point(level, deformation, corner);
          }
        // Newton's method from the cell's centre (the map may reach beyond the cell)
        std::array<double, 3> xi{{0.5, 0.5, dim == 3 ? 0.5 : 0.0}};
        bool                  converged = false;
        for (int it = 0; it < 30 && !converged; ++it)
          {
            std::array<double, 3> y;
            double                j[3][3];
            map.evaluate(xi, y, j);
            double r[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]}, delta[3] = {0, 0, 0};
            if (!solve_small(dim, j, r, delta))
              break;
            double change = 0;
            for (int d = 0; d < dim; ++d)
              {
                xi[std::size_t(d)] += delta[d];
                change = std::max(change, std::abs(delta[d]));
              }
            converged = change < 1e-13;
            bool far  = !std::isfinite(change);
            for (int d = 0; d < dim; ++d)
              far = far || std::abs(xi[std::size_t(d)] - 0.5) > 1.5;
            if (far) // (the map extrapolated far beyond its cell: x lies in another cell)
              break;
          }
        for (int d = 0; d < dim; ++d)
          if (!std::isfinite(xi[std::size_t(d)]))
            return std::nullopt;
        // inside: done; outside: the neighbour in each direction where xi leaves [0, 1]
        bool inside = converged, moved = false;
        for (int d = 0; d < dim; ++d)
          {
            const std::size_t dd = std::size_t(d);
            if (xi[dd] >= -tol && xi[dd] <= 1 + tol)
              continue;
            inside                  = false;
            const index_t neighbour = p.cell[dd] + (xi[dd] < 0 ? -1 : 1);
            if (neighbour >= 0 && neighbour < level.cells[dd])
              {
                p.cell[dd] = neighbour;
                moved      = true;
              }
          }
        if (inside)
          {
            for (int d = 0; d < dim; ++d)
              p.xi[std::size_t(d)] = std::clamp(xi[std::size_t(d)], 0.0, 1.0);
            return p;
          }
        if (!moved) // beyond the mesh's boundary
          return std::nullopt;
      }
    return std::nullopt;
  }

  std::vector<double> point_values(const BoxLayout &layout, const Vector<double> &u,
                                   const std::vector<PointLocation> &where)
  {
    std::vector<double> values(where.size(), 0.0);
    if (layout.stores())
      {
        const CartesianLevel &part = layout.level();
        const int             dim  = part.dim;
        const index_t         k    = part.degree;
        const LagrangeBasis1D basis(unsigned(part.degree));
        for (std::size_t q = 0; q < where.size(); ++q)
          {
            // the owner of the point's cell (the owned boxes of the ranks do not overlap)
            index_t local[3] = {0, 0, 0};
            bool    mine     = true;
            for (int d = 0; d < dim; ++d)
              {
                local[d] = where[q].cell[std::size_t(d)] - part.global_offset(d);
                mine     = mine && local[d] >= part.owned_begin(d) && local[d] < part.owned_end(d);
              }
            if (!mine)
              continue;
            // the cell's nodal values, one x-row at a time
            std::vector<double> row(std::size_t(k + 1));
            double              sum = 0;
            for (index_t c = 0; c <= (dim == 3 ? k : 0); ++c)
              for (index_t b = 0; b <= k; ++b)
                {
                  const index_t first = part.dof_index(local[0] * k, local[1] * k + b, dim == 3 ? local[2] * k + c : 0);
                  copy_bytes(row.data(), Backend::cpu, u.data() + first, u.backend(), row.size() * sizeof(double));
                  double w = basis.value(unsigned(b), where[q].xi[1]);
                  if (dim == 3)
                    w *= basis.value(unsigned(c), where[q].xi[2]);
                  for (index_t a = 0; a <= k; ++a)
                    sum += w * basis.value(unsigned(a), where[q].xi[0]) * row[std::size_t(a)];
                }
            values[q] = sum;
          }
      }
    if (layout.comm().size() > 1 && !values.empty())
      layout.comm().sum(values.data(), int(values.size()));
    return values;
  }
} // namespace tpmg
