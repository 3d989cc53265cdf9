// The Robin term α ∫_F u v of the level operator on a face F of the box (docs/method.md,
// "Boundary conditions"): the face mass with α at the k + 1 Gauss points per face direction of
// each face cell, sum-factorized over the cell's (k+1)^(dim-1) face nodes. Its data are α times
// the quadrature weights and the face cell's area at every point (RobinFaceWeights), so that the
// operator, its diagonal, the vertex patches on the face and the lifting of Dirichlet data all
// integrate the same numbers. One thread per face cell: the faces hold few cells beside the
// level's volume. The face cells of one launch share no node on the CPU (colours by the parity
// of the tangential coordinates: the sums come in a fixed order); on the GPU one launch per
// face adds with atomics.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/tensor.h>
#include <kernels/problem/function_kernels.h>

#include <tpmg/expression_program.h>
#include <tpmg/numbering.h>

namespace tpmg
{
  /// The cells of face `face` of a level (numbering.h's face bits: 2d the lower face of
  /// direction d, 2d + 1 the upper one), numbered lexicographically in the face's tangential
  /// directions, the first fastest.
  struct FaceCells
  {
    int     face = 0, dim = 3;
    index_t cells[3]{1, 1, 1}, nodes[3]{1, 1, 1}; ///< the level's
    /// the colour of the cells to visit (bit t: odd cells of the whole level along the t-th
    /// tangent), or -1: all; the parity of the level's offset in the whole level (bit d), so that
    /// a rank's part adds in the whole level's order
    int colour = -1, parity = 0;

    TPMG_HD int normal() const { return face / 2; }
    /// The t-th tangential direction (t < dim - 1).
    TPMG_HD int tangent(int t) const { return t < face / 2 ? t : t + 1; }
    /// The cells of the face along its t-th tangent (1 for t >= dim - 1).
    TPMG_HD index_t along(int t) const { return t < dim - 1 ? cells[tangent(t)] : 1; }
    /// The cells this launch visits: all of the face's, or those of `colour`.
    /// The first cell of the colour along the t-th tangent.
    TPMG_HD index_t first(int t) const { return ((colour >> t) ^ (parity >> tangent(t))) & 1; }
    TPMG_HD index_t count() const
    {
      index_t n = 1;
      for (int t = 0; t < dim - 1; ++t)
        n *= colour < 0 ? along(t) : (along(t) - first(t) + 1) / 2;
      return n;
    }
    /// The tangential coordinates of the i-th visited cell, and its index among the face's cells.
    TPMG_HD index_t cell(index_t i, index_t (&c)[2]) const
    {
      c[0] = c[1] = 0;
      for (int t = 0; t < dim - 1; ++t)
        {
          if (colour < 0)
            {
              c[t] = i % along(t);
              i /= along(t);
            }
          else
            {
              const index_t f = first(t), n = (along(t) - f + 1) / 2;
              c[t] = f + 2 * (i % n);
              i /= n;
            }
        }
      return c[0] + along(0) * c[1];
    }
    /// The level's coordinates of face node (a, b) (a along the first tangent, b along the
    /// second) of the face cell with tangential coordinates c, for degree k.
    TPMG_HD void node(const index_t (&c)[2], int k, int a, int b, index_t (&g)[3]) const
    {
      g[0] = g[1] = g[2] = 0;
      g[normal()]        = face % 2 ? nodes[normal()] - 1 : 0;
      g[tangent(0)]      = c[0] * k + a;
      if (dim == 3)
        g[tangent(1)] = c[1] * k + b;
    }
    TPMG_HD index_t index(const index_t (&g)[3]) const { return g[0] + nodes[0] * (g[1] + nodes[1] * g[2]); }
  };

  /// The data of the Robin term on one face (forall over FaceCells::count(), all cells): at
  /// point (q0, q1) of face cell i, value[i nq^(dim-1) + q0 + nq q1] = α(x) w_q0 w_q1 |cell face|,
  /// α evaluated at the point's position x, computed from the whole level's corner and cell
  /// indices as the other kernels compute it (a rank's part gets the one-rank values).
  template <int dim, typename Number>
  struct RobinFaceWeights
  {
    static constexpr int max_points = max_degree + 2;
    FaceCells            F;
    ExpressionProgram    alpha;
    int                  nq = 2;
    double               points[max_points]{}, weights[max_points]{}; ///< the Gauss rule on [0, 1]
    double               origin[3]{0, 0, 0}, h[3]{1, 1, 1};           ///< the whole level's lower corner, cell widths
    index_t              offset[3]{0, 0, 0}, whole_cells[3]{1, 1, 1}; ///< the level in the whole level
    Number              *value = nullptr;
    /// A deformed level (`mapped`): its cells' maps, so that α is taken at the physical points
    /// and w at the face's measure ds = |det J| |J^{-T} e_d| dŝ.
    bool                       mapped = false;
    problem_kernels::LevelMesh mesh;

