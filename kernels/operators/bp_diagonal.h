// The diagonal of the bake-off Laplacians BP3/BP5 on a (deformed) level, matrix-free:
//   diag_i = Σ_K Σ_q w_q |J| (J⁻ᵀ ∇̂φ_i) · (J⁻ᵀ ∇̂φ_i) = Σ_K Σ_q Σ_{a,b} G_ab(q) ∂_a φ_i(q) ∂_b φ_i(q),
// G = w |J| J⁻¹ J⁻ᵀ at the operator's quadrature points (Gauss k+2 for BP3, the k+1 Gauss–Lobatto
// nodes for BP5), the cell map multilinear through the cell's vertices (the box's, or the deformed
// ones). With tensor-product basis functions ∂_a φ_i(q) = Π_d Y_ad(q_d, i_d), Y_ad = D where d = a,
// else B, so each (a, b) term is a sum-factorized contraction of G_ab with the 1D products
// Y_ad Y_bd, streamed over the quadrature layers. One thread per cell, the cells colour by colour
// (problem_kernels::LevelMesh), so that the additions need no atomics and do not depend on the
// backend. With a coefficient a(x) (−∇·(a ∇u)) G is multiplied by a at the point; a reaction
// coefficient c (+ c u) adds one more channel, c w|J| with the 1D products B B in every direction
// (the mass diagonal). Setup work (the Chebyshev–Jacobi smoother on deformed meshes and with
// coefficients).
#pragma once

#include <kernels/problem/function_kernels.h>

namespace tpmg
{
  namespace operator_kernels
  {
    template <int dim, int k, int nq>
    struct LaplaceDiagonalCells
    {
      static constexpr int n      = k + 1;
      static constexpr int npairs = dim * (dim + 1) / 2; ///< the gradient's channels; then the mass
      using Rule                  = problem_kernels::CellRule<dim, n, nq>;
      problem_kernels::LevelMesh mesh;
      Rule                       rule;
      int                        colour = 0;
      double                    *diag   = nullptr; ///< interior rows only
      ExpressionProgram          coefficient;      ///< a(x) of −∇·(a ∇u), where has_coefficient
      bool                       has_coefficient = false;
      ExpressionProgram          reaction; ///< c(x) of + c u, where has_reaction
      bool                       has_reaction = false;

      /// The pair (a, b), a <= b, of index p.
      static TPMG_HD void pair(int p, int &a, int &b)
      {
        a = 0;
        b = p;
        while (b >= dim - a)
          {
            b -= dim - a;
            ++a;
          }
        b += a;
      }
      /// Y_ad Y_bd at (q, i) in direction d.
      TPMG_HD double factor(int a, int b, int d, int q, int i) const
      {
        if (d >= dim)
          return 1.0;
        const double ya = a == d ? rule.D(q, i) : rule.B(q, i), yb = b == d ? rule.D(q, i) : rule.B(q, i);
        return ya * yb;
      }

      TPMG_HD void operator()(index_t cell) const
      {
        index_t c[3];
        mesh.colour_cell<dim>(colour, cell, c);
        double v[1 << dim][3];
        mesh.cell_vertices<dim>(c, v);
        double acc[Rule::nz * n * n] = {};
        rule.template integrate_tests<npairs + 1>(
          [&](int qx, int qy, int qz, double(&g)[npairs + 1]) {
            double xi[3], x[3], inv[3][3];
            rule.point(qx, qy, qz, xi);
            const double wdet = rule.weight(qx, qy, qz) * problem_kernels::cell_map<dim>(mesh, c, v, xi, x, inv);
            const double a_w  = has_coefficient ? wdet * coefficient(x[0], x[1], x[2]) : wdet;
            for (int p = 0; p < npairs; ++p)
              {
                int a, b;
                pair(p, a, b);
                g[p] = 0;
                for (int r = 0; r < dim; ++r)
                  g[p] += inv[a][r] * inv[b][r];
                g[p] *= (a == b ? 1.0 : 2.0) * a_w; // G_ab and G_ba
              }
            g[npairs] = has_reaction ? wdet * reaction(x[0], x[1], x[2]) : 0.0;
          },
          [&](int p, int d, int q, int i) {
            if (p == npairs)
              return d < dim ? rule.B(q, i) * rule.B(q, i) : 1.0;
            int a, b;
            pair(p, a, b);
            return factor(a, b, d, q, i);
          },
          acc);
        problem_kernels::add_at_interior_nodes<dim, k>(mesh, c, acc, diag);
      }
    };

  } // namespace operator_kernels
} // namespace tpmg
