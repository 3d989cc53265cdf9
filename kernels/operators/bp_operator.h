// CEED bake-off operators on Q_k elements with stored geometric factors (docs/method.md, "Level operators";
// Świrydowicz, Chalmers, Karakus and Warburton, "Acceleration of tensor-product operations for
// high-order finite element methods"): element restriction (gather from the global lexicographic vector), sum
// factorization to the quadrature points, pointwise geometry, transpose, scatter-add.
//   BP1 (mass):       v = Bᵀ (w|J|) B u,                      Gauss, k+2 points
//   BP3 (Laplacian):  v = Gᵀ (w|J| J⁻¹J⁻ᵀ) G u, G = collocated gradient at k+2 Gauss points
//   BP5 (Laplacian):  the same at the k+1 Gauss–Lobatto nodes (B = I, spectral elements)
// The gradient at the quadrature points is the derivative matrix of the Lagrange basis on
// those points applied to the interpolated values (exact: u has degree k < k+2).
// Thread structure (3D): one thread per fiber of a cell in every phase (BPOperatorKernel);
// 2D: one thread per x column, the y column in registers. Several cells per block for low
// degrees. Boundary nodes read as zero and receive nothing (the constrained operator;
// boundary rows are the identity, applied by the host class).
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/cell_grid.h>
#include <kernels/common/tensor.h>
#include <kernels/runtime/runner.h>

#include <tpmg/geometry.h>
#include <tpmg/mesh.h>

#include <cmath>

namespace tpmg
{
  template <int k, int nq, typename Number>
  struct BPConstants
  {
    SmallMatrix<Number, nq, k + 1> B; ///< basis values at the quadrature points
    SmallMatrix<Number, nq, nq>    D; ///< collocation derivative on the quadrature points
    // the even-odd parts of B, Bᵀ, D, Dᵀ (3D fiber contractions)
    EvenOddMatrix<Number, nq, k + 1> Beo;
    EvenOddMatrix<Number, k + 1, nq> Bteo;
    EvenOddMatrix<Number, nq, nq>    Deo, Dteo;
    double                           points[nq], weights[nq]; ///< 1D rule on [0,1]
    /// GeometryMode::polynomial: w_q L_r(ξ_q), L_r the basis of the |J| nodes (determinant_node_basis)
    Number det_basis[nq][3];

    /// B and D from row-major arrays (host side), with their even-odd parts.
    void set_matrices(const double *b, const double *d)
    {
      for (int i = 0; i < nq * (k + 1); ++i)
        B.v[i] = Number(b[i]);
      for (int i = 0; i < nq * nq; ++i)
        D.v[i] = Number(d[i]);
      Beo  = EvenOddMatrix<Number, nq, k + 1>::from([&](int i, int j) { return b[i * (k + 1) + j]; });
      Bteo = EvenOddMatrix<Number, k + 1, nq>::from([&](int i, int j) { return b[j * (k + 1) + i]; });
      Deo  = EvenOddMatrix<Number, nq, nq>::from([&](int i, int j) { return d[i * nq + j]; });
      Dteo = EvenOddMatrix<Number, nq, nq>::from([&](int i, int j) { return d[j * nq + i]; });
    }
  };

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

  /// 2D shared-memory layout of the BP kernel for `word`-byte numbers (with its cells per block): a
  /// cell buffer holds (x, y) at x + sx y, cells lie cs apart, the rows of the B and D copies sd
  /// apart. Unpadded (sx = sd = nq, cs = nq²) the contractions conflict: warp lanes that differ in
  /// y read x + sx y, the rows D(tx, ·) lie nq apart, and for even nq both are multiples of half
  /// the banks (nq = 4, 8: 3-4x the ideal wavefronts). sx, sd and the cell padding were found by
  /// search with the bank recorder (sx in [nq, nq+16], sd in [nq, nq+8], padding 0..16, over BP1,
  /// BP3, BP5 with that nq; fewest wavefronts, then least memory) among layouts with at most 12.5%
  /// more shared memory per cell. The double row dates from the whole-warp rule the recorder had
  /// before the half-warp rule was measured (docs/performance/bp_operators.md, "Shared layouts");
  /// not re-searched (2D is not benchmarked), its padded entries stay within 1.55x the ideal under
  /// the measured rule. BankConflicts.BPKernelsNearIdeal checks them. `padded`: the table changes
  /// anything.
  template <int nq, std::size_t word>
  struct BPSharedLayout2D
  {
    // {sx, sd, cell padding} by nq = 2..10 for float, double; more points stay unpadded
    static constexpr int table[2][9][3] = {
      {{2, 4, 0}, {3, 6, 0}, {4, 4, 2}, {5, 5, 0}, {6, 14, 2}, {7, 7, 3}, {8, 9, 8}, {9, 9, 3}, {10, 10, 6}},
      {{2, 4, 0}, {3, 3, 0}, {4, 10, 2}, {5, 7, 1}, {6, 6, 2}, {7, 7, 6}, {8, 9, 4}, {9, 9, 8}, {10, 11, 6}}};
    static constexpr int  entry(int i) { return nq <= 10 ? table[word == 8][nq - 2][i] : i == 2 ? 0 : nq; }
    static constexpr int  sx = entry(0), sz = sx * nq, sd = entry(1), cs = sx * nq + entry(2);
    static constexpr bool padded = sx != nq || sd != nq || cs != nq * nq;
  };

