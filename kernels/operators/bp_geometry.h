// The geometric factors of the bake-off kernels on a cell whose map is multilinear through its
// vertices (GeometryMode::on_the_fly), column by column of quadrature points, and the basis of the
// |J| values that GeometryMode::polynomial stores (kernels/operators/bp_operator.h).
#pragma once

#include <tpmg/config.h>

#include <cmath>

namespace tpmg
{
  /// The Lagrange basis at x of the nodes at which GeometryMode::polynomial stores a cell's |J|
  /// (of degree dim-1 in each direction on a multilinear cell): 3D {0, ½, 1}, 2D {0, 1}.
  template <int dim, typename Real>
  TPMG_HD TPMG_FORCEINLINE void determinant_node_basis(Real x, Real (&l)[dim])
  {
    if constexpr (dim == 3)
      {
        l[0] = (2 * x - 1) * (x - 1);
        l[1] = 4 * x * (1 - x);
        l[2] = x * (2 * x - 1);
      }
    else
      {
        l[0] = 1 - x;
        l[1] = x;
      }
  }
  /// Node i of determinant_node_basis.
  template <int dim>
  constexpr double determinant_node(int i)
  {
    return dim == 3 ? 0.5 * i : double(i);
  }

  /// Geometric factors of a cell whose map is multilinear through its 2^d vertices, computed
  /// on the fly: w|J| (mass) or w|J| J⁻¹J⁻ᵀ = (w/|J|) adj(J)ᵀ adj(J) (Laplacian), in the stored order
  /// (xx, xy, xz, yy, yz, zz; 2D xx, xy, yy).
  ///
  /// A thread owns a column of points: all reference coordinates fixed but the last one, t.
  /// Along the column the Jacobian's columns are affine in t (the ones of the fixed
  /// directions) or constant (the last direction's), J(:, c) = base[c] + t slope[c]. So the
  /// cofactor vectors cof_i = J(:, i+1) × J(:, i+2) are polynomials in t of degree 1, 1, 2
  /// (2D: 0, 1) and |J| = J(:, 0) · cof_0 one of degree 2 (2D: 1): `polynomials()` computes
  /// their coefficients once per column, and `ColumnPolynomials::at()` evaluates them per
  /// point (mass: two FMAs; Laplacian: 12 FMAs for the cofactors and the six products, the
  /// column's w/|J| from `weights_over_det()`).
  ///
  /// The column is set up in double (vertex differences, no cancellation); float operators
  /// then evaluate the polynomials in float.
  template <int dim, typename Real>
  struct ColumnPolynomials
  {
    Real cof[3][3][3]; ///< cof[i][p][r]: coefficient of t^p of component r of cofactor i
    Real det[3];       ///< |J| = det[0] + det[1] t + det[2] t²

    template <typename R2>
    TPMG_HD ColumnPolynomials<dim, R2> cast() const
    {
      ColumnPolynomials<dim, R2> c;
      for (int i = 0; i < 3; ++i)
        {
          c.det[i] = R2(det[i]);
          for (int p = 0; p < 3; ++p)
            for (int r = 0; r < 3; ++r)
              c.cof[i][p][r] = R2(cof[i][p][r]);
        }
      return c;
    }

    TPMG_HD TPMG_FORCEINLINE Real det_at(Real t) const { return det[0] + t * (det[1] + t * det[2]); }

    /// s[q] = w[q] / |J(t[q])| on the n points of the column. In double, one division for the
    /// column: the reciprocals come from the prefix products of the determinants (3 products a
    /// point instead of a division, which takes a Newton iteration and a slow-path test). The
    /// product of n ≤ 10 determinants of a cell stays far inside the double range for any mesh
    /// that fits in memory; where it does not (a non-normal product), each point divides.
    template <int n>
    TPMG_HD TPMG_FORCEINLINE void weights_over_det(const Real (&t)[n], const Real (&w)[n], Real (&out)[n]) const
    {
      if constexpr (sizeof(Real) == 8 && n > 1)
        {
          Real d[n];
          TPMG_UNROLL
          for (int q = 0; q < n; ++q)
            d[q] = det_at(t[q]);
          out[0] = d[0]; // prefix products
          TPMG_UNROLL
          for (int q = 1; q < n; ++q)
            out[q] = out[q - 1] * d[q];
          const Real p = out[n - 1];
          if (fabs(p) >= 1e-300 && fabs(p) <= 1e300)
            {
              Real inv = Real(1) / p; // 1 / (d_0 ... d_q), going down
              TPMG_UNROLL
              for (int q = n - 1; q > 0; --q)
                {
                  out[q] = w[q] * (inv * out[q - 1]);
                  inv *= d[q];
                }
              out[0] = w[0] * inv;
              return;
            }
        }
      TPMG_UNROLL
      for (int q = 0; q < n; ++q)
        out[q] = w[q] / det_at(t[q]);
    }

