// The right-hand side's cell integrals with the threads of a block sharing each cell: b_i += ∫_K f φ_i
// (IntegrateFunction) and b_i -= a_K(g_h, φ_i) for the lifting of Dirichlet data (SubtractLifting).
// One-source kernels (kernels/runtime/runner.h) launched over a level's cells with launch_cells:
// one launch with atomic additions on the GPU, one launch per colour on the CPU (the same sums on
// any number of threads).
//
// Why not a thread per cell: a cell's work is (k+2)^dim points, each with a run of the user's
// expressions (and of the map's dim + dim² ones on an exactly mapped mesh), done one after the
// other by one thread, and a level's colour has few cells at the sizes these problems are set up
// at. A kernel then took as long as one thread's serial work whatever the mesh: 10–40 ms for
// 10^3 to 3.6·10^6 DoFs on an H200 (docs/performance/solve.md, "Setup"). Here the threads of a
// cell each own a line of points along x: the points' values are computed on nq^(dim-1) lines
// at once, and the sum factorizations run direction by direction through shared memory, a
// phase per direction. The work items of a phase (lines or node columns) are dealt to the
// cell's threads round robin, so any block shape computes the same sums.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/cell_grid.h>
#include <kernels/problem/function_kernels.h>
#include <kernels/runtime/runner.h>

namespace tpmg
{
  namespace problem_kernels
  {
    /// The block structure both kernels share: `cells_per_block` cells of threads_per_cell
    /// threads (block (threads_per_cell, cells_per_block)), each cell with `per_cell` doubles of
    /// shared memory in two buffers X and Y that the phases write in turn.
    template <int dim, int k, int nq, int x_doubles, int y_doubles>
    struct CellBlock
    {
      static constexpr int         n                     = k + 1;
      static constexpr int         nz                    = dim == 3 ? n : 1;
      static constexpr int         nqz                   = dim == 3 ? nq : 1;
      static constexpr int         threads_per_cell      = dim == 3 ? nq * nq : nq;
      static constexpr int         cells_per_block       = threads_per_cell >= 64 ? 1 : 64 / threads_per_cell;
      static constexpr int         max_threads_per_block = threads_per_cell * cells_per_block;
      static constexpr int         per_cell              = x_doubles + y_doubles;
      static constexpr std::size_t shared_bytes          = std::size_t(per_cell) * cells_per_block * sizeof(double);
      struct Registers
      {};

      LevelMesh mesh;
      CellGrid  grid; ///< the level's cells (launch_cells: a colour of them on the CPU)
      index_t   count = 0;

      void set_mesh(const LevelMesh &m)
      {
        mesh  = m;
        grid  = CellGrid(m.cells, "cell integrals");
        count = m.cells[0] * m.cells[1] * m.cells[2];
      }

      LaunchShape shape() const
      {
        return cell_blocks(count, cells_per_block, Dim3{threads_per_cell, cells_per_block, 1}, shared_bytes);
      }

      /// The thread's cell (false past the last one: the thread only meets the barriers), its
      /// coordinates in the level and its buffers.
      template <class Shared>
      TPMG_HD bool cell(const KernelCtx &ctx, const Shared &shared, index_t (&c)[3], double *&X, double *&Y) const
      {
        const index_t i = index_t(ctx.linear_block()) * cells_per_block + ctx.thread.y;
        if (i >= count)
          return false;
        unsigned cc[3];
        grid.coordinates(unsigned(i), cc);
        for (int d = 0; d < 3; ++d)
          c[d] = index_t(cc[d]);
        X = shared.template array<double>(std::size_t(ctx.thread.y) * per_cell * sizeof(double));
        Y = X + x_doubles;
        return true;
      }

      /// Calls f(a, b) for the items (a, b) ∈ [0, na) × [0, nb) that fall to thread t of a cell.
      template <class F>
      static TPMG_HD TPMG_FORCEINLINE void items(unsigned t, int na, int nb, F &&f)
      {
        TPMG_NO_UNROLL
        for (int w = int(t); w < na * nb; w += threads_per_cell)
          f(w % na, w / na);
      }