  /// 3D shared-memory layout of the BP kernel: a cell buffer holds (x, y, z) at
  /// x + sx y + sz z, cells lie cs apart. The threads (a, b) of a cell access fibers
  /// (a, b, ·), (a, ·, b) and (·, a, b), so the lanes of a warp touch a + sx b, a + sz b and
  /// sx a + sz b (plus the fiber index): the table's strides keep those apart in the banks.
  template <int nq, std::size_t word>
  struct BPFiberLayout3D
  {
    // {sx - nq, sz - sx nq, cell padding} by nq = 2..10 for float, double: among layouts with at
    // most 25% more memory, the smallest worst ratio of wavefronts to the ideal over BP1, BP3 (nq =
    // k + 2) and BP5 (nq = k + 1), then the fewest wavefronts, then the least memory
    // (tools/bp_layout_search.py), where measured faster (docs/performance/bp_operators.md, "Shared
    // layouts"). Unpadded, nq = 8 needs 3.8x (double) and 4.4x (float) the ideal wavefronts; padded
    // 1.5x and 1.4x. Doubles are served per half-warp (bank_recorder.h): the 16 fibers of a
    // half-warp need 16 distinct bank pairs, which strides cannot give all three directions (nq =
    // 4: x + sx y and x + sz z need sx, sz ≡ ±4 mod 16, and then sx y + sz z takes 4 values); the
    // double row is the search under that rule.
    static constexpr int table[2][9][3] = {
      {{0, 0, 0}, {0, 0, 0}, {0, 3, 4}, {0, 0, 0}, {0, 1, 6}, {0, 7, 9}, {1, 0, 0}, {0, 0, 0}, {0, 5, 0}},
      {{0, 1, 0}, {0, 0, 0}, {0, 3, 0}, {0, 0, 0}, {0, 7, 2}, {0, 5, 7}, {1, 0, 0}, {0, 8, 0}, {0, 5, 0}}};
    static constexpr int  entry(int i) { return nq <= 10 ? table[word == 8][nq - 2][i] : 0; }
    static constexpr int  sx = nq + entry(0), sz = sx * nq + entry(1), sd = nq, cs = sz * nq + entry(2);
    static constexpr bool padded = cs != nq * nq * nq;
  };

  /// `geo`: where the geometric factors come from (GeometryMode): read per point (stored),
  /// computed from the cell's vertices (on the fly, multilinear map), or, for the mass, each
  /// column's w|J| evaluated from its values at the nodes of t (polynomial).
  ///
  /// 3D thread structure: a block of (nq, nq, cells) threads; in every phase thread (a, b) of
  /// a cell owns one fiber (a whole line of nodes or points in one direction) of the cell's
  /// tensor, loads it from shared memory into registers once, applies a 1D matrix there
  /// (even-odd split, entries from the constant bank) and stores the result fiber. A phase
  /// costs each thread one shared load per input and one store per output, against one load
  /// per FMA when a thread computes a single point of a contraction; the price is a barrier
  /// per contraction direction. The gather reads z fibers and the scatter writes y or z
  /// fibers, so that lanes with consecutive a touch consecutive nodes.
  /// 2D: one thread per x column of a cell, the y column in registers, x contractions
  /// point by point through shared memory.
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo = GeometryMode::stored>
  struct BPOperatorKernel
  {
    static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
    static constexpr bool onthefly   = geo == GeometryMode::on_the_fly;
    static constexpr bool polynomial = geo == GeometryMode::polynomial;
    static_assert(!polynomial || kind == BakeOff::bp1, "|J| alone is a polynomial: the mass operator's factor");
    static constexpr int  n                     = k + 1;
    static constexpr int  nq                    = kind == BakeOff::bp5 ? k + 1 : k + 2;
    static constexpr bool gradient              = kind != BakeOff::bp1;
    static constexpr bool interp                = kind != BakeOff::bp5;
    static constexpr int  n_entries             = !gradient ? 1 : (dim == 3 ? 6 : 3);
    static constexpr int  points                = ipow<nq, dim>();
    static constexpr int  threads_per_cell      = dim == 3 ? nq * nq : nq;
    static constexpr int  cells_per_block       = cmax(1, 128 / threads_per_cell);
    static constexpr int  max_threads_per_block = threads_per_cell * cells_per_block;
    static constexpr int  n_phases = dim == 2 ? 5 : kind == BakeOff::bp1 ? 6 : kind == BakeOff::bp3 ? 9 : 5;
    /// Left alone, the compiler gives the 3D kernels up to 190 registers per thread (it hoists
    /// the loads of whole fibers and geometry columns), which limits the SM to 2-3 blocks of
    /// 128 threads; the launch bounds ask for enough resident blocks to hold them at 128, and
    /// the on-the-fly kernels up to k = 6 at 96 (more resident blocks; docs/performance/
    /// bp_operators.md, "Register cap").
    static constexpr int register_cap      = onthefly && k <= 6 ? 96 : 128;
    static constexpr int min_blocks_per_sm = dim == 3 && register_cap > 0
                                               ? cmax(1, 65536 / ((max_threads_per_block + 31) / 32 * 32 *
                                                                  cmax(register_cap, 1)))
                                               : 1;