    TPMG_HD void operator()(index_t i) const
    {
      index_t   c[2];
      const int d = F.normal();
      (void)F.cell(i, c);
      double area = 1;
      for (int t = 0; t < dim - 1; ++t)
        area *= h[F.tangent(t)];
      const int per_cell = dim == 3 ? nq * nq : nq;
      if (mapped)
        {
          index_t cell[3] = {0, 0, 0}; // the level's cell at the face
          cell[d]         = F.face % 2 ? F.cells[d] - 1 : 0;
          for (int t = 0; t < dim - 1; ++t)
            cell[F.tangent(t)] = c[t];
          double v[1 << dim][3];
          mesh.cell_vertices<dim>(cell, v);
          TPMG_NO_UNROLL
          for (int q = 0; q < per_cell; ++q)
            {
              double xi[3]     = {0, 0, 0}, x[3];
              xi[d]            = F.face % 2 ? 1.0 : 0.0;
              xi[F.tangent(0)] = points[q % nq];
              if (dim == 3)
                xi[F.tangent(1)] = points[q / nq];
              const double ds         = problem_kernels::face_map<dim>(mesh, cell, v, d, xi, x);
              const double w          = weights[q % nq] * (dim == 3 ? weights[q / nq] : 1.0) * ds;
              value[i * per_cell + q] = Number(w * alpha(x[0], x[1], x[2]));
            }
          return;
        }
      TPMG_NO_UNROLL
      for (int q = 0; q < per_cell; ++q)
        {
          const int q0 = q % nq, q1 = q / nq;
          double    x[3] = {0, 0, 0};
          x[d]           = origin[d] + h[d] * double(F.face % 2 ? whole_cells[d] : 0);
          const int e0   = F.tangent(0);
          x[e0]          = origin[e0] + h[e0] * (double(offset[e0] + c[0]) + points[q0]);
          if (dim == 3)
            {
              const int e1 = F.tangent(1);
              x[e1]        = origin[e1] + h[e1] * (double(offset[e1] + c[1]) + points[q1]);
            }
          const double w          = weights[q0] * (dim == 3 ? weights[q1] : 1.0) * area;
          value[i * per_cell + q] = Number(w * alpha(x[0], x[1], x[2]));
        }
    }
  };

  /// dst += sign α ∫_F u φ_i at the face's nodes (forall over F.count()), u from src; or, with
  /// `diagonal`, dst += the diagonal of the term (src unused). The nodes on the Dirichlet faces
  /// `read_constrained` read as zero, those on `write_constrained` receive nothing.
  template <int dim, int k, typename Number>
  struct RobinFaceKernel
  {
    static constexpr int n = k + 1, nq = k + 1;
    static constexpr int m  = dim == 3 ? n * n : n;    ///< face nodes of a cell
    static constexpr int mq = dim == 3 ? nq * nq : nq; ///< points of a face cell

    FaceCells                  F;
    SmallMatrix<Number, nq, n> B;                          ///< φ_i at the Gauss points
    const Number              *weights          = nullptr; ///< RobinFaceWeights' values
    const Number              *src              = nullptr;
    Number                    *dst              = nullptr;
    Number                     sign             = 1;
    unsigned                   read_constrained = all_faces, write_constrained = all_faces;
    bool                       diagonal = false;

    TPMG_HD void operator()(index_t i) const
    {
      index_t       c[2];
      const index_t fc = F.cell(i, c);
      const Number *w  = weights + fc * mq;
      constexpr int nb = dim == 3 ? n : 1; // nodes along the second tangent
      Number        out[m];
      if (diagonal)
        for (int b = 0; b < nb; ++b)
          for (int a = 0; a < n; ++a)
            {
              Number s = 0;
              for (int q1 = 0; q1 < (dim == 3 ? nq : 1); ++q1)
                for (int q0 = 0; q0 < nq; ++q0)
                  s += w[q0 + nq * q1] * B(q0, a) * B(q0, a) * (dim == 3 ? B(q1, b) * B(q1, b) : Number(1));
              out[a + n * b] = s;
            }
      else
        {
          Number u[m], t[n * nq], v[mq];
          for (int b = 0; b < nb; ++b)
            for (int a = 0; a < n; ++a)
              {
                index_t g[3];
                F.node(c, k, a, b, g);
                u[a + n * b] = on_faces(F.nodes, dim, g, read_constrained) ? Number(0) : src[F.index(g)];
              }
          // along the first tangent: t(q0, b) = Σ_a B(q0, a) u(a, b)
          for (int b = 0; b < nb; ++b)
            for (int q0 = 0; q0 < nq; ++q0)
              {
                Number s = 0;
                for (int a = 0; a < n; ++a)
                  s += B(q0, a) * u[a + n * b];
                t[q0 + nq * b] = s;
              }
          // along the second: the values at the points, times α w
          for (int q1 = 0; q1 < (dim == 3 ? nq : 1); ++q1)
            for (int q0 = 0; q0 < nq; ++q0)
              {
                Number s = 0;
                for (int b = 0; b < nb; ++b)
                  s += (dim == 3 ? B(q1, b) : Number(1)) * t[q0 + nq * b];
                v[q0 + nq * q1] = w[q0 + nq * q1] * s;
              }
          // and back: the test functions, second tangent first
          for (int b = 0; b < nb; ++b)
            for (int q0 = 0; q0 < nq; ++q0)
              {
                Number s = 0;
                for (int q1 = 0; q1 < (dim == 3 ? nq : 1); ++q1)
                  s += (dim == 3 ? B(q1, b) : Number(1)) * v[q0 + nq * q1];
                t[q0 + nq * b] = s;
              }
          for (int b = 0; b < nb; ++b)
            for (int a = 0; a < n; ++a)
              {
                Number s = 0;
                for (int q0 = 0; q0 < nq; ++q0)
                  s += B(q0, a) * t[q0 + nq * b];
                out[a + n * b] = s;
              }
        }
      for (int b = 0; b < nb; ++b)
        for (int a = 0; a < n; ++a)
          {
            index_t g[3];
            F.node(c, k, a, b, g);
            if (!on_faces(F.nodes, dim, g, write_constrained))
              exclusive_add(dst + F.index(g), sign * out[a + n * b]);
          }
    }
  };
} // namespace tpmg
