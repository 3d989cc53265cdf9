// The 2D phases of the bake-off kernels (BPOperatorKernel::run_2d, kernels/operators/bp_operator.h):
// one thread per x column of a cell, the y column in registers, the x contractions point by
// point through shared memory with the B and D copies that phase 0 places there.
#pragma once

#include <kernels/operators/bp_operator.h>

namespace tpmg
{
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo, bool reaction_term>
  template <int phase, class Shared>
  TPMG_HD void BPOperatorKernel<dim, k, Number, kind, geo, reaction_term>::run_2d(const KernelCtx &ctx, Shared &sh,
                                                                                  Registers &reg) const
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
    auto          at    = [](int x, int y, int) { return Layout::Cell::at(x, y); };
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
    else
      from_points_2d<phase>(tx, cell, c0, S1, S2, S3, Bs, Ds, reg);
  }

  /// Phases 2-4 of run_2d: the flux and Dᵀ along y (gradient), Dᵀ along x and Bᵀ along y, Bᵀ
  /// along x and the scatter.
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo, bool reaction_term>
  template <int phase, class Array>
  TPMG_HD TPMG_FORCEINLINE void BPOperatorKernel<dim, k, Number, kind, geo, reaction_term>::from_points_2d(
    int tx, index_t cell, const index_t (&c0)[3], Array &S1, Array &S2, Array &S3, Array &Bs, Array &Ds,
    Registers &reg) const
  {
    auto    B  = [&](int q, int i) -> Number { return Bs[q * sd + i]; };
    auto    D  = [&](int q, int j) -> Number { return Ds[q * sd + j]; };
    auto    at = [](int x, int y, int) { return Layout::Cell::at(x, y); };
    Number *a  = reg.a;
    if constexpr (phase == 2)
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
            add_reaction(
              cell, reg.cc, tx, 0, [&](int qy) { return S2[at(tx, qy, 0)]; }, reg.a);
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
} // namespace tpmg