    /// per-thread column kept across barriers (2D: the y derivative, then the result; 3D BP5:
    /// the z derivative, then Dᵀ_z of the z flux)
    struct Registers
    {
      Number   a[nq];
      unsigned cc[3]; ///< the cell's coordinates, from phase 0 on
    };

    const Number *src;
    Number       *dst;
    const Number *geometry; ///< stored: [cell][entry][point], point lexicographic over nq^dim;
                            ///< polynomial: [cell][node of t][column], column lexicographic
    const double *vertices; ///< on the fly: deformed vertices, lexicographic, 3 doubles each
    index_t       cells[3];
    index_t       nodes[3];
    index_t       n_cells;
    CellGrid      grid;        ///< cell coordinates from the cell index (launch_bp builds it)
    bool          constrained; ///< boundary nodes read as zero and receive nothing
    using Constants = BPConstants<k, nq, Number>;
    /// operators on the same points share one __constant__ copy (64 KB per .cu module)
    using ConstantsTag = BPOperatorKernel<dim, k, Number, kind == BakeOff::bp5 ? kind : BakeOff::bp1>;
    Constants                constants;
    TPMG_HD const Constants &C() const { return tpmg::constants(*this); }

    // shared: 2D: B and D copies (rows indexed by thread), then 4 buffers; 3D: 3 buffers, and
    // on the fly the monomials m1..m7 of each cell's map (double, 21 per cell, `map_stride`
    // apart: cells of a warp read different banks); each buffer holds cells_per_block cells,
    // cs apart (Layout)
    using Layout =
      std::conditional_t<dim == 3, BPFiberLayout3D<nq, sizeof(Number)>, BPSharedLayout2D<nq, sizeof(Number)>>;
    static constexpr int         sx = Layout::sx, sz = Layout::sz, cs = Layout::cs, sd = Layout::sd;
    static constexpr std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr int         n_buffers    = dim == 3 ? 3 : 4;
    static constexpr std::size_t off_B        = 0;
    static constexpr std::size_t off_D        = a16(nq * sd * sizeof(Number));
    static constexpr std::size_t off_buf      = dim == 3 ? 0 : off_D + a16(nq * sd * sizeof(Number));
    static constexpr std::size_t buf          = a16(std::size_t(cs) * cells_per_block * sizeof(Number));
    static constexpr bool        shared_map   = dim == 3 && onthefly;
    static constexpr int         map_stride   = 21;
    static constexpr std::size_t off_map      = off_buf + n_buffers * buf;
    static constexpr std::size_t shared_bytes = off_map + (shared_map ? a16(cells_per_block * map_stride * 8) : 0);

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((n_cells + cells_per_block - 1) / cells_per_block);
      s.block        = dim == 3 ? Dim3{nq, nq, cells_per_block} : Dim3{nq, cells_per_block, 1};
      s.shared_bytes = shared_bytes;
      return s;
    }

    TPMG_HD index_t node(const index_t *c0, int x, int y, int z) const
    {
      return cell_node(nodes, dim, c0, x, y, z, constrained);
    }

    /// The geometric factors along the column of points (q0, q1, *) in 3D or (q0, *) in 2D
    /// of a cell: read (stored) or computed from the cell's vertices (on the fly).
    struct FactorColumn
    {
      const Number                     *G;                        ///< stored: the column's first point, entry 0
      ColumnPolynomials<dim, Number>    poly;                     ///< on the fly
      Number                            pc[polynomial ? dim : 1]; ///< polynomial: the column's w|J| at the nodes of t
      const BPConstants<k, nq, Number> *c;
      double                            w0; ///< weights of the fixed directions
      /// on the fly Laplacian in double: w/|J| at the column's points, one division for all
      /// (float divides per point: the column of reciprocals held up to 50 more registers;
      /// BP3 at k = 1, 2 lost 8% and 2% on the H100; docs/performance/bp_operators.md, "One division
      /// per column")
      static constexpr bool batched = gradient && onthefly && sizeof(Number) == 8 && !(kind == BakeOff::bp3 && k <= 2);
      Number                s[batched ? nq : 1];

