// Right-hand side and errors on deformed meshes: cell loops with the multilinear map of
// each cell's deformed vertices (the same geometry as the BP operators).
#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/problem.h>

#include <kernels/problem/function_kernels.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace
  {
    struct CellMap
    {
      int    dim;
      double v[8][3]; // deformed vertices, lexicographic (x fastest)

      // position and Jacobian (J[r][c] = ∂x_r/∂ξ_c) at reference point xi in [0,1]^dim
      void eval(const double *xi, double *x, double J[3][3]) const
      {
        for (int r = 0; r < 3; ++r)
          {
            x[r] = 0;
            for (int c = 0; c < 3; ++c)
              J[r][c] = 0;
          }
        const int nv = dim == 3 ? 8 : 4;
        for (int a = 0; a < nv; ++a)
          {
            const int b[3] = {a & 1, (a >> 1) & 1, (a >> 2) & 1};
            double    N = 1, dN[3] = {1, 1, 1};
            for (int d = 0; d < dim; ++d)
              {
                const double f  = b[d] ? xi[d] : 1 - xi[d];
                const double df = b[d] ? 1 : -1;
                N *= f;
                for (int e = 0; e < dim; ++e)
                  dN[e] *= e == d ? df : f;
              }
            for (int r = 0; r < dim; ++r)
              {
                x[r] += N * v[a][r];
                for (int c = 0; c < dim; ++c)
                  J[r][c] += dN[c] * v[a][r];
              }
          }
        if (dim == 2)
          J[2][2] = 1;
      }
    };

    // det J and J^{-T} g with the inverse the function kernels use (function_kernels.h); in 2D
    // J[2][2] = 1
    double det3(const double (&J)[3][3])
    {
      double inv[3][3];
      return problem_kernels::invert<3>(J, inv);
    }

    void inv_transpose_apply(const double (&J)[3][3], const double *g, double *out)
    {
      double inv[3][3];
      problem_kernels::invert<3>(J, inv);
      for (int r = 0; r < 3; ++r)
        out[r] = inv[0][r] * g[0] + inv[1][r] * g[1] + inv[2][r] * g[2];
    }

    struct Manufactured
    {
      int                   dim;
      std::array<double, 3> a, L;
      double                u(const double *x) const
      {
        double v = 1;
        for (int d = 0; d < dim; ++d)
          v *= std::sin(M_PI * (x[d] - a[d]) / L[d]);
        return v;
      }
      void grad(const double *x, double *g) const
      {
        for (int d = 0; d < 3; ++d)
          {
            g[d] = 0;
            if (d >= dim)
              continue;
            double v = M_PI / L[d] * std::cos(M_PI * (x[d] - a[d]) / L[d]);
            for (int e = 0; e < dim; ++e)
              if (e != d)
                v *= std::sin(M_PI * (x[e] - a[e]) / L[e]);
            g[d] = v;
          }
      }
      double f(const double *x) const
      {
        double c = 0;
        for (int d = 0; d < dim; ++d)
          c += (M_PI / L[d]) * (M_PI / L[d]);
        return c * u(x);
      }
    };

    Manufactured manufactured(const CartesianLevel &lev)
    {
      Manufactured m{lev.dim, {lev.origin(0), lev.origin(1), lev.origin(2)}, {1, 1, 1}};
      for (int d = 0; d < lev.dim; ++d)
        m.L[d] = lev.extent(d);
      return m;
    }

    /// Calls f(cell coordinates, CellMap) for every cell, one colour of cells after the other
    /// (the parity of their coordinates in the whole level): cells of one colour share no node,
    /// so f may add into the cell's nodes, and every node gets its cells' terms in the same order
    /// on any number of threads and ranks (kernels/runtime/cell_launch.h).
    template <class F>
    void for_each_cell(const CartesianLevel &lev, const std::vector<double> &vertices, F &&f)
    {
      const index_t ncz = lev.dim == 3 ? lev.cells[2] : 1;
      for (int colour = 0; colour < (1 << lev.dim); ++colour)
        {
          const int     c  = colour ^ lev.offset_parity();
          const index_t fx = c & 1, fy = (c >> 1) & 1, fz = lev.dim == 3 ? (c >> 2) & 1 : 0, sz = lev.dim == 3 ? 2 : 1;
#pragma omp parallel for collapse(2) schedule(static)
          for (index_t cz = fz; cz < ncz; cz += sz)
            for (index_t cy = fy; cy < lev.cells[1]; cy += 2)
              for (index_t cx = fx; cx < lev.cells[0]; cx += 2)
                {
                  CellMap m;
                  m.dim = lev.dim;
                  gather_cell_vertices(vertices.data(), lev.cells.data(), lev.dim, cx, cy, cz, m.v);
                  f(cx, cy, cz, m);
                }
        }
    }
  } // namespace

  template <typename Number>
  void assemble_rhs_deformed(const CartesianLevel &lev, const DeformationSettings &deformation, RightHandSide rhs,
                             Backend backend, Vector<Number> &b)
  {
    if (rhs == RightHandSide::ones_vector)
      {
        assemble_rhs(lev, rhs, backend, b);
        return;
      }
    const int             k = lev.degree, n = k + 1, dim = lev.dim;
    const LagrangeBasis1D basis(k);
    const Quadrature1D    q     = gauss_quadrature(k + 3);
    const Matrix1D        phi   = basis.values(q.points);
    const auto            verts = deformed_vertices(lev, deformation);
    const Manufactured    mf    = manufactured(lev);
    std::vector<double>   h(lev.n_dofs(), 0.0);
    const int             nq  = int(q.size());
    const int             nqz = dim == 3 ? nq : 1, nz = dim == 3 ? n : 1;
    for_each_cell(lev, verts, [&](index_t cx, index_t cy, index_t cz, const CellMap &m) {
      std::vector<double> local(std::size_t(n) * n * nz, 0.0);
      for (int iz = 0; iz < nqz; ++iz)
        for (int iy = 0; iy < nq; ++iy)
          for (int ix = 0; ix < nq; ++ix)
            {
              const double xi[3] = {q.points[ix], q.points[iy], dim == 3 ? q.points[iz] : 0.0};
              double       x[3], J[3][3];
              m.eval(xi, x, J);
              const double w  = q.weights[ix] * q.weights[iy] * (dim == 3 ? q.weights[iz] : 1.0);
              const double fx = rhs == RightHandSide::one ? 1.0 : mf.f(x);
              const double c  = w * std::fabs(det3(J)) * fx;
              for (int l = 0; l < nz; ++l)
                for (int j = 0; j < n; ++j)
                  for (int i = 0; i < n; ++i)
                    local[i + n * (j + n * l)] += c * phi(ix, i) * phi(iy, j) * (dim == 3 ? phi(iz, l) : 1.0);
            }
      for (int l = 0; l < nz; ++l)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i)
            {
              const index_t gi = cx * k + i, gj = cy * k + j, gl = dim == 3 ? cz * k + l : 0;
              if (lev.on_boundary(gi, gj, gl))
                continue;
              h[lev.dof_index(gi, gj, gl)] += local[i + n * (j + n * l)]; // one cell of a colour per node
            }
    });
    std::vector<Number> hn(h.begin(), h.end());
    b.reinit(lev.n_dofs(), backend, false);
    b.from_host(hn);
  }

  Expression manufactured_solution(const CartesianLevel &lev)
  {
    const Manufactured m = manufactured(lev);
    std::string        text;
    const char        *names[3] = {"x", "y", "z"};
    for (int d = 0; d < lev.dim; ++d)
      {
        char factor[128];
        std::snprintf(factor, sizeof factor, "sin(pi*(%s - (%.17g))/%.17g)", names[d], m.a[std::size_t(d)],
                      m.L[std::size_t(d)]);
        text += (d ? "*" : "") + std::string(factor);
      }
    return Expression(text, lev.dim);
  }

  Expression manufactured_right_hand_side(const CartesianLevel &lev, RightHandSide rhs)
  {
    if (rhs == RightHandSide::one)
      return Expression("1", lev.dim);
    const Manufactured m = manufactured(lev);
    double             c = 0;
    for (int d = 0; d < lev.dim; ++d)
      c += (M_PI / m.L[std::size_t(d)]) * (M_PI / m.L[std::size_t(d)]);
    char factor[64];
    std::snprintf(factor, sizeof factor, "%.17g*", c);
    return Expression(factor + manufactured_solution(lev).text(), lev.dim);
  }

  ErrorNorms compute_errors_deformed(const CartesianLevel &lev, const DeformationSettings &deformation,
                                     const Vector<double> &u_h_vec)
  {
    // on the GPU the same quadrature through the expression kernels (the host loop below would
    // copy u_h and take seconds at the sizes the GPU solves)
    if (u_h_vec.backend() == Backend::cuda)
      return compute_errors(lev, deformation, manufactured_solution(lev), u_h_vec);
    const int                 k = lev.degree, n = k + 1, dim = lev.dim;
    const LagrangeBasis1D     basis(k);
    const Quadrature1D        q   = gauss_quadrature(k + 3);
    const Matrix1D            phi = basis.values(q.points), dphi = basis.derivatives(q.points);
    const auto                verts = deformed_vertices(lev, deformation);
    const Manufactured        mf    = manufactured(lev);
    const std::vector<double> u_h   = u_h_vec.to_host();
    const int                 nq    = int(q.size());
    const int                 nqz = dim == 3 ? nq : 1, nz = dim == 3 ? n : 1;
    // one partial sum per row of owned cells, added in order: the same bits on any number of threads
    const index_t       z0 = dim == 3 ? lev.owned_begin(2) : 0, z1 = dim == 3 ? lev.owned_end(2) : 1;
    const index_t       y0 = lev.owned_begin(1), ny = lev.owned_end(1) - y0;
    std::vector<double> row_l2(std::size_t((z1 - z0) * ny), 0.0), row_h1(row_l2.size(), 0.0);
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t cz = z0; cz < z1; ++cz)
      for (index_t cy = y0; cy < y0 + ny; ++cy)
        for (index_t cx = lev.owned_begin(0); cx < lev.owned_end(0); ++cx)
          {
            double &l2 = row_l2[std::size_t((cz - z0) * ny + cy - y0)];
            double &h1 = row_h1[std::size_t((cz - z0) * ny + cy - y0)];
            CellMap m;
            m.dim = dim;
            gather_cell_vertices(verts.data(), lev.cells.data(), dim, cx, cy, cz, m.v);
            for (int iz = 0; iz < nqz; ++iz)
              for (int iy = 0; iy < nq; ++iy)
                for (int ix = 0; ix < nq; ++ix)
                  {
                    const double xi[3] = {q.points[ix], q.points[iy], dim == 3 ? q.points[iz] : 0.0};
                    double       x[3], J[3][3];
                    m.eval(xi, x, J);
                    double uh = 0, g[3] = {0, 0, 0};
                    for (int l = 0; l < nz; ++l)
                      for (int j = 0; j < n; ++j)
                        for (int i = 0; i < n; ++i)
                          {
                            const index_t gi = cx * k + i, gj = cy * k + j, gl = dim == 3 ? cz * k + l : 0;
                            const double  c  = u_h[lev.dof_index(gi, gj, gl)];
                            const double  pz = dim == 3 ? phi(iz, l) : 1.0, dz = dim == 3 ? dphi(iz, l) : 0.0;
                            uh += c * phi(ix, i) * phi(iy, j) * pz;
                            g[0] += c * dphi(ix, i) * phi(iy, j) * pz;
                            g[1] += c * phi(ix, i) * dphi(iy, j) * pz;
                            g[2] += c * phi(ix, i) * phi(iy, j) * dz;
                          }
                    double gp[3], ge[3];
                    inv_transpose_apply(J, g, gp);
                    mf.grad(x, ge);
                    const double w =
                      q.weights[ix] * q.weights[iy] * (dim == 3 ? q.weights[iz] : 1.0) * std::fabs(det3(J));
                    const double e = uh - mf.u(x);
                    l2 += w * e * e;
                    for (int d = 0; d < dim; ++d)
                      h1 += w * (gp[d] - ge[d]) * (gp[d] - ge[d]);
                  }
          }
    double l2 = 0, h1 = 0;
    for (std::size_t r = 0; r < row_l2.size(); ++r)
      {
        l2 += row_l2[r];
        h1 += row_h1[r];
      }
    return ErrorNorms{std::sqrt(l2), std::sqrt(h1)};
  }

  template void assemble_rhs_deformed<float>(const CartesianLevel &, const DeformationSettings &, RightHandSide,
                                             Backend, Vector<float> &);
  template void assemble_rhs_deformed<double>(const CartesianLevel &, const DeformationSettings &, RightHandSide,
                                              Backend, Vector<double> &);
} // namespace tpmg