      /// The last phase of both kernels: out_i += sign Σ_qz (B_z(qz, iz) TB[qz] + D_z(qz, iz) TD[qz])
      /// at the cell's nodes (ix, iy, iz) off the Dirichlet faces, TB and TD the planes tested in x
      /// and y (nqz × n × n, x fastest; TD null: no D_z term).
      template <class Rule>
      TPMG_HD void add_tested_in_z(unsigned t, const index_t (&c)[3], const Rule &rule, const double *TB,
                                   const double *TD, double sign, double *out) const
      {
        items(t, n, n, [&](int ix, int iy) {
          for (int iz = 0; iz < nz; ++iz)
            {
              double s = 0;
              for (int qz = 0; qz < nqz; ++qz)
                {
                  const int l = (qz * n + iy) * n + ix;
                  s += rule.Bz(qz, iz) * TB[l] + (TD ? rule.Dz(qz, iz) * TD[l] : 0.0);
                }
              const index_t g = interior_node(mesh, dim, c, k, ix, iy, iz);
              if (g >= 0)
                exclusive_add(out + g, sign * s);
            }
        });
      }
    };

    /// b_i += ∫_K f φ_i over a level's cells, at interior nodes, with nq Gauss points per direction.
    /// Buffers: Y the x-tested lines T1[qz][qy][ix], X those tested in y too, T2[qz][iy][ix].
    template <int dim, int k, int nq>
    struct IntegrateFunction
      : CellBlock<dim, k, nq, (dim == 3 ? nq : 1) * (k + 1) * (k + 1), (dim == 3 ? nq : 1) * nq *(k + 1)>
    {
      using Base = CellBlock<dim, k, nq, (dim == 3 ? nq : 1) * (k + 1) * (k + 1), (dim == 3 ? nq : 1) * nq *(k + 1)>;
      using Base::n;
      using Base::nqz;
      using Base::nz;
      using Rule                    = CellRule<dim, k + 1, nq>;
      static constexpr int n_phases = 3;
      ExpressionProgram    f;
      Rule                 rule;
      double              *b = nullptr;

      template <int phase, class Shared>
      TPMG_HD void run(const KernelCtx &ctx, Shared &shared, typename Base::Registers &) const
      {
        index_t c[3];
        double *X, *Y;
        if (!this->cell(ctx, shared, c, X, Y))
          return;
        const unsigned t = ctx.thread.x;
        if constexpr (phase == 0) // the points of line (qy, qz), tested in x
          {
            double v[1 << dim][3];
            this->mesh.template cell_vertices<dim>(c, v);
            this->items(t, nq, nqz, [&](int qy, int qz) {
              double r[n] = {};
              for (int qx = 0; qx < nq; ++qx)
                {
                  double xi[3], x[3], inv[3][3];
                  rule.point(qx, qy, qz, xi);
                  const double val =
                    rule.weight(qx, qy, qz) * cell_map<dim>(this->mesh, c, v, xi, x, inv) * f(x[0], x[1], x[2]);
                  for (int ix = 0; ix < n; ++ix)
                    r[ix] += rule.B(qx, ix) * val;
                }
              for (int ix = 0; ix < n; ++ix)
                Y[(qz * nq + qy) * n + ix] = r[ix];
            });
          }
        else if constexpr (phase == 1) // tested in y
          this->items(t, n, nqz, [&](int ix, int qz) {
            for (int iy = 0; iy < n; ++iy)
              {
                double s = 0;
                for (int qy = 0; qy < nq; ++qy)
                  s += rule.B(qy, iy) * Y[(qz * nq + qy) * n + ix];
                X[(qz * n + iy) * n + ix] = s;
              }
          });
        else // tested in z, added to b
          this->add_tested_in_z(t, c, rule, X, nullptr, 1.0, b);
      }
    };

    /// SubtractLifting's buffers per cell, in doubles (x, y: CellBlock's X and Y).
    template <int dim, int k, int nq>
    struct LiftingBuffers
    {
      static constexpr int n = k + 1, nqz = dim == 3 ? nq : 1, nz = dim == 3 ? n : 1;
      static constexpr int lines = 3 * nqz * nq * n; ///< V1..V3, or RA..RC
      static constexpr int x     = cmax(cmax(nz * n * n, lines), 2 * nqz * n * n);
      static constexpr int y     = cmax(2 * nqz * n * n, lines);
    };