      TPMG_HD void at(int q, Number *f) const
      {
        if constexpr (polynomial)
          {
            Number v = 0;
            TPMG_UNROLL
            for (int r = 0; r < dim; ++r)
              v += c->det_basis[q][r] * pc[r];
            f[0] = v;
          }
        else if constexpr (!onthefly)
          for (int e = 0; e < n_entries; ++e)
            f[e] = G[e * points + q * (dim == 3 ? nq * nq : nq)];
        else
          {
            const Number t = Number(c->points[q]), w = Number(w0 * c->weights[q]);
            poly.template at<gradient>(t, batched ? s[q] : gradient ? w / poly.det_at(t) : w, f);
          }
      }

      /// The Laplacian's flux at point q of the column from the reference gradient d.
      TPMG_HD void flux(int q, const Number (&d)[dim], Number (&f)[dim]) const
      {
        if constexpr (onthefly)
          {
            const Number t = Number(c->points[q]), w = Number(w0 * c->weights[q]);
            poly.flux(t, batched ? s[q] : w / poly.det_at(t), d, f);
          }
        else
          {
            Number g[n_entries];
            at(q, g);
            if constexpr (dim == 3)
              {
                f[0] = g[0] * d[0] + g[1] * d[1] + g[2] * d[2];
                f[1] = g[1] * d[0] + g[3] * d[1] + g[4] * d[2];
                f[2] = g[2] * d[0] + g[4] * d[1] + g[5] * d[2];
              }
            else
              {
                f[0] = g[0] * d[0] + g[1] * d[1];
                f[1] = g[1] * d[0] + g[2] * d[1];
              }
          }
      }
    };

    /// Slot of component r of monomial m[a] (a = 1..7) among a cell's 21 in shared memory.
    static TPMG_HD TPMG_FORCEINLINE int map_index(int a, int r) { return 3 * (a - 1) + r; }
    /// 3D on the fly, phase 0: component r of the cell's map in monomial form, from its 8
    /// vertices, to the cell's slots in shared memory (three threads per cell, one per r).
    template <class Array>
    TPMG_HD TPMG_FORCEINLINE void store_map(const unsigned (&cc)[3], int r, Array &map) const
    {
      double m[8];
      TPMG_UNROLL
      for (int a = 0; a < 8; ++a)
        m[a] = vertices[3 * cell_vertex(cells, cc[0], cc[1], cc[2], a) + r];
      map_monomials<3>(m);
      TPMG_UNROLL
      for (int a = 1; a < 8; ++a)
        map[map_index(a, r)] = m[a];
    }

    /// `map`: 3D on the fly, the cell's monomials in shared memory (store_map); else unused.
    template <class Map = std::nullptr_t>
    TPMG_HD FactorColumn factor_column(index_t cell, const unsigned (&cc)[3], int q0, int q1,
                                       const Map &map = nullptr) const
    {
      FactorColumn fc;
      fc.c  = &C();
      fc.G  = nullptr;
      fc.w0 = 1;
      if constexpr (onthefly)
        {
          const double      xi[2] = {C().points[q0], C().points[q1]};
          VertexColumn<dim> col;
          if constexpr (shared_map)
            col = monomial_column<dim>([&](int a, int r) -> double { return map[map_index(a, r)]; }, xi);
          else
            {
              double v[8][3];
              gather_cell_vertices(vertices, cells, dim, cc[0], cc[1], cc[2], v);
              col = vertex_column<dim>(v, xi);
            }
          fc.poly = col.polynomials().template cast<Number>();
          fc.w0   = C().weights[q0] * (dim == 3 ? C().weights[q1] : 1.0);
          if constexpr (FactorColumn::batched)
            {
              Number t[nq], w[nq];
              TPMG_UNROLL
              for (int q = 0; q < nq; ++q)
                {
                  t[q] = Number(C().points[q]);
                  w[q] = Number(fc.w0 * C().weights[q]);
                }
              fc.poly.weights_over_det(t, w, fc.s);
            }
        }
      else if constexpr (polynomial)
        {
          // the column's w|J| at the dim nodes of t: dim loads instead of nq (coalesced like the
          // stored factors: consecutive q0 are consecutive numbers)
          constexpr int per_column = dim == 3 ? nq * nq : nq;
          const Number *P = geometry + grid.index(cell, cc) * index_t(column_polynomial_numbers(dim, nq)) + q0 +
                            (dim == 3 ? nq * q1 : 0);
          TPMG_UNROLL
          for (int r = 0; r < dim; ++r)
            fc.pc[r] = P[r * per_column];
        }
      else
        fc.G = geometry + grid.index(cell, cc) * index_t(n_entries * points) + q0 + (dim == 3 ? nq * q1 : 0);
      return fc;
    }