    /// The cofactor vectors at t: row i of |J| J⁻¹.
    TPMG_HD TPMG_FORCEINLINE void cofactors(Real t, Real (&c)[dim][dim]) const
    {
      constexpr int degree[2][3] = {{0, 1, 0}, {1, 1, 2}}; // of cofactor i in 2D, 3D
      TPMG_UNROLL
      for (int i = 0; i < dim; ++i)
        {
          TPMG_UNROLL
          for (int r = 0; r < dim; ++r)
            {
              const int p = degree[dim - 2][i];
              c[i][r]     = p == 0   ? cof[i][0][r]
                            : p == 1 ? cof[i][0][r] + t * cof[i][1][r]
                                     : cof[i][0][r] + t * (cof[i][1][r] + t * cof[i][2][r]);
            }
        }
    }

    /// The Laplacian's flux (w|J| J⁻¹J⁻ᵀ) d at the point t from `s` = w/|J|, as s C (Cᵀ d) with
    /// C the cofactor rows: 2 dim² FMAs instead of the dim(dim+1)/2 dot products of the factors
    /// and their dim² products with d (3D: 18 against 33).
    template <typename Number>
    TPMG_HD TPMG_FORCEINLINE void flux(Real t, Real s, const Number (&d)[dim], Number (&f)[dim]) const
    {
      Real c[dim][dim], y[dim];
      cofactors(t, c);
      TPMG_UNROLL
      for (int r = 0; r < dim; ++r)
        {
          y[r] = 0;
          TPMG_UNROLL
          for (int i = 0; i < dim; ++i)
            y[r] += c[i][r] * Real(d[i]);
        }
      TPMG_UNROLL
      for (int i = 0; i < dim; ++i)
        {
          Real v = 0;
          TPMG_UNROLL
          for (int r = 0; r < dim; ++r)
            v += c[i][r] * y[r];
          f[i] = Number(s * v);
        }
    }

    /// The factors at the point t: mass w|J| (`w` the weight); Laplacian from `w` = w/|J|
    /// (`weights_over_det`).
    template <bool laplace, typename Number>
    TPMG_HD TPMG_FORCEINLINE void at(Real t, Real w, Number *f) const
    {
      if constexpr (!laplace)
        f[0] = Number(w * det_at(t));
      else
        {
          Real c[dim][dim];
          cofactors(t, c);
          const Real s   = w;
          auto       dot = [&](int a, int b) {
            Real v = 0;
            TPMG_UNROLL
            for (int r = 0; r < dim; ++r)
              v += c[a][r] * c[b][r];
            return v;
          };
          if constexpr (dim == 3)
            {
              f[0] = Number(s * dot(0, 0));
              f[1] = Number(s * dot(0, 1));
              f[2] = Number(s * dot(0, 2));
              f[3] = Number(s * dot(1, 1));
              f[4] = Number(s * dot(1, 2));
              f[5] = Number(s * dot(2, 2));
            }
          else
            {
              f[0] = Number(s * dot(0, 0));
              f[1] = Number(s * dot(0, 1));
              f[2] = Number(s * dot(1, 1));
            }
        }
    }
  };

  template <int dim>
  struct VertexColumn
  {
    double base[dim][dim], slope[dim][dim]; ///< J(:, c) = base[c] + t slope[c], slope[dim-1] = 0

