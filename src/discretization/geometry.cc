#include <tpmg/geometry.h>
#include <tpmg/parameters.h>

#include <src/discretization/level_mesh.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace
  {

    /// sin(π t) for t in [0,1], exactly zero at t = 0 and t = 1.
    double sin_pi(double t) { return std::sin(pi * (t <= 0.5 ? t : 1.0 - t)); }

    /// Kershaw's 1D maps on [0,1].
    double kershaw_right(double eps, double t) { return t <= 0.5 ? (2.0 - eps) * t : 1.0 + eps * (t - 1.0); }
    double kershaw_left(double eps, double t) { return 1.0 - kershaw_right(eps, 1.0 - t); }

    /// Weight of R_ε (1 - weight of L_ε) as a function of the normalized x coordinate.
    double kershaw_weight(double xi_x)
    {
      const double s     = 6.0 * xi_x;
      const int    layer = std::min(5, std::max(0, int(std::floor(s))));
      const double lam   = std::min(1.0, std::max(0.0, s - layer));
      switch (layer)
        {
          case 0:
            return 0.0;
          case 1:
          case 4:
            return lam; // L -> R within the layer
          case 2:
            return 1.0 - 0.5 * lam; // R -> L across layers 2 and 3
          case 3:
            return 0.5 * (1.0 - lam);
          default:
            return 1.0;
        }
    }

    /// The deformation of a point given by its undeformed coordinates x and its normalized
    /// coordinates xi in the level's box.
    std::array<double, 3> deform(const CartesianLevel &level, const DeformationSettings &s,
                                 const std::array<double, 3> &x, const std::array<double, 3> &xi)
    {
      std::array<double, 3> y   = x;
      const int             dim = level.dim;
      switch (s.type)
        {
          case Deformation::none:
            break;
          case Deformation::sine:
            {
              double prod = 1.0;
              for (int e = 0; e < dim; ++e)
                prod *= sin_pi(xi[e]);
              for (int d = 0; d < dim; ++d)
                y[d] = x[d] + s.amplitude * level.extent(d) * prod;
              break;
            }
          case Deformation::function:
            for (int d = 0; d < dim; ++d)
              y[d] = s.map[std::size_t(d)](x[0], x[1], x[2]);
            break;
          case Deformation::kershaw:
            {
              const double eps = s.amplitude;
              const double w   = kershaw_weight(xi[0]);
              for (int d = 1; d < dim; ++d)
                {
                  const double t  = xi[d];
                  const double tt = (1.0 - w) * kershaw_left(eps, t) + w * kershaw_right(eps, t);
                  y[d]            = level.origin(d) + tt * level.extent(d);
                }
              break;
            }
        }
      return y;
    }

    /// The position of reference point xi of local cell c in the whole level's box.
    std::array<double, 3> box_point(const CartesianLevel &level, const index_t (&c)[3], const double *xi)
    {
      std::array<double, 3> x{{0, 0, 0}};
      for (int d = 0; d < level.dim; ++d)
        x[std::size_t(d)] = level.origin(d) + level.h[d] * (double(level.global_offset(d) + c[d]) + xi[d]);
      return x;
    }

    /// 1D linear shape functions on [0,1] and their derivatives.
    inline double lin(int v, double t) { return v ? t : 1.0 - t; }
    inline double dlin(int v) { return v ? 1.0 : -1.0; }
  } // namespace

  void check_deformation(const CartesianLevel &level, const DeformationSettings &s)
  {
    if (level.dim != 2 && level.dim != 3)
      throw std::invalid_argument("deformation: dimension must be 2 or 3");
    if (s.mapping == Mapping::exact && s.type != Deformation::function)
      throw std::invalid_argument("Mapping = exact needs Deformation = function (the map with its derivatives); "
                                  "give the built-in map as a function");
    switch (s.type)
      {
        case Deformation::none:
          return;
        case Deformation::function:
          if (int(s.map.size()) != level.dim)
            throw std::invalid_argument("function deformation: the map has " + std::to_string(s.map.size()) +
                                        " components, the mesh " + std::to_string(level.dim) + " dimensions");
          return;
        case Deformation::sine:
          {
            const double amax = max_sine_amplitude(level.dim);
            if (!(s.amplitude >= 0.0 && s.amplitude <= amax))
              throw std::invalid_argument("sine deformation: amplitude " + std::to_string(s.amplitude) +
                                          " must be in [0, " + std::to_string(amax).substr(0, 4) + "] in " +
                                          std::to_string(level.dim) +
                                          "D: the map's Jacobian determinant is 1 + amplitude*pi*f with min f = " +
                                          (level.dim == 3 ? "-2/sqrt(3)" : "-1") +
                                          ", so larger amplitudes fold the mesh (not invertible beyond " +
                                          (level.dim == 3 ? "sqrt(3)/(2 pi) = 0.2757)" : "1/pi = 0.3183)"));
            return;
          }
        case Deformation::kershaw:
          {
            if (!(s.amplitude > 0.0 && s.amplitude <= 1.0))
              throw std::invalid_argument("kershaw deformation: epsilon (amplitude) " + std::to_string(s.amplitude) +
                                          " must be in (0, 1] (1 = no deformation)");
            const bool ok = level.global_cells(0) % 6 == 0 && level.global_cells(1) % 2 == 0 &&
                            (level.dim == 2 || level.global_cells(2) % 2 == 0);
            if (!ok)
              throw std::invalid_argument(std::string("kershaw deformation needs cells_x % 6 == 0 and even cells_y") +
                                          (level.dim == 3 ? " and cells_z" : "") +
                                          " so that its kinks lie on cell faces; got " + level.whole().describe());
            return;
          }
      }
    throw std::invalid_argument("unknown deformation type");
  }

  std::array<double, 3> deformed_point(const CartesianLevel &level, const DeformationSettings &s,
                                       const std::array<double, 3> &x)
  {
    check_deformation(level, s);
    if (s.type == Deformation::none)
      return x;
    std::array<double, 3> xi{{0, 0, 0}};
    for (int d = 0; d < level.dim; ++d)
      xi[d] = (x[d] - level.origin(d)) / level.extent(d);
    return deform(level, s, x, xi);
  }

  std::vector<double> deformed_vertices(const CartesianLevel &level, const DeformationSettings &s)
  {
    check_deformation(level, s);
    const index_t       nv[3] = {level.cells[0] + 1, level.cells[1] + 1, level.dim == 3 ? level.cells[2] + 1 : 1};
    std::vector<double> v(std::size_t(nv[0] * nv[1] * nv[2]) * 3);
#pragma omp parallel for schedule(static) if (v.size() >= host_parallel_threshold)
    for (index_t iz = 0; iz < nv[2]; ++iz)
      for (index_t iy = 0; iy < nv[1]; ++iy)
        for (index_t ix = 0; ix < nv[0]; ++ix)
          {
            const index_t         idx[3] = {ix, iy, iz};
            std::array<double, 3> x{{0, 0, 0}}, xi{{0, 0, 0}};
            for (int d = 0; d < level.dim; ++d)
              {
                // the whole level's vertex: ξ exact at 0 and 1, x as the whole level has it
                const index_t i = level.global_offset(d) + idx[d];
                xi[d]           = double(i) / double(level.global_cells(d));
                x[d]            = level.origin(d) + double(i) * level.h[d];
              }
            const auto    y = deform(level, s, x, xi);
            const index_t g = ix + nv[0] * (iy + nv[1] * iz);
            for (int d = 0; d < 3; ++d)
              v[std::size_t(g) * 3 + d] = d < level.dim ? y[d] : 0.0;
          }
    return v;
  }

  std::vector<Expression> make_deformation_map(const std::string &text, int dim)
  {
    std::vector<Expression> map;
    std::size_t             start = 0;
    for (int r = 0;; ++r)
      {
        const std::size_t end  = text.find(';', start);
        const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        try
          {
            map.emplace_back(part, dim);
          }
        catch (const ExpressionError &e)
          {
            throw ExpressionError("component " + std::to_string(r + 1) + " ('" + printable(part) + "'): " + e.what());
          }
        if (end == std::string::npos)
          break;
        start = end + 1;
      }
    if (int(map.size()) != dim)
      throw std::invalid_argument("the map has " + std::to_string(map.size()) + " component" +
                                  (map.size() == 1 ? "" : "s") + " separated by ';', the mesh " + std::to_string(dim) +
                                  " dimensions");
    return map;
  }

  std::string map_fold(const DeformationSettings &s, const std::array<double, 3> &lower,
                       const std::array<double, 3> &upper, int dim, int n)
  {
    if (s.type != Deformation::function || int(s.map.size()) != dim)
      return "";
    const std::vector<Expression> jac   = map_with_derivatives(s, dim);
    const int                     count = dim == 3 ? n * n * n : n * n;
    for (int i = 0; i < count; ++i)
      {
        double x[3] = {0, 0, 0};
        for (int d = 0, r = i; d < dim; ++d, r /= n)
          x[d] = lower[std::size_t(d)] + (upper[std::size_t(d)] - lower[std::size_t(d)]) * (r % n) / (n - 1);
        double J[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        for (int r = 0; r < dim; ++r)
          for (int b = 0; b < dim; ++b)
            J[r][b] = jac[std::size_t(dim + r * dim + b)](x[0], x[1], x[2]);
        const double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                           J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                           J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
        if (!(det > 0) || !std::isfinite(det))
          return "det DF = " + std::to_string(det) + " at (" + std::to_string(x[0]) + ", " + std::to_string(x[1]) +
                 (dim == 3 ? ", " + std::to_string(x[2]) : std::string()) + ")";
      }
    return "";
  }

  std::vector<Expression> map_with_derivatives(const DeformationSettings &s, int dim)
  {
    std::vector<Expression> f(s.map.begin(),
                              s.map.begin() + std::min<std::ptrdiff_t>(dim, std::ptrdiff_t(s.map.size())));
    const int               n = int(f.size());
    for (int r = 0; r < n; ++r)
      for (int b = 0; b < dim; ++b)
        f.push_back(s.map[std::size_t(r)].derivative(b));
    return f;
  }

  int n_geometric_entries(int dim, GeometricFactorKind kind)
  {
    if (dim != 2 && dim != 3)
      throw std::invalid_argument("n_geometric_entries: dimension must be 2 or 3");
    return kind == GeometricFactorKind::mass ? 1 : (dim == 2 ? 3 : 6);
  }

  Coefficient make_coefficient(const std::string &text, int dim)
  {
    Expression a(text, dim);
    if (a.is_constant() && a(0, 0, 0) == 1.0)
      return std::nullopt;
    return a;
  }

  Coefficient make_reaction(const std::string &text, int dim)
  {
    Expression c(text, dim);
    if (c.is_zero())
      return std::nullopt;
    return c;
  }

  std::vector<double> geometric_factors(const CartesianLevel &level, const DeformationSettings &s,
                                        const Quadrature1D &q, GeometricFactorKind kind, const Coefficient &given)
  {
    const int         dim = level.dim;
    const Coefficient coefficient =
      given ? Coefficient(on_level(*given, level)) : given; // (periodic: ghosts see the far end)
    check_deformation(level, s);
    if (q.size() == 0 || q.weights.size() != q.size())
      throw std::invalid_argument("geometric_factors: empty or inconsistent quadrature rule");
    const bool                    exact = exact_mapping(s);
    const std::vector<double>     vert  = exact ? std::vector<double>() : deformed_vertices(level, s);
    const std::vector<Expression> jac   = exact ? map_with_derivatives(s, dim) : std::vector<Expression>();

    const int     nq       = int(q.size());
    const int     n_points = dim == 3 ? nq * nq * nq : nq * nq;
    const int     n_ent    = n_geometric_entries(dim, kind);
    const index_t nc[3]    = {level.cells[0], level.cells[1], dim == 3 ? level.cells[2] : 1};
    const index_t n_cells  = nc[0] * nc[1] * nc[2];
    const int     n_vert   = 1 << dim;

    std::vector<double> factors(std::size_t(n_cells) * n_ent * n_points);
    index_t             first_bad = std::numeric_limits<index_t>::max();
    double              min_det   = std::numeric_limits<double>::infinity();

#pragma omp parallel for schedule(static) \
  reduction(min                           \
            : first_bad, min_det) if (factors.size() >= host_parallel_threshold)
    for (index_t c = 0; c < n_cells; ++c)
      {
        const index_t cx = c % nc[0], cy = (c / nc[0]) % nc[1], cz = c / (nc[0] * nc[1]);
        const index_t cc[3] = {cx, cy, cz};
        double        X[8][3];
        if (!exact)
          gather_cell_vertices(vert.data(), nc, dim, cx, cy, cz, X);
        double *out = factors.data() + std::size_t(c) * n_ent * n_points;
        // the quadrature points, then the cell's vertices (only checked: a fold that a Gauss
        // rule misses shows at the vertices)
        for (int p = 0; p < n_points + n_vert; ++p)
          {
            double xi[3] = {0, 0, 0};
            double w     = 1.0;
            if (p < n_points)
              {
                const int qi[3] = {p % nq, (p / nq) % nq, dim == 3 ? p / (nq * nq) : 0};
                for (int d = 0; d < dim; ++d)
                  {
                    xi[d] = q.points[qi[d]];
                    w *= q.weights[qi[d]];
                  }
              }
            else
              for (int d = 0; d < dim; ++d)
                xi[d] = double(((p - n_points) >> d) & 1);
            // J(a, b) = ∂x_a / ∂ξ_b of the multilinear map through the vertices, or of the exact
            // map: ∂F_a/∂x_b h_b at the point's position in the box
            double                      J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
            const std::array<double, 3> x0      = exact ? box_point(level, cc, xi) : std::array<double, 3>{};
            if (exact)
              for (int a = 0; a < dim; ++a)
                for (int b = 0; b < dim; ++b)
                  J[a][b] = jac[std::size_t(dim + a * dim + b)](x0[0], x0[1], x0[2]) * level.h[b];
            else
              for (int v = 0; v < n_vert; ++v)
                for (int b = 0; b < dim; ++b)
                  {
                    double coef = 1.0;
                    for (int d = 0; d < dim; ++d)
                      coef *= d == b ? dlin((v >> d) & 1) : lin((v >> d) & 1, xi[d]);
                    for (int a = 0; a < dim; ++a)
                      J[a][b] += coef * X[v][a];
                  }
            double       adj[3][3]; // J^{-1} = adj / det
            const double det = dim == 2 ? problem_kernels::adjugate<2>(J, adj) : problem_kernels::adjugate<3>(J, adj);
            min_det          = std::min(min_det, det);
            if (!(det > 0.0))
              first_bad = std::min(first_bad, c);
            if (p >= n_points)
              continue;
            if (coefficient)
              {
                // a at the point's position under the same map
                double x[3] = {0, 0, 0};
                if (exact)
                  for (int a = 0; a < dim; ++a)
                    x[a] = s.map[std::size_t(a)](x0[0], x0[1], x0[2]);
                else
                  for (int v = 0; v < n_vert; ++v)
                    {
                      double l = 1.0;
                      for (int d = 0; d < dim; ++d)
                        l *= lin((v >> d) & 1, xi[d]);
                      for (int a = 0; a < dim; ++a)
                        x[a] += l * X[v][a];
                    }
                w *= (*coefficient)(x[0], x[1], x[2]);
              }
            const bool mass = kind == GeometricFactorKind::mass;
            if (dim == 2)
              problem_kernels::point_factors<2>(mass, w, det, adj, out + p, n_points);
            else
              problem_kernels::point_factors<3>(mass, w, det, adj, out + p, n_points);
          }
      }
    if (first_bad != std::numeric_limits<index_t>::max())
      throw std::runtime_error("geometric_factors: non-positive Jacobian determinant at a quadrature point or vertex "
                               "(min " +
                               std::to_string(min_det) + ", first in cell " + std::to_string(first_bad) + ") on " +
                               level.describe() +
                               ": the deformed mesh is folded; use a finer level or a smaller amplitude");
    return factors;
  }

  bool mesh_folds(const CartesianLevel &level, const DeformationSettings &s)
  {
    try
      {
        geometric_factors(level, s, gauss_quadrature(unsigned(level.degree + 2)), GeometricFactorKind::mass);
        return false;
      }
    catch (const std::runtime_error &)
      {
        return true;
      }
  }

  double largest_unfolded_amplitude(const CartesianLevel &level, const DeformationSettings &s)
  {
    DeformationSettings t  = s;
    double              lo = 0, hi = s.amplitude;
    if (!mesh_folds(level, s))
      return s.amplitude;
    while (hi - lo > 1e-4)
      {
        t.amplitude                      = 0.5 * (lo + hi);
        (mesh_folds(level, t) ? hi : lo) = t.amplitude;
      }
    return lo;
  }
} // namespace tpmg
