// Independent reference constructions for the tests: 1D matrices by direct quadrature,
// assembled global sparse matrices with Dirichlet identity rows, random vectors.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/mesh.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include <array>
#include <functional>
#include <random>
#include <vector>

namespace tpmg::test
{
  /// The finest level of a hierarchy on an anisotropic box with anisotropic coarse cells, so
  /// that every direction's scaling is exercised (operator and smoother tests).
  inline CartesianLevel anisotropic_level(int dim, int k, int level)
  {
    Domain d;
    d.dim          = dim;
    d.lower        = {0.0, -1.0, 0.25};
    d.upper        = {1.0, 1.0, 0.75};
    d.coarse_cells = {2, 3, 1};
    return make_hierarchy(d, k, level).back();
  }

  struct Reference1D
  {
    Eigen::MatrixXd mass, stiffness;
  };

  /// 1D mass and stiffness on [0,1] from basis values at k+3 Gauss points.
  inline Reference1D reference_1d(int k)
  {
    LagrangeBasis1D b(k);
    const auto      q = gauss_quadrature(k + 3);
    Reference1D     r;
    r.mass      = Eigen::MatrixXd::Zero(k + 1, k + 1);
    r.stiffness = Eigen::MatrixXd::Zero(k + 1, k + 1);
    for (std::size_t p = 0; p < q.size(); ++p)
      for (int i = 0; i <= k; ++i)
        for (int j = 0; j <= k; ++j)
          {
            r.mass(i, j) += q.weights[p] * b.value(i, q.points[p]) * b.value(j, q.points[p]);
            r.stiffness(i, j) += q.weights[p] * b.derivative(i, q.points[p]) * b.derivative(j, q.points[p]);
          }
    return r;
  }

  /// Element stiffness of a (h_x, h_y[, h_z]) cell, entry by entry, lexicographic local order.
  /// `lumped_mass`: the 1D masses lumped to their row sums, which for the GLL basis are the GLL
  /// weights (the quadrature is exact for one basis function), so the bp5 operator's.
  /// With `a` and `c`: the element matrix of −∇·(a ∇u) + c u for constants a and c.
  inline Eigen::MatrixXd element_laplace(int dim, int k, const std::array<double, 3> &h, bool lumped_mass = false,
                                         double a = 1, double c = 0)
  {
    auto r = reference_1d(k);
    if (lumped_mass)
      r.mass = Eigen::MatrixXd(r.mass.rowwise().sum().asDiagonal());
    const int       n  = k + 1;
    const int       nd = dim == 3 ? n * n * n : n * n;
    Eigen::MatrixXd K(nd, nd);
    for (int I = 0; I < nd; ++I)
      for (int J = 0; J < nd; ++J)
        {
          const int i[3] = {I % n, (I / n) % n, dim == 3 ? I / (n * n) : 0};
          const int j[3] = {J % n, (J / n) % n, dim == 3 ? J / (n * n) : 0};
          double    v = 0, m = c;
          for (int d = 0; d < dim; ++d)
            {
              double t = a * r.stiffness(i[d], j[d]) / h[d];
              for (int e = 0; e < dim; ++e)
                if (e != d)
                  t *= r.mass(i[e], j[e]) * h[e];
              v += t;
              m *= r.mass(i[d], j[d]) * h[d];
            }
          K(I, J) = v + m;
        }
    return K;
  }

  /// Global node index of local node I of cell (cx, cy, cz).
  inline index_t cell_node(const CartesianLevel &lev, index_t cx, index_t cy, index_t cz, int I)
  {
    const int n = lev.degree + 1;
    const int i = I % n, j = (I / n) % n, l = lev.dim == 3 ? I / (n * n) : 0;
    return lev.dof_index(cx * lev.degree + i, cy * lev.degree + j, lev.dim == 3 ? cz * lev.degree + l : 0);
  }

  inline bool is_boundary(const CartesianLevel &lev, index_t g)
  {
    const index_t i = g % lev.nodes(0), j = (g / lev.nodes(0)) % lev.nodes(1), l = g / (lev.nodes(0) * lev.nodes(1));
    return lev.on_boundary(i, j, l);
  }