    TPMG_HD ColumnPolynomials<dim, double> polynomials() const
    {
      ColumnPolynomials<dim, double> P{};
      if constexpr (dim == 3)
        {
          auto cross = [](const double *x, const double *y, double *z) {
            z[0] = x[1] * y[2] - x[2] * y[1];
            z[1] = x[2] * y[0] - x[0] * y[2];
            z[2] = x[0] * y[1] - x[1] * y[0];
          };
          const double *b0 = base[0], *b1 = base[1], *b2 = base[2], *s0 = slope[0], *s1 = slope[1];
          double        x[3], y[3];
          cross(b1, b2, P.cof[0][0]); // J1 × J2 = b1 × b2 + t s1 × b2
          cross(s1, b2, P.cof[0][1]);
          cross(b2, b0, P.cof[1][0]); // J2 × J0 = b2 × b0 + t b2 × s0
          cross(b2, s0, P.cof[1][1]);
          cross(b0, b1, P.cof[2][0]); // J0 × J1 = b0 × b1 + t (b0 × s1 + s0 × b1) + t² s0 × s1
          cross(b0, s1, x);
          cross(s0, b1, y);
          for (int r = 0; r < 3; ++r)
            P.cof[2][1][r] = x[r] + y[r];
          cross(s0, s1, P.cof[2][2]);
          // |J| = J0 · cof_0 = (b0 + t s0) · (c00 + t c01)
          for (int r = 0; r < 3; ++r)
            {
              P.det[0] += b0[r] * P.cof[0][0][r];
              P.det[1] += b0[r] * P.cof[0][1][r] + s0[r] * P.cof[0][0][r];
              P.det[2] += s0[r] * P.cof[0][1][r];
            }
        }
      else
        {
          // gradients of the reference coordinates times |J|: (J1y, -J1x), (-J0y, J0x)
          P.cof[0][0][0] = base[1][1];
          P.cof[0][0][1] = -base[1][0];
          P.cof[1][0][0] = -base[0][1];
          P.cof[1][0][1] = base[0][0];
          P.cof[1][1][0] = -slope[0][1];
          P.cof[1][1][1] = slope[0][0];
          P.det[0]       = base[0][0] * base[1][1] - base[0][1] * base[1][0];
          P.det[1]       = slope[0][0] * base[1][1] - slope[0][1] * base[1][0];
        }
      return P;
    }
  };

  /// The multilinear map of a cell in monomial form, x(ξ) = Σ_a m[a] Π_{d: bit d of a} ξ_d, from
  /// one coordinate of its 2^dim vertices (lexicographic, bit d of the index = upper side in
  /// direction d), in place: a difference along each direction in turn. m[0] is the first vertex,
  /// m[1] the edge vector along x, m[3] the xy twist, and so on; no cancellation beyond the
  /// vertex differences.
  template <int dim>
  TPMG_HD TPMG_FORCEINLINE void map_monomials(double (&m)[1 << dim])
  {
    TPMG_UNROLL
    for (int d = 0; d < dim; ++d)
      {
        TPMG_UNROLL
        for (int a = 0; a < (1 << dim); ++a)
          if ((a >> d) & 1)
            m[a] -= m[a ^ (1 << d)];
      }
  }

  /// The column at the fixed reference coordinates xi[0..dim-2] of a cell whose map has the
  /// monomial coefficients M(a, r) (component r of m[a], a ≥ 1): with t the last coordinate,
  /// 3D: ∂x/∂ξ0 = m1 + ξ1 m3 + t (m5 + ξ1 m7), ∂x/∂ξ1 = m2 + ξ0 m3 + t (m6 + ξ0 m7),
  /// ∂x/∂t = m4 + ξ0 m5 + ξ1 m6 + ξ0 ξ1 m7; 2D: ∂x/∂ξ0 = m1 + t m3, ∂x/∂t = m2 + ξ0 m3.
  template <int dim, class Monomials>
  TPMG_HD TPMG_FORCEINLINE VertexColumn<dim> monomial_column(const Monomials &M, const double *xi)
  {
    VertexColumn<dim> col;
    const double      r0 = xi[0];
    for (int r = 0; r < dim; ++r)
      if constexpr (dim == 3)
        {
          const double r1 = xi[1], m7 = M(7, r), m5 = M(5, r) + r1 * m7;
          col.base[0][r]  = M(1, r) + r1 * M(3, r);
          col.slope[0][r] = m5;
          col.base[1][r]  = M(2, r) + r0 * M(3, r);
          col.slope[1][r] = M(6, r) + r0 * m7;
          col.base[2][r]  = M(4, r) + r0 * m5 + r1 * M(6, r);
          col.slope[2][r] = 0;
        }
      else
        {
          col.base[0][r]  = M(1, r);
          col.slope[0][r] = M(3, r);
          col.base[1][r]  = M(2, r) + r0 * M(3, r);
          col.slope[1][r] = 0;
        }
    return col;
  }

  /// The column of a multilinear cell with vertices v (lexicographic) at the fixed coordinates
  /// xi[0..dim-2].
  template <int dim>
  TPMG_HD VertexColumn<dim> vertex_column(const double (&v)[8][3], const double *xi)
  {
    double m[3][1 << dim];
    for (int r = 0; r < dim; ++r)
      {
        for (int a = 0; a < (1 << dim); ++a)
          m[r][a] = v[a][r];
        map_monomials<dim>(m[r]);
      }
    return monomial_column<dim>([&](int a, int r) { return m[r][a]; }, xi);
  }
} // namespace tpmg