    // The 1D operations on a fiber in registers: values at the points from the nodes (B),
    // back (Bᵀ), derivative at the points (D) and its transpose.
    TPMG_HD TPMG_FORCEINLINE void interpolate(const Number (&u)[n], Number (&v)[nq]) const
    {
      apply_even_odd<1>(C().Beo, u, v);
    }
    TPMG_HD TPMG_FORCEINLINE void integrate(const Number (&v)[nq], Number (&u)[n]) const
    {
      apply_even_odd<1>(C().Bteo, v, u);
    }
    TPMG_HD TPMG_FORCEINLINE void derivative(const Number (&u)[nq], Number (&d)[nq]) const
    {
      apply_even_odd<-1>(C().Deo, u, d);
    }
    TPMG_HD TPMG_FORCEINLINE void derivative_t(const Number (&u)[nq], Number (&d)[nq]) const
    {
      apply_even_odd<-1>(C().Dteo, u, d);
    }

    /// Index in a cell buffer of entry j of the fiber in direction `dir` through (a, b), the
    /// other two coordinates in increasing order of direction.
    template <int dir>
    static TPMG_HD TPMG_FORCEINLINE int fiber_index(int a, int b, int j)
    {
      if constexpr (dir == 0)
        return j + sx * a + sz * b;
      else if constexpr (dir == 1)
        return a + sx * j + sz * b;
      else
        return a + sx * b + sz * j;
    }
    template <int dir, int len, class Array>
    static TPMG_HD TPMG_FORCEINLINE void load(const Array &S, int a, int b, Number (&v)[len])
    {
      TPMG_UNROLL
      for (int j = 0; j < len; ++j)
        v[j] = S[fiber_index<dir>(a, b, j)];
    }
    template <int dir, int len, class Array>
    static TPMG_HD TPMG_FORCEINLINE void store(Array &S, int a, int b, const Number (&v)[len])
    {
      TPMG_UNROLL
      for (int j = 0; j < len; ++j)
        S[fiber_index<dir>(a, b, j)] = v[j];
    }
    /// A 1D operation `op(in, out)` along direction `dir`: fiber (a, b) of S to fiber (a, b) of
    /// T (in place when S is T: the fiber is in registers before the first store).
    template <int dir, int len_in, int len_out, class Array, class Op>
    TPMG_HD TPMG_FORCEINLINE void fiber_op(const Array &S, Array &T, int a, int b, Op op) const
    {
      Number in[len_in], out[len_out];
      load<dir>(S, a, b, in);
      op(in, out);
      store<dir>(T, a, b, out);
    }
    /// Bᵀ along direction `dir`: fiber (a, b) of S (at the points) to fiber (a, b) of T (nodes).
    template <int dir, class Array>
    TPMG_HD TPMG_FORCEINLINE void integrate_fiber(const Array &S, Array &T, int a, int b) const
    {
      fiber_op<dir, nq, n>(S, T, a, b, [this](const Number(&v)[nq], Number(&u)[n]) { integrate(v, u); });
    }
    /// D (or Dᵀ) along direction `dir` on the points: fiber (a, b) of S to fiber (a, b) of T.
    template <int dir, bool transposed = false, class Array>
    TPMG_HD TPMG_FORCEINLINE void derivative_fiber(const Array &S, Array &T, int a, int b) const
    {
      fiber_op<dir, nq, nq>(S, T, a, b, [this](const Number(&u)[nq], Number(&d)[nq]) {
        if constexpr (transposed)
          derivative_t(u, d);
        else
          derivative(u, d);
      });
    }
    /// Dᵀ along direction `dir` of fiber (a, b) of the flux component G plus the same fiber of
    /// the partial sum R.
    template <int dir, class Array>
    TPMG_HD TPMG_FORCEINLINE void derivative_t_plus(const Array &G, const Array &R, int a, int b,
                                                    Number (&out)[nq]) const
    {
      Number g[nq], r[nq];
      load<dir>(G, a, b, g);
      derivative_t(g, out);
      load<dir>(R, a, b, r);
      TPMG_UNROLL
      for (int q = 0; q < nq; ++q)
        out[q] += r[q];
    }

    /// The n nodes of the fiber through (a, b) in direction `dir` (1: nodes (a, ·, b), 2:
    /// (a, b, ·)) of the cell with first node c0 (3D): what cell_node gives node by node, with
    /// the index arithmetic and boundary tests once per fiber (NodeLine, cell_grid.h).
    template <int dir>
    TPMG_HD TPMG_FORCEINLINE NodeLine<n> node_fiber(const index_t *c0, int a, int b) const
    {
      static_assert(dim == 3 && (dir == 1 || dir == 2), "3D y or z fibers");
      const index_t g[3] = {c0[0] + a, c0[1] + (dir == 1 ? 0 : b), c0[2] + (dir == 1 ? b : 0)};
      return NodeLine<n>::template along<3, dir>(nodes, g, constrained);
    }