  /// Assembled Dirichlet Laplacian: interior block of the stiffness matrix, identity on the boundary
  /// (with `a` and `c`: of −∇·(a ∇u) + c u for constants a and c).
  inline Eigen::SparseMatrix<double> assemble_laplace(const CartesianLevel &lev, bool lumped_mass = false, double a = 1,
                                                      double c = 0)
  {
    const Eigen::MatrixXd               K = element_laplace(lev.dim, lev.degree, lev.h, lumped_mass, a, c);
    std::vector<Eigen::Triplet<double>> trip;
    const int                           nd = int(K.rows());
    for (index_t cz = 0; cz < (lev.dim == 3 ? lev.cells[2] : 1); ++cz)
      for (index_t cy = 0; cy < lev.cells[1]; ++cy)
        for (index_t cx = 0; cx < lev.cells[0]; ++cx)
          for (int I = 0; I < nd; ++I)
            {
              const index_t gi = cell_node(lev, cx, cy, cz, I);
              if (is_boundary(lev, gi))
                continue;
              for (int J = 0; J < nd; ++J)
                {
                  const index_t gj = cell_node(lev, cx, cy, cz, J);
                  if (!is_boundary(lev, gj))
                    trip.emplace_back(gi, gj, K(I, J));
                }
            }
    for (index_t g = 0; g < lev.n_dofs(); ++g)
      if (is_boundary(lev, g))
        trip.emplace_back(g, g, 1.0);
    Eigen::SparseMatrix<double> A(lev.n_dofs(), lev.n_dofs());
    A.setFromTriplets(trip.begin(), trip.end());
    return A;
  }

  /// The Robin term α ∫_F u v of the level's Robin faces (off its Dirichlet faces), entry by
  /// entry: per face cell, Σ over the k + 1 Gauss points per face direction of α(x) w φ_i φ_j,
  /// at the rows and columns of the unknowns.
  inline Eigen::SparseMatrix<double> assemble_robin(const CartesianLevel                                &lev,
                                                    const std::function<double(double, double, double)> &alpha)
  {
    const int                           k = lev.degree, dim = lev.dim;
    const LagrangeBasis1D               basis{unsigned(k)};
    const Quadrature1D                  q = gauss_quadrature(unsigned(k + 1));
    std::vector<Eigen::Triplet<double>> trip;
    for (int f = 0; f < 2 * dim; ++f)
      {
        if (!lev.robin(f) || lev.dirichlet(f))
          continue;
        const int     d = f / 2, t0 = d == 0 ? 1 : 0, t1 = d == 2 ? 1 : 2; // t1 = 2: none in 2D
        const index_t n1 = dim == 3 ? lev.cells[std::size_t(t1)] : 1;
        const int     m1 = dim == 3 ? k + 1 : 1, q1n = dim == 3 ? k + 1 : 1;
        for (index_t c1 = 0; c1 < n1; ++c1)
          for (index_t c0 = 0; c0 < lev.cells[std::size_t(t0)]; ++c0)
            {
              // the face cell's nodes, the first tangent fastest
              std::vector<index_t> g;
              std::vector<int>     a0, a1;
              for (int b = 0; b < m1; ++b)
                for (int a = 0; a < k + 1; ++a)
                  {
                    index_t i[3] = {0, 0, 0};
                    i[d]         = f % 2 ? lev.nodes(d) - 1 : 0;
                    i[t0]        = c0 * k + a;
                    if (dim == 3)
                      i[t1] = c1 * k + b;
                    g.push_back(lev.dof_index(i[0], i[1], i[2]));
                    a0.push_back(a);
                    a1.push_back(b);
                  }
              for (std::size_t I = 0; I < g.size(); ++I)
                for (std::size_t J = 0; J < g.size(); ++J)
                  {
                    if (is_boundary(lev, g[I]) || is_boundary(lev, g[J]))
                      continue;
                    double v = 0;
                    for (int p1 = 0; p1 < q1n; ++p1)
                      for (int p0 = 0; p0 < k + 1; ++p0)
                        {
                          double x[3];
                          x[d]     = lev.lower[d] + (f % 2 ? lev.h[d] * double(lev.cells[d]) : 0.0);
                          x[t0]    = lev.lower[t0] + lev.h[t0] * (double(c0) + q.points[std::size_t(p0)]);
                          double w = q.weights[std::size_t(p0)] * lev.h[t0] *
                                     basis.value(unsigned(a0[I]), q.points[std::size_t(p0)]) *
                                     basis.value(unsigned(a0[J]), q.points[std::size_t(p0)]);
                          if (dim == 3)
                            {
                              x[t1] = lev.lower[t1] + lev.h[t1] * (double(c1) + q.points[std::size_t(p1)]);
                              w *= q.weights[std::size_t(p1)] * lev.h[t1] *
                                   basis.value(unsigned(a1[I]), q.points[std::size_t(p1)]) *
                                   basis.value(unsigned(a1[J]), q.points[std::size_t(p1)]);
                            }
                          else
                            x[2] = 0;
                          v += w * alpha(x[0], x[1], x[2]);
                        }
                    trip.emplace_back(g[I], g[J], v);
                  }
            }
      }
    Eigen::SparseMatrix<double> R(lev.n_dofs(), lev.n_dofs());
    R.setFromTriplets(trip.begin(), trip.end());
    return R;
  }