    /// b_i -= a_K(g_h, φ_i) at the interior nodes of the level's cells that touch the boundary,
    /// with the quadrature of the level operator (Gauss k+2 for cartesian and bp3, the
    /// Gauss–Lobatto nodes for bp5; times the coefficient a(x) where there is one, plus the
    /// reaction term c(x)), so that b - A g_h is what the operator sees: the lifting of the
    /// Dirichlet data g_h (boundary values only; the other cells return at once).
    ///
    /// Phases, each through shared memory (X and Y in turn): the cell's values G (n^dim); G
    /// contracted in z with B and D (UB, UD: nqz × n × n); then in y (V1 = B_y UB, V2 = D_y UB,
    /// V3 = B_y UD: nqz × nq × n); per line of points along x the value and reference gradient,
    /// the flux F = a w|J| J^-1 J^-T ∇̂u and m = c w|J| u, tested in x (RA = D_x F_0 + B_x m,
    /// RB = B_x F_1, RC = B_x F_2); tested in y (accB = B_y RA + D_y RB, accD = B_y RC); tested in
    /// z (B_z accB + D_z accD) and subtracted from b.
    template <int dim, int k, int nq>
    struct SubtractLifting : CellBlock<dim, k, nq, LiftingBuffers<dim, k, nq>::x, LiftingBuffers<dim, k, nq>::y>
    {
      using Base = CellBlock<dim, k, nq, LiftingBuffers<dim, k, nq>::x, LiftingBuffers<dim, k, nq>::y>;
      using Base::n;
      using Base::nqz;
      using Base::nz;
      using Rule                    = CellRule<dim, k + 1, nq>;
      static constexpr int n_phases = 6;
      static constexpr int plane    = nqz * n * n;  ///< UB or accB; UD, accD follow
      static constexpr int line_set = nqz * nq * n; ///< V1 or RA; V2, V3 or RB, RC follow
      Rule                 rule;
      const double        *g = nullptr;
      double              *b = nullptr;
      ExpressionProgram    coefficient; ///< a(x) of −∇·(a ∇u), where has_coefficient
      bool                 has_coefficient = false;
      ExpressionProgram    reaction; ///< c(x) of + c u, where has_reaction
      bool                 has_reaction = false;

      template <int phase, class Shared>
      TPMG_HD void run(const KernelCtx &ctx, Shared &shared, typename Base::Registers &) const
      {
        index_t c[3];
        double *X, *Y;
        if (!this->cell(ctx, shared, c, X, Y) || !this->mesh.template touches_boundary<dim>(c))
          return;
        const unsigned t     = ctx.thread.x;
        const index_t  c0[3] = {c[0] * k, c[1] * k, c[2] * k};
        if constexpr (phase == 0) // G, z columns
          this->items(t, n, n, [&](int ix, int iy) {
            for (int iz = 0; iz < nz; ++iz)
              X[(iz * n + iy) * n + ix] = g[cell_node(this->mesh.nodes, dim, c0, ix, iy, iz, false)];
          });
        else if constexpr (phase == 1) // UB, UD
          this->items(t, n, n, [&](int ix, int iy) {
            for (int qz = 0; qz < nqz; ++qz)
              {
                double sb = 0, sd = 0;
                for (int iz = 0; iz < nz; ++iz)
                  {
                    sb += rule.Bz(qz, iz) * X[(iz * n + iy) * n + ix];
                    sd += rule.Dz(qz, iz) * X[(iz * n + iy) * n + ix];
                  }
                Y[(qz * n + iy) * n + ix]         = sb;
                Y[plane + (qz * n + iy) * n + ix] = sd;
              }
          });
        else if constexpr (phase == 2) // V1, V2, V3
          this->items(t, n, nqz, [&](int ix, int qz) {
            for (int qy = 0; qy < nq; ++qy)
              {
                double v1 = 0, v2 = 0, v3 = 0;
                for (int iy = 0; iy < n; ++iy)
                  {
                    const double ub = Y[(qz * n + iy) * n + ix], ud = Y[plane + (qz * n + iy) * n + ix];
                    v1 += rule.B(qy, iy) * ub;
                    v2 += rule.D(qy, iy) * ub;
                    v3 += rule.B(qy, iy) * ud;
                  }
                const int l         = (qz * nq + qy) * n + ix;
                X[l]                = v1;
                X[line_set + l]     = v2;
                X[2 * line_set + l] = v3;
              }
          });
        else if constexpr (phase == 3) // the points of line (qy, qz), tested in x
          {
            double v[1 << dim][3];
            this->mesh.template cell_vertices<dim>(c, v);
            this->items(t, nq, nqz, [&](int qy, int qz) { point_line(c, v, qy, qz, X, Y); });
          }
        else if constexpr (phase == 4) // accB, accD
          this->items(t, n, nqz, [&](int ix, int qz) {
            for (int iy = 0; iy < n; ++iy)
              {
                double sb = 0, sd = 0;
                for (int qy = 0; qy < nq; ++qy)
                  {
                    const int l = (qz * nq + qy) * n + ix;
                    sb += rule.B(qy, iy) * Y[l] + rule.D(qy, iy) * Y[line_set + l];
                    sd += rule.B(qy, iy) * Y[2 * line_set + l];
                  }
                X[(qz * n + iy) * n + ix]         = sb;
                X[plane + (qz * n + iy) * n + ix] = sd;
              }
          });
        else // tested in z, subtracted from b
          this->add_tested_in_z(t, c, rule, X, X + plane, -1.0, b);
      }