    /// Gather of the nodes (a, b, ·) of a cell with first node c0 (constrained nodes as zero).
    TPMG_HD TPMG_FORCEINLINE void gather_z(const index_t *c0, int a, int b, Number (&u)[n]) const
    {
      const NodeLine<n> fiber = node_fiber<2>(c0, a, b);
      TPMG_UNROLL
      for (int z = 0; z < n; ++z)
        {
          const index_t g = fiber(z);
          u[z]            = g < 0 ? Number(0) : src[g];
        }
    }
    /// Scatter-add to the nodes of the fiber in direction `dir` (1 or 2) through (a, b). All
    /// atomic (fire and forget): plain adds for the cell's own interior nodes measured up to 2x
    /// slower, as each waits for its load (docs/performance/bp_operators.md, "Atomic scatter").
    template <int dir>
    TPMG_HD TPMG_FORCEINLINE void scatter(const index_t *c0, int a, int b, const Number (&u)[n]) const
    {
      const NodeLine<n> fiber = node_fiber<dir>(c0, a, b);
      TPMG_UNROLL
      for (int j = 0; j < n; ++j)
        {
          const index_t g = fiber(j);
          if (g >= 0)
            atomic_add(dst + g, u[j]);
        }
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      if constexpr (dim == 3)
        run_3d<phase>(ctx, sh, reg);
      else
        run_2d<phase>(ctx, sh, reg);
    }

    /// The reference gradient at the points of the z fiber (a, b) (u, uz in registers, x and y
    /// derivatives in Gx, Gy) times the geometric factors: the x and y components of the flux
    /// replace Gx and Gy, the z component is returned in g2.
    template <class Array>
    TPMG_HD TPMG_FORCEINLINE void flux_z(const FactorColumn &fc, int a, int b, const Number (&uz)[nq], Array &Gx,
                                         Array &Gy, Number (&g2)[nq]) const
    {
      TPMG_UNROLL
      for (int q = 0; q < nq; ++q)
        {
          const int    p    = fiber_index<2>(a, b, q);
          const Number d[3] = {Gx[p], Gy[p], uz[q]};
          Number       f[3];
          fc.flux(q, d, f);
          Gx[p] = f[0];
          Gy[p] = f[1];
          g2[q] = f[2];
        }
    }