  /// Random vector in [-1,1], zero on the boundary unless `with_boundary`.
  inline std::vector<double> random_vector(const CartesianLevel &lev, unsigned seed, bool with_boundary = false)
  {
    std::mt19937                           gen(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double>                    v(lev.n_dofs());
    for (index_t g = 0; g < lev.n_dofs(); ++g)
      v[g] = (with_boundary || !is_boundary(lev, g)) ? dist(gen) : 0.0;
    return v;
  }

  template <typename T>
  double rel_diff(const std::vector<T> &a, const std::vector<double> &b)
  {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < b.size(); ++i)
      {
        num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        den += b[i] * b[i];
      }
    return std::sqrt(num / den);
  }

  inline std::vector<double> to_std(const Eigen::VectorXd &v)
  {
    return std::vector<double>(v.data(), v.data() + v.size());
  }
  inline Eigen::VectorXd to_eigen(const std::vector<double> &v)
  {
    return Eigen::Map<const Eigen::VectorXd>(v.data(), v.size());
  }
} // namespace tpmg::test

namespace tpmg::test
{
  /// The unknowns of the patch around vertex v (any vertex off the Dirichlet faces): per direction
  /// the nodes strictly inside the cells around v, and v's own node where v lies on a Neumann
  /// face (lexicographic); empty where v lies on a Dirichlet face.
  inline std::vector<index_t> patch_unknowns(const CartesianLevel &lev, const std::array<index_t, 3> &v)
  {
    const int k        = lev.degree;
    index_t   first[3] = {0, 0, 0}, last[3] = {0, 0, 0};
    for (int d = 0; d < lev.dim; ++d)
      {
        const bool lower = v[d] == 0, upper = v[d] == lev.cells[d];
        if ((lower && lev.dirichlet(2 * d)) || (upper && lev.dirichlet(2 * d + 1)))
          return {};
        first[d] = lower ? 0 : (v[d] - 1) * k + 1;
        last[d]  = upper ? v[d] * k : (v[d] + 1) * k - 1;
      }
    std::vector<index_t> idx;
    for (index_t l = first[2]; l <= last[2]; ++l)
      for (index_t j = first[1]; j <= last[1]; ++j)
        for (index_t i = first[0]; i <= last[0]; ++i)
          idx.push_back(lev.dof_index(i, j, l));
    return idx;
  }

  /// Reference multiplicative Schwarz sweep over vertex patches with dense local solves on
  /// blocks of the assembled matrix; colors in the given order. The patches sit on the interior
  /// vertices and on those of the Neumann faces (off the Dirichlet ones).
  inline void reference_patch_sweep(const CartesianLevel &lev, const Eigen::SparseMatrix<double, Eigen::RowMajor> &A,
                                    std::vector<double> &x, const std::vector<double> &b,
                                    const std::vector<int> &color_order)
  {
    const index_t nv[3] = {lev.cells[0], lev.cells[1], lev.dim == 3 ? lev.cells[2] : 0};
    for (int color : color_order)
      for (index_t vz = 0; vz <= nv[2]; ++vz)
        for (index_t vy = 0; vy <= nv[1]; ++vy)
          for (index_t vx = 0; vx <= nv[0]; ++vx)
            {
              const int c = int(vx % 2) + 2 * int(vy % 2) + (lev.dim == 3 ? 4 * int(vz % 2) : 0);
              if (c != color)
                continue;
              const auto I = patch_unknowns(lev, {vx, vy, vz});
              if (I.empty())
                continue;
              const int       n = int(I.size());
              Eigen::MatrixXd AII(n, n);
              Eigen::VectorXd r(n);
              for (int a = 0; a < n; ++a)
                {
                  double ax = 0;
                  for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(A, I[a]); it; ++it)
                    ax += it.value() * x[it.col()];
                  r(a) = b[I[a]] - ax;
                  for (int c2 = 0; c2 < n; ++c2)
                    AII(a, c2) = A.coeff(I[a], I[c2]);
                }
              const Eigen::VectorXd dx = AII.llt().solve(r);
              for (int a = 0; a < n; ++a)
                x[I[a]] += dx(a);
            }
  }
} // namespace tpmg::test
