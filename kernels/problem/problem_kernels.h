// Kernels of the model problem (include/tpmg/problem.h): the tensor-product fill of
// right-hand sides and interpolants, and the error norms against the manufactured solution.
#pragma once

#include <kernels/common/tensor.h>
#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>

#include <cmath>

namespace tpmg
{
  namespace problem_kernels
  {
    /// out[i] = scale · f0[i0] · f1[i1] · f2[i2] for the lexicographic node i = (i0, i1, i2).
    /// In 2D f2 points to the single value 1 (n_nodes(2) = 1). Boundary nodes are zero because
    /// the 1D factors are zero at their end points.
    template <typename Number>
    struct TensorProductFill
    {
      Number       *out;
      const double *f0, *f1, *f2;
      index_t       n0, n1;
      double        scale;
      TPMG_HD void  operator()(index_t i) const
      {
        const index_t i0 = i % n0, r = i / n0, i1 = r % n1, i2 = r / n1;
        out[i] = Number(scale * f0[i0] * f1[i1] * f2[i2]);
      }
    };

    /// p[i], for reduce_sum over per-block partial sums.
    struct ReadEntry
    {
      const double  *p;
      TPMG_HD double operator()(index_t i) const { return p[i]; }
    };

    /// Squared L2 and H1-seminorm errors of a Q_k function u_h against
    /// u = Π_d sin(π (x_d - a_d)/L_d), cell by cell with an nq-point Gauss rule per direction.
    ///
    /// Threads: one per quadrature point of the last-but-one layer, i.e. (qx, qy) in 3D and qx
    /// in 2D, several cells per block. Sum factorization from the (k+1)^dim nodal values to the
    /// nq^dim points, values and the dim reference derivatives:
    ///   3D  phase 0: gather a z-column of nodes into registers, contract z     -> S_val, S_dz
    ///       phase 1: contract y (threads (x, qy))                               -> T_val, T_dy, T_dz
    ///       phase 2: contract x (threads (qx, qy)), loop over qz, evaluate u, ∇u, accumulate
    ///       phase 3: block sum of the per-thread partial sums -> partial[block], partial[stride+block]
    ///   2D  phase 0: y-column, contract y -> V_val, V_dy; phase 1: x and evaluation; phase 2: sum.
    /// All arithmetic in double.
    template <int dim, int k, int nq>
    struct ManufacturedErrorKernel
    {
      static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
      static constexpr int n                     = k + 1;
      static constexpr int threads_per_cell      = dim == 3 ? nq * nq : nq;
      static constexpr int cells_per_block       = cmax(1, 128 / threads_per_cell);
      static constexpr int max_threads_per_block = threads_per_cell * cells_per_block;
      static constexpr int n_phases              = dim + 1;

      struct Registers
      {};

      const double              *src;            ///< u_h, all nodes of the level, lexicographic
      double                    *partial;        ///< [2 * partial_stride]: squared L2, then squared H1 sums
      index_t                    partial_stride; ///< blocks of this launch
      index_t                    cell_offset;    ///< first cell of this launch (lexicographic in the box)
      index_t                    n_cells;        ///< cells of this launch
      index_t                    box_begin[3];   ///< first global cell of the box per direction
      index_t                    box_cells[3];   ///< cells of the box per direction
      index_t                    nodes[3];       ///< global nodes per direction
      double                     inv_h[3];       ///< 1 / h_d
      index_t                    cell_shift[3];  ///< the box's first cell in the whole level (a rank's part)
      double                     arg_scale[3];   ///< π / cells_d: the sine's argument is arg_scale_d (cell_d + ξ)
      double                     freq[3];        ///< π / L_d
      double                     cell_volume;    ///< Π_d h_d
      SmallMatrix<double, nq, n> values, derivatives;     ///< φ_i(ξ_q), φ_i'(ξ_q) on [0,1]
      double                     points[nq], weights[nq]; ///< Gauss rule on [0,1]

