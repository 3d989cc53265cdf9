// CEED bake-off operators on Q_k elements with stored geometric factors (DESIGN.md §4;
// seed 000): element restriction (gather from the global lexicographic vector), sum
// factorization to the quadrature points, pointwise geometry, transpose, scatter-add.
//   BP1 (mass):       v = Bᵀ (w|J|) B u,                      Gauss, k+2 points
//   BP3 (Laplacian):  v = Gᵀ (w|J| J⁻¹J⁻ᵀ) G u, G = collocated gradient at k+2 Gauss points
//   BP5 (Laplacian):  the same at the k+1 Gauss–Lobatto nodes (B = I, spectral elements)
// The gradient at the quadrature points is the derivative matrix of the Lagrange basis on
// those points applied to the interpolated values (exact: u has degree k < k+2).
// Thread structure (3D): one thread per (x, y) quadrature column of a cell, keeping its z
// column in registers, so z contractions need no shared memory; x and y contractions go
// through shared memory; several cells per block for low degrees. Boundary nodes read as
// zero and receive nothing (the constrained operator; boundary rows are the identity,
// applied by the host class).
#pragma once

#include "atomic.h"
#include "runner.h"
#include "tensor.h"

#include <tpmg/mesh.h>

// Register cap of the 3D on-the-fly BP kernels (0: none), a build-time knob for the A/B of
// benchmarks/gpu_session.sh bpregs
#ifndef TPMG_BP_REGS
#define TPMG_BP_REGS 0
#endif

namespace tpmg
{
  enum class BPKind
  {
    mass,          ///< BP1
    laplace_gauss, ///< BP3
    laplace_gll    ///< BP5
  };

  template <int k, int nq, typename Number>
  struct BPConstants
  {
    SmallMatrix<Number, nq, k + 1> B; ///< basis values at the quadrature points
    SmallMatrix<Number, nq, nq>    D; ///< collocation derivative on the quadrature points
    double                         points[nq], weights[nq]; ///< 1D rule on [0,1]
  };

  /// Geometric factors of a cell whose map is multilinear through its 2^d vertices, computed
  /// on the fly: w|J| (mass) or w|J| J⁻¹J⁻ᵀ = (w/|J|) adj(J)ᵀ adj(J) (Laplacian), in the stored order
  /// (xx, xy, xz, yy, yz, zz; 2D xx, xy, yy).
  ///
  /// A thread owns a column of points: all reference coordinates fixed but the last one, t.
  /// Along the column the Jacobian's columns are affine in t (the ones of the fixed
  /// directions) or constant (the last direction's), so `column()` precomputes base and slope
  /// and `at()` costs dim² FMAs plus the cofactors.
  ///
  /// `Real`: the arithmetic of the per-point part. The column itself is set up in double
  /// (vertex differences, no cancellation); float operators then evaluate in float.
  template <int dim, typename Real = double>
  struct VertexColumn
  {
    Real base[dim][dim], slope[dim][dim]; ///< J(:, c) = base[c] + t slope[c]

    template <typename R2>
    TPMG_HD VertexColumn<dim, R2> cast() const
    {
      VertexColumn<dim, R2> c;
      for (int i = 0; i < dim; ++i)
        for (int j = 0; j < dim; ++j)
          {
            c.base[i][j]  = R2(base[i][j]);
            c.slope[i][j] = R2(slope[i][j]);
          }
      return c;
    }