    template <int phase, class Shared>
    TPMG_HD void run_3d(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      const int     a = ctx.thread.x, b = ctx.thread.y, c = ctx.thread.z;
      const index_t cell = index_t(ctx.block.x) * cells_per_block + c;
      if (cell >= n_cells)
        return;
      if constexpr (phase == 0)
        grid.coordinates(unsigned(cell), reg.cc); // once per thread, 32 bits, no division (cell_grid.h)
      const index_t c0[3] = {index_t(reg.cc[0]) * k, index_t(reg.cc[1]) * k, index_t(reg.cc[2]) * k};
      auto          X0    = sh.template array<Number>(off_buf) + c * cs;
      auto          X1    = sh.template array<Number>(off_buf + buf) + c * cs;
      auto          X2    = sh.template array<Number>(off_buf + 2 * buf) + c * cs;
      auto          Map   = sh.template array<double>(off_map) + c * map_stride;
      Number        u[nq], v[nq], w[nq]; // fibers; u[0..n) and v[0..n) where they hold nodes
      if constexpr (shared_map && phase == 0)
        {
          // the last three threads of the cell (BP1/BP3: idle in the gather)
          const int r = a + nq * b - (nq * nq - 3);
          if (r >= 0)
            store_map(reg.cc, r, Map);
        }

      if constexpr (kind == BakeOff::bp5)
        {
          // BP5, B = I: derivatives of the nodal values along z (kept), y, x; flux; Dᵀ back.
          // The y and x derivatives read X0 and write X1, X2, the transposes read X1 and X2
          // and write X0 and X2 (in place: a thread reads and writes only its own x fiber),
          // so each pair shares a phase: two independent fibers per thread and 4 barriers
          // (7 phases measured up to 2.5% slower; docs/performance/bp_operators.md).
          if constexpr (phase == 0)
            {
              gather_z(c0, a, b, u);
              store<2>(X0, a, b, u);
              derivative(u, reg.a);
            }
          else if constexpr (phase == 1)
            {
              derivative_fiber<1>(X0, X1, a, b); // d/dy
              derivative_fiber<0>(X0, X2, a, b); // d/dx
            }
          else if constexpr (phase == 2)
            {
              flux_z(factor_column(cell, reg.cc, a, b, Map), a, b, reg.a, X2, X1, v);
              derivative_t(v, reg.a);
            }
          else if constexpr (phase == 3)
            {
              derivative_fiber<1, true>(X1, X0, a, b);
              derivative_fiber<0, true>(X2, X2, a, b);
            }
          else
            {
              load<2>(X0, a, b, u);
              load<2>(X2, a, b, v);
              TPMG_UNROLL
              for (int q = 0; q < nq; ++q)
                u[q] += v[q] + reg.a[q];
              scatter<2>(c0, a, b, u);
            }
        }
      else
        {
          // BP1, BP3: interpolate along z (gather), y, x; pointwise; back along x, y, z
          // (BP1; scatter along y) or gradient, flux, Dᵀ, then Bᵀ along x, y, z (BP3)
          Number un[n];
          if constexpr (phase == 0)
            {
              if (a < n && b < n)
                {
                  gather_z(c0, a, b, un);
                  interpolate(un, v);
                  store<2>(X0, a, b, v); // (n, n, nq)
                }
            }
          else if constexpr (phase == 1)
            {
              if (a < n)
                {
                  load<1>(X0, a, b, un);
                  interpolate(un, v);
                  store<1>(X1, a, b, v); // (n, nq, nq)
                }
            }
          else if constexpr (phase == 2)
            {
              load<0>(X1, a, b, un);
              interpolate(un, v); // the values at the points (·, a, b)
              if constexpr (kind == BakeOff::bp1)
                store<0>(X2, a, b, v);
              else
                {
                  store<0>(X0, a, b, v);
                  derivative(v, w);
                  store<0>(X2, a, b, w); // d/dx
                }
            }
          else if constexpr (kind == BakeOff::bp1)
            {
              if constexpr (phase == 3)
                {
                  // times w|J| along the z fiber, Bᵀ along z: (nq, nq, n)
                  load<2>(X2, a, b, v);
                  const FactorColumn fc = factor_column(cell, reg.cc, a, b, Map);
                  TPMG_UNROLL
                  for (int q = 0; q < nq; ++q)
                    {
                      Number jw;
                      fc.at(q, &jw);
                      v[q] *= jw;
                    }
                  integrate(v, un);
                  store<2>(X0, a, b, un);
                }
              else if constexpr (phase == 4)
                {
                  if (b < n)
                    integrate_fiber<0>(X0, X1, a, b); // (n, nq, n)
                }
              else
                {
                  if (a < n && b < n)
                    {
                      load<1>(X1, a, b, v);
                      integrate(v, un);
                      scatter<1>(c0, a, b, un);
                    }
                }
            }
          else
            {
              if constexpr (phase == 3)
                derivative_fiber<1>(X0, X1, a, b); // d/dy
              else if constexpr (phase == 4)
                {
                  // d/dz, the flux; Dᵀ_z of its z component replaces the values in X0
                  load<2>(X0, a, b, u);
                  derivative(u, w);
                  flux_z(factor_column(cell, reg.cc, a, b, Map), a, b, w, X2, X1, v);
                  derivative_t(v, w);
                  store<2>(X0, a, b, w);
                }
              else if constexpr (phase == 5)
                {
                  derivative_t_plus<1>(X1, X0, a, b, v);
                  store<1>(X0, a, b, v);
                }
              else if constexpr (phase == 6)
                {
                  // Dᵀ_x of the x component plus the rest, then Bᵀ along x: (n, nq, nq)
                  derivative_t_plus<0>(X2, X0, a, b, v);
                  integrate(v, un);
                  store<0>(X1, a, b, un);
                }
              else if constexpr (phase == 7)
                {
                  if (a < n)
                    integrate_fiber<1>(X1, X2, a, b); // (n, n, nq)
                }
              else
                {
                  if (a < n && b < n)
                    {
                      load<2>(X2, a, b, v);
                      integrate(v, un);
                      scatter<2>(c0, a, b, un);
                    }
                }
            }
        }
      (void)u;
      (void)w;
    }