      static constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
      // per-cell buffer sizes (doubles)
      static constexpr int         s_size       = dim == 3 ? n * n * nq : n * nq; // after the first contraction
      static constexpr int         t_size       = dim == 3 ? n * nq * nq : 0;     // after the second (3D)
      static constexpr std::size_t matrix_bytes = align16(std::size_t(nq) * n * sizeof(double));
      static constexpr std::size_t s_bytes      = align16(std::size_t(s_size) * cells_per_block * sizeof(double));
      static constexpr std::size_t t_bytes      = align16(std::size_t(t_size) * cells_per_block * sizeof(double));
      static constexpr std::size_t red_bytes    = align16(std::size_t(max_threads_per_block) * sizeof(double));
      static constexpr std::size_t off_values   = 0;
      static constexpr std::size_t off_derivs   = matrix_bytes;
      static constexpr std::size_t off_red      = 2 * matrix_bytes;        // two reduction arrays
      static constexpr std::size_t off_s        = off_red + 2 * red_bytes; // two S buffers
      static constexpr std::size_t off_t        = off_s + 2 * s_bytes;     // three T buffers (3D)
      static constexpr std::size_t shared_bytes = off_t + (dim == 3 ? 3 * t_bytes : 0);

      /// Launch shape for `blocks` blocks.
      static LaunchShape shape(index_t blocks)
      {
        LaunchShape s;
        s.grid.x       = unsigned(blocks);
        s.block        = dim == 3 ? Dim3{nq, nq, cells_per_block} : Dim3{nq, cells_per_block, 1};
        s.shared_bytes = shared_bytes;
        return s;
      }

      /// The squared L2 and H1-seminorm errors at the quadrature points (qx, qy, ·) (2D: (qx, ·)) of
      /// `cell`, weighted, added to l2 and h1: the x contraction of the values and derivatives in
      /// shared memory (Sv, Sd in 2D; Tv and its two derivative buffers in 3D), against the
      /// manufactured solution.
      TPMG_HD TPMG_FORCEINLINE void point_errors(const index_t (&cell)[3], int qx, int qy, const double *Bs,
                                                 const double *Ds, const double *Sv, const double *Sd, const double *Tv,
                                                 double &l2, double &h1) const
      {
        // exact solution factors in x (and y in 3D), fixed for this thread
        const double ax = arg_scale[0] * (double(cell_shift[0] + cell[0]) + points[qx]);
        const double sx = ::sin(ax), cx = ::cos(ax);
        if constexpr (dim == 3)
          {
            const double  ay = arg_scale[1] * (double(cell_shift[1] + cell[1]) + points[qy]);
            const double  sy = ::sin(ay), cy = ::cos(ay);
            const double *Tdy = Tv + t_bytes / sizeof(double);
            const double *Tdz = Tv + 2 * t_bytes / sizeof(double);
            TPMG_UNROLL
            for (int qz = 0; qz < nq; ++qz)
              {
                double v = 0, gx = 0, gy = 0, gz = 0;
                TPMG_UNROLL
                for (int x = 0; x < n; ++x)
                  {
                    const int    i = x + n * (qy + nq * qz);
                    const double b = Bs[qx * n + x];
                    const double s = Tv[i];
                    v += b * s;
                    gx += Ds[qx * n + x] * s;
                    gy += b * Tdy[i];
                    gz += b * Tdz[i];
                  }
                const double az = arg_scale[2] * (double(cell_shift[2] + cell[2]) + points[qz]);
                const double sz = ::sin(az), cz = ::cos(az);
                const double ev  = sx * sy * sz - v;
                const double egx = freq[0] * cx * sy * sz - gx * inv_h[0];
                const double egy = freq[1] * sx * cy * sz - gy * inv_h[1];
                const double egz = freq[2] * sx * sy * cz - gz * inv_h[2];
                const double w   = weights[qx] * weights[qy] * weights[qz];
                l2 += w * ev * ev;
                h1 += w * (egx * egx + egy * egy + egz * egz);
              }
          }
        else
          {
            TPMG_UNROLL
            for (int q = 0; q < nq; ++q)
              {
                double v = 0, gx = 0, gy = 0;
                TPMG_UNROLL
                for (int x = 0; x < n; ++x)
                  {
                    const int    i = x + n * q;
                    const double b = Bs[qx * n + x];
                    const double s = Sv[i];
                    v += b * s;
                    gx += Ds[qx * n + x] * s;
                    gy += b * Sd[i];
                  }
                const double ay = arg_scale[1] * (double(cell_shift[1] + cell[1]) + points[q]);
                const double sy = ::sin(ay), cy = ::cos(ay);
                const double ev  = sx * sy - v;
                const double egx = freq[0] * cx * sy - gx * inv_h[0];
                const double egy = freq[1] * sx * cy - gy * inv_h[1];
                const double w   = weights[qx] * weights[q];
                l2 += w * ev * ev;
                h1 += w * (egx * egx + egy * egy);
              }
          }
      }

