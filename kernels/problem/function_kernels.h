// Kernels of problems given by functions (include/tpmg/problem.h, ProblemFunctions): the
// Neumann and Robin data's face integrals, the interpolant of Dirichlet data, the error norms
// against an exact solution, and the pieces the cell integrals of the right-hand side share
// (cell_integrals.h: ∫ f φ_i and the lifting). Each kernel here is one loop body for both
// backends (forall / reduce_sum), one thread per cell (face cell, node), with f, g or u an
// ExpressionProgram evaluated at the physical quadrature points.
//
// The cell map is the exact one where the mesh has it, else multilinear through the cell's 2^d
// vertices: the Cartesian box's (affine) or those of a deformed mesh. The sums over quadrature
// points are sum-factorized and stream over the outer quadrature coordinate, so a thread holds
// O(n^2) numbers besides the cell's n^d values. Cells that share nodes never run at the same
// time: the cells are split into 2^d colours by the parity of their coordinates, one launch per
// colour, so the additions into the global vector need no atomics and the sums are the same on
// both backends.
#pragma once

#include <kernels/common/tensor.h>

#include <tpmg/expression_program.h>
#include <tpmg/numbering.h>

#include <cmath>

namespace tpmg
{
  namespace problem_kernels
  {
    /// Where the cells of a level are: the box (vertices == nullptr) or its deformed vertices
    /// (lexicographic, 3 doubles each, as deformed_vertices() returns them).
    struct LevelMesh
    {
      const double *vertices = nullptr;
      /// An exact map (Mapping::exact): dim + dim² programs, the components F_r and then ∂F_r/∂x_d
      /// at dim + r dim + d, of the box's points; null otherwise (then `vertices`, or the box).
      const ExpressionProgram *map = nullptr;
      index_t                  cells[3]{1, 1, 1};
      index_t                  nodes[3]{1, 1, 1};
      double                   origin[3]{0, 0, 0}; ///< the whole level's lower corner
      index_t                  offset[3]{0, 0, 0}; ///< the first cell in the whole level (a rank's part)
      double                   h[3]{1, 1, 1};
      int                      parity      = 0;         ///< the level's offset_parity(): colours are the whole level's
      unsigned                 constrained = all_faces; ///< the Dirichlet faces (numbering.h's face bits)

      /// The 2^dim vertices of cell c, numbered with bit d = upper side in direction d.
      template <int dim>
      TPMG_HD void cell_vertices(const index_t (&c)[3], double (&v)[1 << dim][3]) const
      {
        for (int a = 0; a < (1 << dim); ++a)
          {
            const index_t g[3] = {c[0] + (a & 1), c[1] + ((a >> 1) & 1), dim == 3 ? c[2] + ((a >> 2) & 1) : 0};
            for (int r = 0; r < 3; ++r)
              v[a][r] = vertices ? vertices[3 * (g[0] + (cells[0] + 1) * (g[1] + (cells[1] + 1) * g[2])) + r]
                                 : (r < dim ? origin[r] + h[r] * double(offset[r] + g[r]) : 0.0);
          }
      }

      /// Cell c of colour `colour` (bit d: odd coordinate of the whole level in direction d),
      /// from its index i among the colour's cells.
      template <int dim>
      TPMG_HD void colour_cell(int colour, index_t i, index_t (&c)[3]) const
      {
        for (int d = 0; d < 3; ++d)
          {
            const index_t first = d < dim ? ((colour ^ parity) >> d) & 1 : 0;
            const index_t count = d < dim ? (cells[d] - first + 1) / 2 : 1;
            c[d]                = first + 2 * (i % count);
            i /= count;
          }
      }

      /// Whether cell c has a node on the boundary.
      template <int dim>
      TPMG_HD bool touches_boundary(const index_t (&c)[3]) const
      {
        for (int d = 0; d < dim; ++d)
          if (c[d] == 0 || c[d] == cells[d] - 1)
            return true;
        return false;
      }
    };

    /// Cells of colour `colour` (see LevelMesh::colour_cell).
    inline index_t colour_cells(const LevelMesh &mesh, int dim, int colour)
    {
      index_t n = 1;
      for (int d = 0; d < dim; ++d)
        n *= (mesh.cells[d] - (((colour ^ mesh.parity) >> d) & 1) + 1) / 2;
      return n;
    }