    template <bool laplace, typename Number>
    TPMG_HD void at(Real t, Real w, Number *f) const
    {
      Real J[dim][dim]; // J[c][r] = ∂x_r/∂ξ_c
      for (int c = 0; c < dim; ++c)
        for (int r = 0; r < dim; ++r)
          J[c][r] = base[c][r] + t * slope[c][r];
      if constexpr (dim == 3)
        {
          Real cof[3][3]; // cof[i] = J[i+1] × J[i+2], so J[a]·cof[b] = δ_ab det
          for (int i = 0; i < 3; ++i)
            {
              const int j = (i + 1) % 3, l = (i + 2) % 3;
              cof[i][0]   = J[j][1] * J[l][2] - J[j][2] * J[l][1];
              cof[i][1]   = J[j][2] * J[l][0] - J[j][0] * J[l][2];
              cof[i][2]   = J[j][0] * J[l][1] - J[j][1] * J[l][0];
            }
          const Real det = J[0][0] * cof[0][0] + J[0][1] * cof[0][1] + J[0][2] * cof[0][2];
          if constexpr (!laplace)
            f[0] = Number(w * det);
          else
            {
              const Real s   = w / det;
              auto       dot = [&](int a, int b) {
                return cof[a][0] * cof[b][0] + cof[a][1] * cof[b][1] + cof[a][2] * cof[b][2];
              };
              f[0] = Number(s * dot(0, 0));
              f[1] = Number(s * dot(0, 1));
              f[2] = Number(s * dot(0, 2));
              f[3] = Number(s * dot(1, 1));
              f[4] = Number(s * dot(1, 2));
              f[5] = Number(s * dot(2, 2));
            }
        }
      else
        {
          const Real det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
          if constexpr (!laplace)
            f[0] = Number(w * det);
          else
            {
              // gradients of the reference coordinates times det: (J1y, -J1x), (-J0y, J0x)
              const Real c0[2] = {J[1][1], -J[1][0]}, c1[2] = {-J[0][1], J[0][0]};
              const Real s     = w / det;
              f[0]               = Number(s * (c0[0] * c0[0] + c0[1] * c0[1]));
              f[1]               = Number(s * (c0[0] * c1[0] + c0[1] * c1[1]));
              f[2]               = Number(s * (c1[0] * c1[0] + c1[1] * c1[1]));
            }
        }
    }
  };

  /// The column of a multilinear cell with vertices v (lexicographic, bit d of the index =
  /// upper side in direction d) at the fixed coordinates xi[0..dim-2].
  template <int dim>
  TPMG_HD VertexColumn<dim> vertex_column(const double (&v)[8][3], const double *xi)
  {
    VertexColumn<dim> col;
    constexpr int     last = dim - 1, nv = 1 << dim;
    for (int c = 0; c < dim; ++c)
      for (int r = 0; r < dim; ++r)
        {
          // ∂x_r/∂ξ_c = Σ over vertex pairs along c of the difference times the multilinear
          // weight in the other directions; split by the side in the last direction
          double lo = 0, hi = 0;
          for (int a = 0; a < nv; ++a)
            if (!((a >> c) & 1))
              {
                double we = 1;
                for (int d = 0; d < last; ++d)
                  if (d != c)
                    we *= (a >> d) & 1 ? xi[d] : 1 - xi[d];
                const double diff = v[a | (1 << c)][r] - v[a][r];
                if (c == last || !((a >> last) & 1))
                  lo += we * diff;
                else
                  hi += we * diff;
              }
          if (c == last)
            {
              col.base[c][r]  = lo;
              col.slope[c][r] = 0;
            }
          else
            {
              col.base[c][r]  = lo;
              col.slope[c][r] = hi - lo;
            }
        }
    return col;
  }