      template <int phase, class Shared>
      TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
      {
        double *Bs    = sh.template array<double>(off_values);
        double *Ds    = sh.template array<double>(off_derivs);
        double *RedL2 = sh.template array<double>(off_red);
        double *RedH1 = sh.template array<double>(off_red + red_bytes);

        const int     c     = dim == 3 ? int(ctx.thread.z) : int(ctx.thread.y);
        const index_t local = index_t(ctx.block.x) * cells_per_block + c;
        const bool    valid = local < n_cells;
        // global cell coordinates
        index_t cell[3] = {0, 0, 0};
        {
          const index_t i = cell_offset + local;
          cell[0]         = box_begin[0] + i % box_cells[0];
          cell[1]         = box_begin[1] + (i / box_cells[0]) % box_cells[1];
          cell[2]         = dim == 3 ? box_begin[2] + i / (box_cells[0] * box_cells[1]) : 0;
        }
        double *Sv = sh.template array<double>(off_s) + c * s_size;
        double *Sd = sh.template array<double>(off_s + s_bytes) + c * s_size;

        constexpr int last = n_phases - 1;
        if constexpr (phase == 0)
          {
            for (unsigned t = ctx.linear_thread(); t < unsigned(nq * n); t += ctx.block_dim.size())
              {
                Bs[t] = values.v[t];
                Ds[t] = derivatives.v[t];
              }
            // gather a column of nodes along the last direction, contract it in registers
            const int x = ctx.thread.x;
            const int y = dim == 3 ? int(ctx.thread.y) : 0;
            if (!valid || x >= n || y >= n)
              return;
            const index_t first = cell[0] * k + x + nodes[0] * (dim == 3 ? cell[1] * k + y : cell[1] * k);
            const index_t line  = dim == 3 ? nodes[0] * nodes[1] : nodes[0];
            const index_t base  = dim == 3 ? first + line * (cell[2] * k) : first;
            double        u[n];
            TPMG_UNROLL
            for (int z = 0; z < n; ++z)
              u[z] = src[base + line * z];
            contract_pair<nq>(values, derivatives, u, [&](int q, double a, double b) {
              const int i = dim == 3 ? x + n * (y + n * q) : x + n * q;
              Sv[i]       = a;
              Sd[i]       = b;
            });
          }
        else if constexpr (dim == 3 && phase == 1)
          {
            // y direction, threads (x, qy) with x < n
            const int x = ctx.thread.x, qy = ctx.thread.y;
            if (!valid || x >= n)
              return;
            double *Tv  = sh.template array<double>(off_t) + c * t_size;
            double *Tdy = sh.template array<double>(off_t + t_bytes) + c * t_size;
            double *Tdz = sh.template array<double>(off_t + 2 * t_bytes) + c * t_size;
            TPMG_UNROLL
            for (int qz = 0; qz < nq; ++qz)
              {
                double v, dy, dz;
                contract_row_pair<n>([&](int y) { return Bs[qy * n + y]; }, [&](int y) { return Ds[qy * n + y]; },
                                     [&](int y) { return Sv[x + n * (y + n * qz)]; },
                                     [&](int y) { return Sd[x + n * (y + n * qz)]; }, v, dy, dz);
                const int i = x + n * (qy + nq * qz);
                Tv[i]       = v;
                Tdy[i]      = dy;
                Tdz[i]      = dz;
              }
          }
        else if constexpr (phase == last - 1)
          {
            // x direction at the quadrature points, evaluation, per-thread sums
            const int t  = ctx.linear_thread();
            double    l2 = 0, h1 = 0;
            if (valid)
              point_errors(cell, int(ctx.thread.x), dim == 3 ? int(ctx.thread.y) : 0, Bs, Ds, Sv, Sd,
                           sh.template array<double>(off_t) + c * t_size, l2, h1);
            RedL2[t] = l2 * cell_volume;
            RedH1[t] = h1 * cell_volume;
          }
        else if constexpr (phase == last)
          {
            // block sums in a fixed order (deterministic): thread 0 the L2, thread 1 the H1 part
            const unsigned t = ctx.linear_thread();
            if (t < 2)
              {
                const double *r   = t == 0 ? RedL2 : RedH1;
                double        sum = 0;
                for (unsigned i = 0; i < ctx.block_dim.size(); ++i)
                  sum += r[i];
                partial[t * partial_stride + ctx.block.x] = sum;
              }
          }
      }
    };
  } // namespace problem_kernels
} // namespace tpmg
