// The transfer between Q_k and Q_1 on the same cells (docs/method.md, "Coarse solve"): the Q_1
// function's values at the Q_k nodes (prolongation) and its transpose (restriction), below the
// coarsest mesh level. On a cell, the Q_1 basis function of corner b at the Q_k node of local
// index l_d per direction is Π_d φ_{b_d}(ξ_{l_d}), ξ the Gauss–Lobatto points on [0, 1],
// φ_0 = 1 - ξ, φ_1 = ξ. Values on Dirichlet faces stay zero (homogeneous Dirichlet rows). Both are
// gathers, one thread per output node: no atomics.
#pragma once

#include <tpmg/degrees.h>
#include <tpmg/numbering.h>

namespace tpmg
{
  namespace transfer_kernels
  {
    struct DegreeTransferShape
    {
      int      dim = 3, k = 1;
      index_t  nodes[3]           = {1, 1, 1}; ///< Q_k level nodes per direction (1 beyond dim)
      index_t  vertices[3]        = {1, 1, 1}; ///< Q_1 nodes (cells + 1; 1 beyond dim)
      double   xi[max_degree + 1] = {};
      unsigned constrained        = all_faces; ///< the Dirichlet faces (numbering.h's face bits)

      TPMG_HD static void coordinates(index_t i, const index_t (&n)[3], index_t (&g)[3])
      {
        g[0] = i % n[0];
        g[1] = (i / n[0]) % n[1];
        g[2] = i / (n[0] * n[1]);
      }
    };

    /// x_k += P x_1 at the Q_k nodes off the Dirichlet faces (x_1 zero on those faces' vertices).
    template <typename Number>
    struct ProlongateFromQ1
    {
      DegreeTransferShape s;
      const Number       *x1;
      Number             *xk;
      TPMG_HD void        operator()(index_t i) const
      {
        index_t g[3];
        DegreeTransferShape::coordinates(i, s.nodes, g);
        if (on_faces(s.nodes, s.dim, g, s.constrained))
          return;
        index_t c[3] = {0, 0, 0};
        double  w[3][2];
        for (int d = 0; d < 3; ++d)
          {
            if (d >= s.dim)
              {
                w[d][0] = 1;
                w[d][1] = 0;
                continue;
              }
            c[d]        = g[d] / s.k < s.vertices[d] - 2 ? g[d] / s.k : s.vertices[d] - 2;
            const int l = int(g[d] - c[d] * s.k);
            w[d][0]     = 1 - s.xi[l];
            w[d][1]     = s.xi[l];
          }
        double sum = 0;
        for (int b = 0; b < (1 << s.dim); ++b)
          {
            const int     b0 = b & 1, b1 = (b >> 1) & 1, b2 = (b >> 2) & 1;
            const double  wb = w[0][b0] * w[1][b1] * w[2][b2];
            const index_t v  = (c[0] + b0) + s.vertices[0] * ((c[1] + b1) + s.vertices[1] * (c[2] + b2));
            if (wb != 0)
              sum += wb * double(x1[v]);
          }
        xk[i] += Number(sum);
      }
    };

    /// r_1 = Pᵀ r_k at the Q_1 vertices off the Dirichlet faces (0 on them): the Q_k nodes of
    /// the cells around vertex v, weighted by v's basis function.
    template <typename Number>
    struct RestrictToQ1
    {
      DegreeTransferShape s;
      const Number       *rk;
      Number             *r1;
      /// v's basis function along one direction at node offset o = g - v k, |o| < k
      TPMG_HD double weight(int o) const { return o < 0 ? s.xi[s.k + o] : 1 - s.xi[o]; }
      TPMG_HD void   operator()(index_t v) const
      {
        index_t c[3];
        DegreeTransferShape::coordinates(v, s.vertices, c);
        if (on_faces(s.vertices, s.dim, c, s.constrained))
          {
            r1[v] = Number(0);
            return;
          }
        int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}; // the offsets of the cells around v inside the level
        for (int d = 0; d < s.dim; ++d)
          {
            lo[d] = c[d] == 0 ? 0 : 1 - s.k;
            hi[d] = c[d] == s.vertices[d] - 1 ? 0 : s.k - 1;
          }
        double sum = 0;
        for (int o2 = lo[2]; o2 <= hi[2]; ++o2)
          for (int o1 = lo[1]; o1 <= hi[1]; ++o1)
            {
              const double  w12 = (s.dim > 1 ? weight(o1) : 1.0) * (s.dim > 2 ? weight(o2) : 1.0);
              const index_t row =
                s.nodes[0] * ((c[1] * s.k + o1) + s.nodes[1] * (s.dim > 2 ? c[2] * s.k + o2 : 0)) + c[0] * s.k;
              for (int o0 = lo[0]; o0 <= hi[0]; ++o0)
                sum += w12 * weight(o0) * double(rk[row + o0]);
            }
        r1[v] = Number(sum);
      }
    };
  } // namespace transfer_kernels
} // namespace tpmg