  /// Shared-memory layout of the BP kernel for `word`-byte numbers (with its cells per block):
  /// a cell buffer holds (x, y, z) at x + sx (y + sy z), cells lie cs apart, the rows of the
  /// B and D copies sd apart. Unpadded (sx = sy = sd = nq, cs = nq^dim) the contractions
  /// conflict: warp lanes that differ in y read x + sx y, the rows D(tx, ·) lie nq apart,
  /// and for even nq both are multiples of half the banks (3D double nq = 8: 1.6x the ideal
  /// wavefronts, 2D nq = 4, 8: 3-4x). sx, sd and the cell padding below were found by
  /// search with the bank recorder (sx in [nq, nq+16], sd in [nq, nq+8], padding 0..16,
  /// over BP1, BP3, BP5 with that nq; fewest wavefronts, then least memory) among layouts
  /// with at most 12.5% more shared memory per cell: the kernels' occupancy is limited by
  /// shared memory and registers, and the unconstrained optimum (3D double nq = 8: sx = 12,
  /// +50%) measured slower on the H100. In 3D a padded entry stays only where an A/B run on
  /// the H100 measured it faster than unpadded (NOTES §8: up to 1.25x at nq = 8, but 0.75x
  /// at nq = 3 for reasons not found). BankConflicts.BPKernelsNearIdeal checks the padded
  /// entries.
  ///
  /// `padded` says whether the table changes anything for this nq.
  template <int dim, int nq, std::size_t word>
  struct BPSharedLayout
  {
    // {sx, sd, cell padding} by nq = 2..10; more points (2D k = 9, 10) stay unpadded
    static constexpr int table[2][2][9][3] = {
      // 2D: float, double (recorder choices; not measured against unpadded)
      {{{2, 4, 0}, {3, 6, 0}, {4, 4, 2}, {5, 5, 0}, {6, 14, 2}, {7, 7, 3}, {8, 9, 8}, {9, 9, 3}, {10, 10, 6}},
       {{2, 4, 0}, {3, 3, 0}, {4, 10, 2}, {5, 7, 1}, {6, 6, 2}, {7, 7, 6}, {8, 9, 4}, {9, 9, 8}, {10, 11, 6}}},
      // 3D: float, double (padded only where the H100 A/B measured a gain, double nq = 5, 8,
      // 10; float: the D-row stride at nq = 8 only, which costs no buffer memory)
      {{{2, 2, 0}, {3, 3, 0}, {4, 4, 0}, {5, 5, 0}, {6, 6, 0}, {7, 7, 0}, {8, 9, 0}, {9, 9, 0}, {10, 10, 0}},
       {{2, 2, 0}, {3, 3, 0}, {4, 4, 0}, {5, 11, 12}, {6, 6, 0}, {7, 7, 0}, {9, 9, 0}, {9, 9, 0}, {10, 11, 0}}}};
    static constexpr int entry(int i)
    {
      return nq <= 10 ? table[dim - 2][word == 8][(nq < 10 ? nq : 10) - 2][i] : i == 2 ? 0 : nq;
    }
    static constexpr int  sx = entry(0), sy = nq, sd = entry(1), cs = sx * nq * (dim == 3 ? nq : 1) + entry(2);
    static constexpr bool padded = sx != nq || sd != nq || cs != ipow<nq, dim>();
  };

  /// `onthefly`: geometric factors computed from the cell's vertices (multilinear map) instead
  /// of read from the stored array.
  template <int dim, int k, typename Number, BPKind kind, bool onthefly = false>
  struct BPOperatorKernel
  {
    static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
    static constexpr int  n        = k + 1;
    static constexpr int  nq       = kind == BPKind::laplace_gll ? k + 1 : k + 2;
    static constexpr bool gradient = kind != BPKind::mass;
    static constexpr bool interp   = kind != BPKind::laplace_gll;
    static constexpr int  n_entries = !gradient ? 1 : (dim == 3 ? 6 : 3);
    static constexpr int  nqz = dim == 3 ? nq : 1, nz = dim == 3 ? n : 1;
    static constexpr int  points = ipow<nq, dim>();
    static constexpr int  threads_per_cell      = dim == 3 ? nq * nq : nq;
    static constexpr int  cells_per_block       = cmax(1, 128 / threads_per_cell);
    static constexpr int  max_threads_per_block = threads_per_cell * cells_per_block;
    static constexpr int  n_phases              = dim == 3 ? 7 : 5;
    /// On the fly the geometry column takes 96-128 registers per thread, which limits the
    /// SM to 4 blocks; with TPMG_BP_REGS > 0 ask for enough blocks to cap it there.
    static constexpr int min_blocks_per_sm =
      onthefly && dim == 3 && TPMG_BP_REGS > 0 ? cmax(1, 65536 / (max_threads_per_block * cmax(TPMG_BP_REGS, 1))) : 1;