      /// Phase 3 for one line: V1..V3 of the line from `in`, RA..RC to `out`.
      TPMG_HD void point_line(const index_t (&c)[3], const double (&v)[1 << dim][3], int qy, int qz, const double *in,
                              double *out) const
      {
        const int l0    = (qz * nq + qy) * n;
        double    r0[n] = {}, r1[n] = {}, r2[n] = {}, r3[n] = {};
        TPMG_NO_UNROLL
        for (int qx = 0; qx < nq; ++qx)
          {
            double val = 0, gr[3] = {0, 0, 0}; // value and reference gradient
            for (int ix = 0; ix < n; ++ix)
              {
                const double v1 = in[l0 + ix];
                val += rule.B(qx, ix) * v1;
                gr[0] += rule.D(qx, ix) * v1;
                gr[1] += rule.B(qx, ix) * in[line_set + l0 + ix];
                gr[2] += rule.B(qx, ix) * in[2 * line_set + l0 + ix];
              }
            double xi[3], x[3], inv[3][3];
            rule.point(qx, qy, qz, xi);
            const double wdet  = rule.weight(qx, qy, qz) * cell_map<dim>(this->mesh, c, v, xi, x, inv);
            const double a_w   = has_coefficient ? wdet * coefficient(x[0], x[1], x[2]) : wdet;
            double       gp[3] = {0, 0, 0}; // J^-T ∇̂u
            for (int r = 0; r < dim; ++r)
              for (int d = 0; d < dim; ++d)
                gp[r] += inv[d][r] * gr[d];
            double F[3] = {0, 0, 0};
            for (int d = 0; d < dim; ++d)
              for (int r = 0; r < dim; ++r)
                F[d] += a_w * inv[d][r] * gp[r];
            const double m = has_reaction ? wdet * reaction(x[0], x[1], x[2]) * val : 0.0;
            for (int ix = 0; ix < n; ++ix)
              {
                r0[ix] += rule.D(qx, ix) * F[0];
                r1[ix] += rule.B(qx, ix) * F[1];
                r2[ix] += rule.B(qx, ix) * F[2];
                r3[ix] += rule.B(qx, ix) * m;
              }
          }
        for (int ix = 0; ix < n; ++ix)
          {
            out[l0 + ix]                = r0[ix] + r3[ix];
            out[line_set + l0 + ix]     = r1[ix];
            out[2 * line_set + l0 + ix] = r2[ix];
          }
      }
    };
  } // namespace problem_kernels
} // namespace tpmg