    /// The multilinear map of a cell at reference point ξ ∈ [0,1]^dim: the position x and
    /// J = ∂x/∂ξ (J[r][d]: component r, reference direction d).
    template <int dim>
    TPMG_HD void map_point(const double (&v)[1 << dim][3], const double *xi, double (&x)[3], double (&J)[3][3])
    {
      for (int r = 0; r < 3; ++r)
        {
          x[r] = 0;
          for (int d = 0; d < 3; ++d)
            J[r][d] = 0;
        }
      for (int a = 0; a < (1 << dim); ++a)
        {
          double f[3], df[3]; // 1D factors and their derivatives
          for (int d = 0; d < dim; ++d)
            {
              const bool up = (a >> d) & 1;
              f[d]          = up ? xi[d] : 1 - xi[d];
              df[d]         = up ? 1 : -1;
            }
          double w = 1;
          for (int d = 0; d < dim; ++d)
            w *= f[d];
          for (int d = 0; d < dim; ++d)
            {
              double wd = df[d];
              for (int e = 0; e < dim; ++e)
                if (e != d)
                  wd *= f[e];
              for (int r = 0; r < dim; ++r)
                J[r][d] += wd * v[a][r];
            }
          for (int r = 0; r < dim; ++r)
            x[r] += w * v[a][r];
        }
    }

    /// det J and J^{-1} (inv[d][r]: reference direction d, component r).
    template <int dim>
    TPMG_HD double invert(const double (&J)[3][3], double (&inv)[3][3])
    {
      if constexpr (dim == 2)
        {
          const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
          inv[0][0]        = J[1][1] / det;
          inv[0][1]        = -J[0][1] / det;
          inv[1][0]        = -J[1][0] / det;
          inv[1][1]        = J[0][0] / det;
          return det;
        }
      else
        {
          const double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
          const double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
          const double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
          const double det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
          inv[0][0]        = c00 / det;
          inv[1][0]        = c01 / det;
          inv[2][0]        = c02 / det;
          inv[0][1]        = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
          inv[1][1]        = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
          inv[2][1]        = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
          inv[0][2]        = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
          inv[1][2]        = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
          inv[2][2]        = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
          return det;
        }
    }