    /// per-thread column kept across barriers: the z (2D: y) derivative, then the result
    struct Registers
    {
      Number a[nq];
    };

    const Number *src;
    Number       *dst;
    const Number *geometry; ///< stored: [cell][entry][point], point lexicographic over nq^dim
    const double *vertices; ///< on the fly: deformed vertices, lexicographic, 3 doubles each
    index_t       cells[3];
    index_t       nodes[3];
    index_t       n_cells;
    bool          constrained; ///< boundary nodes read as zero and receive nothing
    using Constants = BPConstants<k, nq, Number>;
    Constants                constants;
    TPMG_HD const Constants &C() const { return tpmg::constants(*this); }

    // shared: B and D copies (rows indexed by thread), then 5 buffers of cells_per_block
    // cells, each cell (x, y, z) at x + sx (y + sy z), cells cs apart (BPSharedLayout)
    using Layout = BPSharedLayout<dim, nq, sizeof(Number)>;
    static constexpr int         sx = Layout::sx, sy = Layout::sy, cs = Layout::cs, sd = Layout::sd;
    static constexpr std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr std::size_t off_B   = 0;
    static constexpr std::size_t off_D   = a16(nq * sd * sizeof(Number));
    static constexpr std::size_t off_buf = off_D + a16(nq * sd * sizeof(Number));
    static constexpr std::size_t buf     = a16(std::size_t(cs) * cells_per_block * sizeof(Number));
    static constexpr std::size_t shared_bytes = off_buf + 5 * buf;

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
      const Number                     *G; ///< stored: the column's first point, entry 0
      VertexColumn<dim, Number>         vc;
      const BPConstants<k, nq, Number> *c;
      double                            w0; ///< weights of the fixed directions

      TPMG_HD void at(int q, Number *f) const
      {
        if constexpr (!onthefly)
          for (int e = 0; e < n_entries; ++e)
            f[e] = G[e * points + q * (dim == 3 ? nq * nq : nq)];
        else
          vc.template at<gradient>(Number(c->points[q]), Number(w0 * c->weights[q]), f);
      }
    };

