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
// This file: the kernel's data, the shared fiber operations and the 3D interpolation; the 3D
// phases of each operator in bp_mass.h (BP1) and bp_laplace.h (BP3, BP5), the 2D phases in
// bp_operator_2d.h, the column geometry in bp_geometry.h, the shared layouts in bp_layouts.h.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/cell_grid.h>
#include <kernels/common/tensor.h>
#include <kernels/operators/bp_geometry.h>
#include <kernels/operators/bp_layouts.h>
#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>
#include <tpmg/option_enums.h>

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
  ///
  /// `reaction_term` (stored BP3/BP5): + Bᵀ (c w|J|) B u with c w|J| per point in `reaction`. A
  /// variant of its own: the test and the loads inside the Laplacian's kernels made BP3 4-10%
  /// slower without a reaction (H200, k = 2..7).
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo = GeometryMode::stored,
            bool reaction_term = false>
  struct BPOperatorKernel
  {
    static_assert(!reaction_term || (geo == GeometryMode::stored && kind != BakeOff::bp1),
                  "the reaction term goes with the stored Laplacians");
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
    const Number *geometry;           ///< stored: [cell][entry][point], point lexicographic over nq^dim;
                                      ///< polynomial: [cell][node of t][column], column lexicographic
    const double *vertices;           ///< on the fly: deformed vertices, lexicographic, 3 doubles each
    const Number *reaction = nullptr; ///< reaction_term: c w|J| per point ([cell][point])
    index_t       cells[3];
    index_t       nodes[3];
    index_t       n_cells;
    CellGrid      grid; ///< cell coordinates from the cell index (launch_bp builds it)
    /// the faces whose nodes read as zero and receive nothing (numbering.h's face bits: the
    /// level's Dirichlet faces; 0 for the unconstrained benchmark operator)
    unsigned constrained = all_faces;
    using Constants      = BPConstants<k, nq, Number>;
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
      return cell_blocks(n_cells, cells_per_block,
                         dim == 3 ? Dim3{nq, nq, cells_per_block} : Dim3{nq, cells_per_block, 1}, shared_bytes);
    }

    TPMG_HD index_t node(const index_t *c0, int x, int y, int z) const
    {
      return cell_node_on(nodes, dim, c0, x, y, z, constrained);
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

    /// out[q] += c w|J| u(q) at the points of the column (q0, q1, ·) (3D; 2D (q0, ·)): the reaction
    /// term of −∇·(a ∇u) + c u, added where the test functions' Dᵀ meets their Bᵀ (stored factors).
    template <class Values>
    TPMG_HD TPMG_FORCEINLINE void add_reaction(index_t cell, const unsigned (&cc)[3], int q0, int q1, const Values &u,
                                               Number (&out)[nq]) const
    {
      if constexpr (reaction_term)
        {
          constexpr int step = dim == 3 ? nq * nq : nq;
          const Number *R    = reaction + grid.index(cell, cc) * index_t(points) + q0 + (dim == 3 ? nq * q1 : 0);
          TPMG_UNROLL
          for (int q = 0; q < nq; ++q)
            out[q] += R[q * step] * u(q);
        }
    }

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
      using Cell = typename Layout::Cell;
      if constexpr (dir == 0)
        return Cell::at(j, a, b);
      else if constexpr (dir == 1)
        return Cell::at(a, j, b);
      else
        return Cell::at(a, b, j);
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
      return NodeLine<n>::template along<3, dir>(nodes, g, ~constrained); // (the other faces: open)
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
      if constexpr (shared_map && phase == 0)
        {
          // the last three threads of the cell (BP1/BP3: idle in the gather)
          const int r = a + nq * b - (nq * nq - 3);
          if (r >= 0)
            store_map(reg.cc, r, Map);
        }

      if constexpr (kind == BakeOff::bp5)
        gll_laplace_3d<phase>(a, b, cell, c0, X0, X1, X2, Map, reg); // kernels/operators/bp_laplace.h
      else if constexpr (phase <= 2)
        interpolate_3d<phase>(a, b, c0, X0, X1, X2);
      else if constexpr (kind == BakeOff::bp1)
        mass_3d<phase>(a, b, cell, c0, X0, X1, X2, Map, reg); // kernels/operators/bp_mass.h
      else
        gauss_laplace_3d<phase>(a, b, cell, c0, X0, X1, X2, Map, reg); // kernels/operators/bp_laplace.h
    }

    /// BP1, BP3, phases 0-2: interpolate along z (gather), y, x to the points; BP3 also the
    /// x derivative there.
    template <int phase, class Array>
    TPMG_HD TPMG_FORCEINLINE void interpolate_3d(int a, int b, const index_t (&c0)[3], Array &X0, Array &X1,
                                                 Array &X2) const
    {
      Number un[n], v[nq], w[nq];
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
      else
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
      (void)w;
    }

    // the phases after the interpolation, per operator: thread (a, b) of cell `cell` with first
    // node c0, the cell's buffers X0..X2 and map monomials Map (bp_mass.h, bp_laplace.h)
#define TPMG_BP_PHASE_3D(name)                                                                                         \
  template <int phase, class Array, class MapArray>                                                                    \
  TPMG_HD void name(int a, int b, index_t cell, const index_t(&c0)[3], Array &X0, Array &X1, Array &X2, MapArray &Map, \
                    Registers &reg) const;
    TPMG_BP_PHASE_3D(mass_3d)
    TPMG_BP_PHASE_3D(gauss_laplace_3d)
    TPMG_BP_PHASE_3D(gll_laplace_3d)
#undef TPMG_BP_PHASE_3D

    /// 2D: one thread per x column of a cell, the y column in registers (bp_operator_2d.h).
    template <int phase, class Shared>
    TPMG_HD void run_2d(const KernelCtx &ctx, Shared &sh, Registers &reg) const;
    template <int phase, class Array>
    TPMG_HD void from_points_2d(int tx, index_t cell, const index_t (&c0)[3], Array &S1, Array &S2, Array &S3,
                                Array &Bs, Array &Ds, Registers &reg) const;
  };
} // namespace tpmg

#include <kernels/operators/bp_laplace.h>
#include <kernels/operators/bp_mass.h>
#include <kernels/operators/bp_operator_2d.h>