    /// det J and its adjugate (J^{-1} = adj / det; adj[b][a] for component a, reference direction b).
    template <int dim>
    TPMG_HD double adjugate(const double (&J)[3][3], double (&adj)[3][3])
    {
      if constexpr (dim == 2)
        {
          adj[0][0] = J[1][1];
          adj[0][1] = -J[0][1];
          adj[1][0] = -J[1][0];
          adj[1][1] = J[0][0];
          return J[0][0] * J[1][1] - J[0][1] * J[1][0];
        }
      else
        {
          adj[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
          adj[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
          adj[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
          adj[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
          adj[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
          adj[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
          adj[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
          adj[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
          adj[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
          return J[0][0] * adj[0][0] + J[0][1] * adj[1][0] + J[0][2] * adj[2][0];
        }
    }

    /// The stored geometric factors of a point of weight w (tpmg/geometry.h's GeometricFactorKind):
    /// `mass` w |J|, else the upper triangle of w |J| J^{-1} J^{-T} = (w / |J|) adj adj^T (xx, xy,
    /// xz, yy, yz, zz; 2D xx, xy, yy), entry e at out[e * stride].
    template <int dim>
    TPMG_HD void point_factors(bool mass, double w, double det, const double (&adj)[3][3], double *out, index_t stride)
    {
      if (mass)
        {
          out[0] = w * det;
          return;
        }
      const double f = det != 0.0 ? w / det : 0.0;
      int          e = 0;
      for (int a = 0; a < dim; ++a)
        for (int b = a; b < dim; ++b, ++e)
          {
            double g = 0;
            for (int m = 0; m < dim; ++m)
              g += adj[a][m] * adj[b][m];
            out[e * stride] = f * g;
          }
    }

    /// Position x and J = ∂x/∂ξ at reference point ξ of cell c (vertices v): the exact map where the
    /// mesh has one (x = F(x0), J = DF(x0) diag(h), x0 the point in the box), else the multilinear
    /// map through v.
    template <int dim>
    TPMG_HD void map_jacobian(const LevelMesh &mesh, const index_t (&c)[3], const double (&v)[1 << dim][3],
                              const double    *xi, double (&x)[3], double (&J)[3][3])
    {
      if (!mesh.map)
        {
          map_point<dim>(v, xi, x, J);
          return;
        }
      double x0[3] = {0, 0, 0};
      for (int d = 0; d < dim; ++d)
        x0[d] = mesh.origin[d] + mesh.h[d] * (double(mesh.offset[d] + c[d]) + xi[d]);
      for (int r = 0; r < 3; ++r)
        {
          x[r] = r < dim ? mesh.map[r](x0[0], x0[1], x0[2]) : 0.0;
          for (int d = 0; d < 3; ++d)
            J[r][d] = r < dim && d < dim ? mesh.map[dim + r * dim + d](x0[0], x0[1], x0[2]) * mesh.h[d] : 0.0;
        }
    }

    /// Position x, J^{-1} and det J at reference point ξ of cell c (vertices v): the exact map where
    /// the mesh has one, the multilinear map on a deformed mesh, the affine x = origin + h (offset +
    /// c + ξ), J = diag(h) on the box (most of the work per point on the box otherwise).
    template <int dim>
    TPMG_HD double cell_map(const LevelMesh &mesh, const index_t (&c)[3], const double (&v)[1 << dim][3],
                            const double    *xi, double (&x)[3], double (&inv)[3][3])
    {
      if (mesh.map || mesh.vertices)
        {
          double J[3][3];
          map_jacobian<dim>(mesh, c, v, xi, x, J);
          return invert<dim>(J, inv);
        }
      double det = 1;
      for (int r = 0; r < 3; ++r)
        {
          x[r] = r < dim ? mesh.origin[r] + mesh.h[r] * (double(mesh.offset[r] + c[r]) + xi[r]) : 0.0;
          for (int d = 0; d < 3; ++d)
            inv[r][d] = r == d && r < dim ? 1.0 / mesh.h[r] : 0.0;
          if (r < dim)
            det *= mesh.h[r];
        }
      return det;
    }

    /// The stored geometric factors of a level (geometric_factors, tpmg/geometry.h: cells ×
    /// entries × points, each cell's entries one after the other) with one thread per point, and
    /// per cell vertex a thread that only checks |J| > 0 (a fold that the quadrature misses shows
    /// at the vertices): for reduce_sum, which counts the points and vertices where |J| ≤ 0. On
    /// the GPU instead of the host loop and the upload (the level operators' setup).
    template <int dim>
    struct GeometricFactorsAt
    {
      static constexpr int max_points = 16;
      LevelMesh            mesh;
      double               points[max_points]{}, weights[max_points]{};
      int                  nq   = 1;
      bool                 mass = false;
      ExpressionProgram    coefficient; ///< a(x) times the factors, where has_coefficient
      bool                 has_coefficient = false;
      double              *out             = nullptr;

      TPMG_HD int     n_points() const { return dim == 3 ? nq * nq * nq : nq * nq; }
      TPMG_HD index_t size() const
      {
        return mesh.cells[0] * mesh.cells[1] * mesh.cells[2] * index_t(n_points() + (1 << dim));
      }

      TPMG_HD double operator()(index_t i) const
      {
        const int     np = n_points(), per_cell = np + (1 << dim);
        const index_t cell  = i / per_cell;
        const int     p     = int(i - cell * per_cell);
        const index_t c[3]  = {cell % mesh.cells[0], (cell / mesh.cells[0]) % mesh.cells[1],
                               cell / (mesh.cells[0] * mesh.cells[1])};
        double        xi[3] = {0, 0, 0}, w = 1;
        if (p < np)
          {
            const int qi[3] = {p % nq, (p / nq) % nq, p / (nq * nq)};
            for (int d = 0; d < dim; ++d)
              {
                xi[d] = points[qi[d]];
                w *= weights[qi[d]];
              }
          }
        else
          for (int d = 0; d < dim; ++d)
            xi[d] = double(((p - np) >> d) & 1);
        double v[1 << dim][3] = {}, x[3], J[3][3]; // (the box's vertices on an undeformed level)
        if (!mesh.map)
          mesh.cell_vertices<dim>(c, v);
        map_jacobian<dim>(mesh, c, v, xi, x, J);
        double       adj[3][3];
        const double det  = adjugate<dim>(J, adj);
        const double fold = det > 0.0 ? 0.0 : 1.0;
        if (p >= np)
          return fold;
        if (has_coefficient)
          w *= coefficient(x[0], x[1], x[2]);
        const int n_entries = mass ? 1 : dim * (dim + 1) / 2;
        point_factors<dim>(mass, w, det, adj, out + cell * index_t(n_entries * np) + p, np);
        return fold;
      }
    };

    /// Position x and the measure ds/dŝ at reference point ξ on the face of normal direction d of
    /// cell c (vertices v): |det J| |J^{-T} e_d| (Nanson's formula), the product of the box's
    /// cell widths along the face on an undeformed level.
    template <int dim>
    TPMG_HD double face_map(const LevelMesh &mesh, const index_t (&c)[3], const double (&v)[1 << dim][3], int d,
                            const double *xi, double (&x)[3])
    {
      double       inv[3][3];
      const double det = cell_map<dim>(mesh, c, v, xi, x, inv);
      double       s   = 0;
      for (int r = 0; r < dim; ++r)
        s += inv[d][r] * inv[d][r];
      return fabs(det) * sqrt(s);
    }

    /// A tensor-product rule of nq points per direction on [0,1] and the Q_k basis (n = k+1
    /// Gauss–Lobatto nodes) at its points: B(q, i) = φ_i(ξ_q), D(q, i) = φ_i'(ξ_q). In 2D the
    /// third direction is a single point with B = 1, D = 0.
    template <int dim, int n, int nq>
    struct CellRule
    {
      static constexpr int nz  = dim == 3 ? n : 1;
      static constexpr int nqz = dim == 3 ? nq : 1;

      SmallMatrix<double, nq, n> B, D;
      double                     points[nq], weights[nq];

      TPMG_HD double Bz(int q, int i) const { return dim == 3 ? B(q, i) : 1.0; }
      TPMG_HD double Dz(int q, int i) const { return dim == 3 ? D(q, i) : 0.0; }
      TPMG_HD double weight(int qx, int qy, int qz) const
      {
        return weights[qx] * weights[qy] * (dim == 3 ? weights[qz] : 1.0);
      }
      /// The layer qz of a cell's values (nz × n × n, x fastest) contracted in z: uB = B_z u,
      /// uD = D_z u (n × n each; in 2D the values themselves and 0).
      TPMG_HD void contract_z(int qz, const double *u, double (&uB)[n * n], double (&uD)[n * n]) const
      {
        for (int j = 0; j < n * n; ++j)
          uB[j] = uD[j] = 0;
        for (int iz = 0; iz < nz; ++iz)
          for (int j = 0; j < n * n; ++j)
            {
              uB[j] += Bz(qz, iz) * u[iz * n * n + j];
              uD[j] += Dz(qz, iz) * u[iz * n * n + j];
            }
      }
      /// The y-contractions of a layer of the cell's values at one z point (uB = B_z u,
      /// uD = D_z u, n × n): v1 = B_y uB, v2 = D_y uB, v3 = B_y uD at point qy.
      TPMG_HD void contract_y(int qy, const double *uB, const double *uD, double (&v1)[n], double (&v2)[n],
                              double (&v3)[n]) const
      {
        for (int ix = 0; ix < n; ++ix)
          v1[ix] = v2[ix] = v3[ix] = 0;
        for (int iy = 0; iy < n; ++iy)
          for (int ix = 0; ix < n; ++ix)
            {
              v1[ix] += B(qy, iy) * uB[iy * n + ix];
              v2[ix] += D(qy, iy) * uB[iy * n + ix];
              v3[ix] += B(qy, iy) * uD[iy * n + ix];
            }
      }
      /// The value at point qx of the line, and the reference gradient gr, from contract_y's output.
      TPMG_HD double contract_x(int qx, const double (&v1)[n], const double (&v2)[n], const double (&v3)[n],
                                double (&gr)[3]) const
      {
        double val = 0;
        gr[0] = gr[1] = gr[2] = 0;
        for (int ix = 0; ix < n; ++ix)
          {
            val += B(qx, ix) * v1[ix];
            gr[0] += D(qx, ix) * v1[ix];
            gr[1] += B(qx, ix) * v2[ix];
            gr[2] += B(qx, ix) * v3[ix];
          }
        return val;
      }

      TPMG_HD void point(int qx, int qy, int qz, double (&xi)[3]) const
      {
        xi[0] = points[qx];
        xi[1] = points[qy];
        xi[2] = dim == 3 ? points[qz] : 0.0;
      }

      /// out(i) += Σ_q Σ_ch val_ch(q) Π_d Y(ch, d, q_d, i_d): a cell's integrals against
      /// `channels` families of tensor-product test functions at once, summed, contracted
      /// direction by direction as the points stream (x innermost, then y, then the z layers).
      /// values(qx, qy, qz, val) gives the channels' values at a point (weights and the map's
      /// determinant included); Y(ch, d, q, i) is 1 for d ≥ dim.
      template <int channels, class Values, class Factor>
      TPMG_HD void integrate_tests(Values &&values, Factor &&Y, double (&out)[nz * n * n]) const
      {
        TPMG_NO_UNROLL
        for (int qz = 0; qz < nqz; ++qz)
          {
            double t2[channels][n * n] = {}; // contracted over qx and qy
            TPMG_NO_UNROLL
            for (int qy = 0; qy < nq; ++qy)
              {
                double t1[channels][n] = {}; // contracted over qx
                TPMG_NO_UNROLL
                for (int qx = 0; qx < nq; ++qx)
                  {
                    double val[channels];
                    values(qx, qy, qz, val);
                    for (int ch = 0; ch < channels; ++ch)
                      for (int ix = 0; ix < n; ++ix)
                        t1[ch][ix] += Y(ch, 0, qx, ix) * val[ch];
                  }
                for (int ch = 0; ch < channels; ++ch)
                  for (int iy = 0; iy < n; ++iy)
                    {
                      const double f = Y(ch, 1, qy, iy);
                      for (int ix = 0; ix < n; ++ix)
                        t2[ch][iy * n + ix] += f * t1[ch][ix];
                    }
              }
            for (int ch = 0; ch < channels; ++ch)
              for (int iz = 0; iz < nz; ++iz)
                {
                  const double f = Y(ch, 2, qz, iz);
                  for (int j = 0; j < n * n; ++j)
                    out[iz * n * n + j] += f * t2[ch][j];
                }
          }
      }
    };

    /// Global index of local node (x, y, z) of cell c; -1 on a Dirichlet face.
    TPMG_HD inline index_t interior_node(const LevelMesh &m, int dim, const index_t (&c)[3], int k, int x, int y, int z)
    {
      const index_t c0[3] = {c[0] * k, c[1] * k, c[2] * k};
      return cell_node_on(m.nodes, dim, c0, x, y, z, m.constrained);
    }

    /// local = the values of u at the (k+1)^dim nodes of cell c, boundary nodes included (x fastest).
    template <int dim, int k>
    TPMG_HD void cell_values(const LevelMesh &m, const index_t (&c)[3], const double *u, double *local)
    {
      constexpr int n     = k + 1;
      const index_t c0[3] = {c[0] * k, c[1] * k, c[2] * k};
      for (int iz = 0; iz < (dim == 3 ? n : 1); ++iz)
        for (int iy = 0; iy < n; ++iy)
          for (int ix = 0; ix < n; ++ix)
            local[(iz * n + iy) * n + ix] = u[cell_node(m.nodes, dim, c0, ix, iy, iz, false)];
    }

    /// out_i += local_i at the interior nodes i of cell c (the cell's (k+1)^dim values, x fastest).
    template <int dim, int k>
    TPMG_HD void add_at_interior_nodes(const LevelMesh &m, const index_t (&c)[3], const double *local, double *out)
    {
      constexpr int n = k + 1;
      for (int iz = 0; iz < (dim == 3 ? n : 1); ++iz)
        for (int iy = 0; iy < n; ++iy)
          for (int ix = 0; ix < n; ++ix)
            {
              const index_t g = interior_node(m, dim, c, k, ix, iy, iz);
              if (g >= 0)
                out[g] += local[(iz * n + iy) * n + ix];
            }
    }

    /// b_i += ∫_F h φ_i over the cells of one colour of face F of the box (forall over
    /// face_cells()): the Neumann and Robin data, with nq Gauss points per direction of the face.
    /// The face's cells are coloured by parity in its directions, so that additions need no atomics.
    template <int dim, int k, int nq>
    struct IntegrateFaceFunction
    {
      static constexpr int       n = k + 1;
      ExpressionProgram          h;
      LevelMesh                  mesh;
      SmallMatrix<double, nq, n> B; ///< φ_i at the Gauss points
      double                     points[nq], weights[nq];
      int                        face   = 0; ///< 2d (lower) or 2d + 1 (upper) of direction d
      int                        colour = 0; ///< bit t: odd cells of the whole level in the face's t-th direction
      double                    *b      = nullptr;

      /// The face's two (2D: one) tangential directions.
      TPMG_HD int tangent(int t) const { return t < face / 2 ? t : t + 1; }

      TPMG_HD void operator()(index_t i) const
      {
        const int d    = face / 2;
        index_t   c[3] = {0, 0, 0}; // the cell
        c[d]           = face % 2 ? mesh.cells[d] - 1 : 0;
        for (int t = 0; t < dim - 1; ++t)
          {
            const int     e     = tangent(t);
            const index_t first = ((colour >> t) ^ (mesh.parity >> e)) & 1, count = (mesh.cells[e] - first + 1) / 2;
            c[e] = first + 2 * (i % count);
            i /= count;
          }
        double local[n * n] = {}; // the face's nodes, first tangent fastest
        double v[1 << dim][3];
        mesh.cell_vertices<dim>(c, v);
        for (int q = 0; q < (dim == 3 ? nq * nq : nq); ++q)
          {
            const int q0 = q % nq, q1 = q / nq;
            double    xi[3] = {0, 0, 0}, x[3];
            xi[d]           = face % 2 ? 1.0 : 0.0;
            xi[tangent(0)]  = points[q0];
            if (dim == 3)
              xi[tangent(1)] = points[q1];
            const double ds = face_map<dim>(mesh, c, v, d, xi, x);
            const double w  = ds * weights[q0] * (dim == 3 ? weights[q1] : 1.0) * h(x[0], x[1], x[2]);
            for (int a = 0; a < (dim == 3 ? n : 1); ++a)
              for (int j = 0; j < n; ++j)
                local[a * n + j] += w * B(q0, j) * (dim == 3 ? B(q1, a) : 1.0);
          }
        for (int a = 0; a < (dim == 3 ? n : 1); ++a)
          for (int j = 0; j < n; ++j)
            {
              int l[3]      = {0, 0, 0};
              l[d]          = face % 2 ? k : 0;
              l[tangent(0)] = j;
              if (dim == 3)
                l[tangent(1)] = a;
              const index_t gi = interior_node(mesh, dim, c, k, l[0], l[1], l[2]);
              if (gi >= 0)
                b[gi] += local[a * n + j];
            }
      }
    };
    /// Cells of colour `colour` of face `face` (IntegrateFaceFunction).
    inline index_t face_cells(const LevelMesh &mesh, int dim, int face, int colour)
    {
      index_t count = 1;
      for (int e = 0, t = 0; e < dim; ++e)
        if (e != face / 2)
          {
            const index_t first = ((colour >> t++) ^ (mesh.parity >> e)) & 1;
            count *= (mesh.cells[e] - first + 1) / 2;
          }
      return count;
    }

    /// u_i = g(x_i) at the nodes of the Dirichlet faces, 0 elsewhere (forall over the level's
    /// nodes); x_i is the node's position under its cell's map.
    template <int dim>
    struct BoundaryInterpolant
    {
      ExpressionProgram g;
      LevelMesh         mesh;
      int               degree = 1;
      double            support_points[max_degree + 1]; ///< the Gauss–Lobatto nodes on [0,1]
      double           *u = nullptr;

      TPMG_HD void operator()(index_t i) const
      {
        index_t node[3] = {i % mesh.nodes[0], (i / mesh.nodes[0]) % mesh.nodes[1], i / (mesh.nodes[0] * mesh.nodes[1])};
        if (!on_faces(mesh.nodes, dim, node, mesh.constrained)) // (the Dirichlet nodes only)
          {
            u[i] = 0;
            return;
          }
        index_t c[3]  = {0, 0, 0};
        double  xi[3] = {0, 0, 0};
        for (int d = 0; d < dim; ++d)
          {
            c[d]  = node[d] / degree < mesh.cells[d] ? node[d] / degree : mesh.cells[d] - 1;
            xi[d] = support_points[node[d] - c[d] * degree];
          }
        double v[1 << dim][3], x[3], inv[3][3];
        mesh.cell_vertices<dim>(c, v);
        (void)cell_map<dim>(mesh, c, v, xi, x, inv);
        u[i] = g(x[0], x[1], x[2]);
      }
    };

    /// Two sums over the cells of the box [box_begin, box_begin + box_cells) (the owned cells)
    /// in one pass, for reduce_sum_accurate<2>: u_h against u (du: its partial derivatives),
    /// the squared L2 error and the squared H1-seminorm error of cell i; with `mean`, the
    /// integral of u - u_h and the volume. One pass reads u_h and maps the points once for both.
    template <int dim, int k, int nq>
    struct FunctionError
    {
      static constexpr int n = k + 1;
      using Rule             = CellRule<dim, n, nq>;
      LevelMesh         mesh;
      Rule              rule;
      bool              mean = false;
      ExpressionProgram u;
      ExpressionProgram du[3]; ///< (without `mean`; du[2] unused in 2D)
      const double     *uh = nullptr;
      index_t           box_begin[3]{0, 0, 0}, box_cells[3]{1, 1, 1};

      TPMG_HD TPMG_NOINLINE void operator()(index_t i, double (&sums)[2]) const
      {
        index_t c[3];
        c[0] = box_begin[0] + i % box_cells[0];
        c[1] = box_begin[1] + (i / box_cells[0]) % box_cells[1];
        c[2] = dim == 3 ? box_begin[2] + i / (box_cells[0] * box_cells[1]) : 0;
        double v[1 << dim][3];
        mesh.cell_vertices<dim>(c, v);
        double local[Rule::nz * n * n];
        cell_values<dim, k>(mesh, c, uh, local);
        sums[0] = sums[1] = 0;
        TPMG_NO_UNROLL
        for (int qz = 0; qz < Rule::nqz; ++qz)
          {
            double uB[n * n], uD[n * n];
            rule.contract_z(qz, local, uB, uD);
            TPMG_NO_UNROLL
            for (int qy = 0; qy < nq; ++qy)
              {
                double v1[n], v2[n], v3[n];
                rule.contract_y(qy, uB, uD, v1, v2, v3);
                TPMG_NO_UNROLL
                for (int qx = 0; qx < nq; ++qx)
                  {
                    double       gr[3];
                    const double val = rule.contract_x(qx, v1, v2, v3, gr);
                    double       xi[3], x[3], inv[3][3];
                    rule.point(qx, qy, qz, xi);
                    const double wdet = rule.weight(qx, qy, qz) * cell_map<dim>(mesh, c, v, xi, x, inv);
                    const double e    = u(x[0], x[1], x[2]) - val;
                    if (mean)
                      {
                        sums[0] += wdet * e;
                        sums[1] += wdet;
                        continue;
                      }
                    sums[0] += wdet * e * e;
                    for (int r = 0; r < dim; ++r)
                      {
                        double gp = 0;
                        for (int d = 0; d < dim; ++d)
                          gp += inv[d][r] * gr[d];
                        const double eg = du[r](x[0], x[1], x[2]) - gp;
                        sums[1] += wdet * eg * eg;
                      }
                  }
              }
          }
      }
    };
  } // namespace problem_kernels
} // namespace tpmg