    TPMG_HD FactorColumn factor_column(index_t cell, int q0, int q1) const
    {
      FactorColumn fc;
      fc.c  = &C();
      fc.G  = nullptr;
      fc.w0 = 1;
      if constexpr (onthefly)
        {
          const index_t cx = cell % cells[0], cy = (cell / cells[0]) % cells[1];
          const index_t cz  = dim == 3 ? cell / (cells[0] * cells[1]) : 0;
          double        v[8][3];
          gather_cell_vertices(vertices, cells, dim, cx, cy, cz, v);
          const double xi[2] = {C().points[q0], C().points[q1]};
          fc.vc              = vertex_column<dim>(v, xi).template cast<Number>();
          fc.w0              = C().weights[q0] * (dim == 3 ? C().weights[q1] : 1.0);
        }
      else
        fc.G = geometry + cell * index_t(n_entries * points) + q0 + (dim == 3 ? nq * q1 : 0);
      return fc;
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
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
      const int     c    = dim == 3 ? ctx.thread.z : ctx.thread.y;
      const index_t cell = index_t(ctx.block.x) * cells_per_block + c;
      if (cell >= n_cells)
        return;
      index_t c0[3];
      c0[0] = (cell % cells[0]) * k;
      c0[1] = ((cell / cells[0]) % cells[1]) * k;
      c0[2] = dim == 3 ? (cell / (cells[0] * cells[1])) * k : 0;
      const int     base = c * cs;
      auto          S0   = sh.template array<Number>(off_buf) + base;
      auto          S1   = sh.template array<Number>(off_buf + buf) + base;
      auto          S2   = sh.template array<Number>(off_buf + 2 * buf) + base;
      auto          S3   = sh.template array<Number>(off_buf + 3 * buf) + base;
      auto          S4   = sh.template array<Number>(off_buf + 4 * buf) + base;
      auto          B    = [&](int q, int i) -> Number { return Bs[q * sd + i]; };
      auto          D    = [&](int q, int j) -> Number { return Ds[q * sd + j]; };
      // index of (x, y, z) in a cell buffer; every buffer has extents nq in each direction
      auto at = [](int x, int y, int z) { return x + sx * (y + sy * z); };
      Number *a = reg.a;

      if constexpr (dim == 3)
        {
          const int tx = ctx.thread.x, ty = ctx.thread.y;
          if constexpr (phase == 0)
            {
              // gather column (tx, ty) and interpolate along z: S0 (n, n, nq)
              if (tx < n && ty < n)
                {
                  Number u[n];
                  TPMG_UNROLL
                  for (int z = 0; z < n; ++z)
                    {
                      const index_t g = node(c0, tx, ty, z);
                      u[z]            = g < 0 ? Number(0) : src[g];
                    }
                  TPMG_UNROLL
                  for (int qz = 0; qz < nq; ++qz)
                    {
                      Number s = 0;
                      if constexpr (interp)
                        {
                          TPMG_UNROLL
                          for (int z = 0; z < n; ++z)
                            s += C().B(qz, z) * u[z];
                        }
                      else
                        s = u[qz];
                      S0[at(tx, ty, qz)] = s;
                    }
                }
            }
          else if constexpr (phase == 1)
            {
              // y: S1 (n, nq, nq)
              if (tx < n)
                TPMG_UNROLL
                for (int qz = 0; qz < nq; ++qz)
                  {
                    Number s = 0;
                    if constexpr (interp)
                      {
                        TPMG_UNROLL
                        for (int y = 0; y < n; ++y)
                          s += B(ty, y) * S0[at(tx, y, qz)];
                      }
                    else
                      s = S0[at(tx, ty, qz)];
                    S1[at(tx, ty, qz)] = s;
                  }
            }
          else if constexpr (phase == 2)
            {
              // x: the values at the points (tx, ty, *); mass: times w|J|; Laplacian: keep d/dz
              Number uq[nq];
              TPMG_UNROLL
              for (int qz = 0; qz < nq; ++qz)
                {
                  Number s = 0;
                  if constexpr (interp)
                    {
                      TPMG_UNROLL
                      for (int x = 0; x < n; ++x)
                        s += B(tx, x) * S1[at(x, ty, qz)];
                    }
                  else
                    s = S1[at(tx, ty, qz)];
                  uq[qz]             = s;
                  S2[at(tx, ty, qz)] = s;
                }
              const FactorColumn fc = gradient ? FactorColumn{} : factor_column(cell, tx, ty);
              TPMG_UNROLL
              for (int qz = 0; qz < nq; ++qz)
                {
                  if constexpr (gradient)
                    {
                      Number dz = 0;
                      TPMG_UNROLL
                      for (int j = 0; j < nq; ++j)
                        dz += C().D(qz, j) * uq[j];
                      a[qz] = dz;
                    }
                  else
                    {
                      Number w;
                      fc.at(qz, &w);
                      a[qz] = w * uq[qz];
                    }
                }
            }
          else if constexpr (phase == 3)
            {
              // Laplacian: reference gradient, geometry; g0, g1 to shared, Dᵀ_z g2 in registers
              if constexpr (gradient)
                {
                  Number             g2[nq];
                  const FactorColumn fc = factor_column(cell, tx, ty);
                  TPMG_UNROLL
                  for (int qz = 0; qz < nq; ++qz)
                    {
                      Number dx = 0, dy = 0;
                      TPMG_UNROLL
                      for (int j = 0; j < nq; ++j)
                        {
                          dx += D(tx, j) * S2[at(j, ty, qz)];
                          dy += D(ty, j) * S2[at(tx, j, qz)];
                        }
                      const Number dz = a[qz];
                      const int    p  = at(tx, ty, qz);
                      Number       g[6];
                      fc.at(qz, g);
                      const Number xx = g[0], xy = g[1], xz = g[2], yy = g[3], yz = g[4], zz = g[5];
                      S0[p] = xx * dx + xy * dy + xz * dz;
                      S1[p] = xy * dx + yy * dy + yz * dz;
                      g2[qz] = xz * dx + yz * dy + zz * dz;
                    }
                  TPMG_UNROLL
                  for (int qz = 0; qz < nq; ++qz)
                    {
                      Number s = 0;
                      TPMG_UNROLL
                      for (int j = 0; j < nq; ++j)
                        s += C().D(j, qz) * g2[j];
                      a[qz] = s;
                    }
                }
            }
          else if constexpr (phase == 4)
            {
              // Laplacian: add Dᵀ_x g0 + Dᵀ_y g1; then Bᵀ along z: S3 (nq, nq, n)
              TPMG_UNROLL
              for (int qz = 0; qz < nq; ++qz)
                if constexpr (gradient)
                  {
                    Number s = a[qz];
                    TPMG_UNROLL
                    for (int j = 0; j < nq; ++j)
                      s += D(j, tx) * S0[at(j, ty, qz)] + D(j, ty) * S1[at(tx, j, qz)];
                    a[qz] = s;
                  }
              TPMG_UNROLL
              for (int z = 0; z < n; ++z)
                {
                  Number s = 0;
                  if constexpr (interp)
                    {
                      TPMG_UNROLL
                      for (int qz = 0; qz < nq; ++qz)
                        s += C().B(qz, z) * a[qz];
                    }
                  else
                    s = a[z];
                  S3[at(tx, ty, z)] = s;
                }
            }
          else if constexpr (phase == 5)
            {
              // Bᵀ along y: S4 (nq, n, n)
              if (ty < n)
                TPMG_UNROLL
                for (int z = 0; z < n; ++z)
                  {
                    Number s = 0;
                    if constexpr (interp)
                      {
                        TPMG_UNROLL
                        for (int qy = 0; qy < nq; ++qy)
                          s += B(qy, ty) * S3[at(tx, qy, z)];
                      }
                    else
                      s = S3[at(tx, ty, z)];
                    S4[at(tx, ty, z)] = s;
                  }
            }
          else
            {
              // Bᵀ along x and scatter-add
              if (tx < n && ty < n)
                TPMG_UNROLL
                for (int z = 0; z < n; ++z)
                  {
                    Number s = 0;
                    if constexpr (interp)
                      {
                        TPMG_UNROLL
                        for (int qx = 0; qx < nq; ++qx)
                          s += B(qx, tx) * S4[at(qx, ty, z)];
                      }
                    else
                      s = S4[at(tx, ty, z)];
                    const index_t g = node(c0, tx, ty, z);
                    if (g >= 0)
                      atomic_add(dst + g, s);
                  }
            }
        }
      else
        {
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
              const FactorColumn fc = gradient ? FactorColumn{} : factor_column(cell, tx, 0);
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
                  const FactorColumn fc = factor_column(cell, tx, 0);
                  TPMG_UNROLL
                  for (int qy = 0; qy < nq; ++qy)
                    {
                      Number dx = 0;
                      TPMG_UNROLL
                      for (int j = 0; j < nq; ++j)
                        dx += D(tx, j) * S2[at(j, qy, 0)];
                      const int    p  = at(tx, qy, 0);
                      Number       g[3];
                      fc.at(qy, g);
                      const Number xx = g[0], xy = g[1], yy = g[2];
                      S1[p]  = xx * dx + xy * a[qy];
                      g1[qy] = xy * dx + yy * a[qy];
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