    template <int phase, class Shared>
    TPMG_HD void run_2d(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      auto Bs = sh.template array<Number>(off_B);
      auto Ds = sh.template array<Number>(off_D);
      if constexpr (phase == 0)
        for (unsigned t = ctx.linear_thread(); t < unsigned(nq * nq); t += ctx.block_dim.size())
          {
            if (t < unsigned(nq * n))
              Bs[(t / n) * sd + t % n] = C().B.v[t];
            Ds[(t / nq) * sd + t % nq] = C().D.v[t];
          }
      const int     c    = ctx.thread.y;
      const index_t cell = index_t(ctx.block.x) * cells_per_block + c;
      if (cell >= n_cells)
        return;
      if constexpr (phase == 0)
        grid.coordinates(unsigned(cell), reg.cc); // once per thread, 32 bits, no division (cell_grid.h)
      const index_t c0[3] = {index_t(reg.cc[0]) * k, index_t(reg.cc[1]) * k, 0};
      const int     base  = c * cs;
      auto          S0    = sh.template array<Number>(off_buf) + base;
      auto          S1    = sh.template array<Number>(off_buf + buf) + base;
      auto          S2    = sh.template array<Number>(off_buf + 2 * buf) + base;
      auto          S3    = sh.template array<Number>(off_buf + 3 * buf) + base;
      auto          B     = [&](int q, int i) -> Number { return Bs[q * sd + i]; };
      auto          D     = [&](int q, int j) -> Number { return Ds[q * sd + j]; };
      auto          at    = [](int x, int y, int) { return x + sx * y; };
      Number       *a     = reg.a;

      // 2D: one thread per x (quadrature or node) column, the y column in registers
      const int tx = ctx.thread.x;
      if constexpr (phase == 0)
        {
          if (tx < n)
            {
              Number u[n];
              TPMG_UNROLL
              for (int y = 0; y < n; ++y)
                {
                  const index_t g = node(c0, tx, y, 0);
                  u[y]            = g < 0 ? Number(0) : src[g];
                }
              TPMG_UNROLL
              for (int qy = 0; qy < nq; ++qy)
                {
                  Number s = 0;
                  if constexpr (interp)
                    {
                      TPMG_UNROLL
                      for (int y = 0; y < n; ++y)
                        s += C().B(qy, y) * u[y];
                    }
                  else
                    s = u[qy];
                  S0[at(tx, qy, 0)] = s;
                }
            }
        }
      else if constexpr (phase == 1)
        {
          Number uq[nq];
          TPMG_UNROLL
          for (int qy = 0; qy < nq; ++qy)
            {
              Number s = 0;
              if constexpr (interp)
                {
                  TPMG_UNROLL
                  for (int x = 0; x < n; ++x)
                    s += B(tx, x) * S0[at(x, qy, 0)];
                }
              else
                s = S0[at(tx, qy, 0)];
              uq[qy]            = s;
              S2[at(tx, qy, 0)] = s;
            }
          const FactorColumn fc = gradient ? FactorColumn{} : factor_column(cell, reg.cc, tx, 0);
          TPMG_UNROLL
          for (int qy = 0; qy < nq; ++qy)
            {
              if constexpr (gradient)
                {
                  Number dy = 0;
                  TPMG_UNROLL
                  for (int j = 0; j < nq; ++j)
                    dy += C().D(qy, j) * uq[j];
                  a[qy] = dy;
                }
              else
                {
                  Number w;
                  fc.at(qy, &w);
                  a[qy] = w * uq[qy];
                }
            }
        }
      else if constexpr (phase == 2)
        {
          if constexpr (gradient)
            {
              Number             g1[nq];
              const FactorColumn fc = factor_column(cell, reg.cc, tx, 0);
              TPMG_UNROLL
              for (int qy = 0; qy < nq; ++qy)
                {
                  Number dx = 0;
                  TPMG_UNROLL
                  for (int j = 0; j < nq; ++j)
                    dx += D(tx, j) * S2[at(j, qy, 0)];
                  const Number d[2] = {dx, a[qy]};
                  Number       f[2];
                  fc.flux(qy, d, f);
                  S1[at(tx, qy, 0)] = f[0];
                  g1[qy]            = f[1];
                }
              TPMG_UNROLL
              for (int qy = 0; qy < nq; ++qy)
                {
                  Number s = 0;
                  TPMG_UNROLL
                  for (int j = 0; j < nq; ++j)
                    s += C().D(j, qy) * g1[j];
                  a[qy] = s;
                }
            }
        }
      else if constexpr (phase == 3)
        {
          TPMG_UNROLL
          for (int qy = 0; qy < nq; ++qy)
            if constexpr (gradient)
              {
                Number s = a[qy];
                TPMG_UNROLL
                for (int j = 0; j < nq; ++j)
                  s += D(j, tx) * S1[at(j, qy, 0)];
                a[qy] = s;
              }
          TPMG_UNROLL
          for (int y = 0; y < n; ++y)
            {
              Number s = 0;
              if constexpr (interp)
                {
                  TPMG_UNROLL
                  for (int qy = 0; qy < nq; ++qy)
                    s += C().B(qy, y) * a[qy];
                }
              else
                s = a[y];
              S3[at(tx, y, 0)] = s;
            }
        }
      else
        {
          if (tx < n)
            {
              TPMG_UNROLL
              for (int y = 0; y < n; ++y)
                {
                  Number s = 0;
                  if constexpr (interp)
                    {
                      TPMG_UNROLL
                      for (int qx = 0; qx < nq; ++qx)
                        s += B(qx, tx) * S3[at(qx, y, 0)];
                    }
                  else
                    s = S3[at(tx, y, 0)];
                  const index_t g = node(c0, tx, y, 0);
                  if (g >= 0)
                    atomic_add(dst + g, s);
                }
            }
        }
    }
  };
} // namespace tpmg
