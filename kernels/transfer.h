// Grid transfer between level ℓ-1 (coarse) and ℓ (fine), as a loop over coarse cells
// (DESIGN.md §4). Prolongation interpolates the coarse Q_k function at the fine nodes: on a
// coarse cell it is P⊗P(⊗P) with the 1D matrix P ((2k+1)×(k+1)); restriction is its
// transpose. Each fine node is owned by exactly one coarse cell (local index < 2k, or the
// cell is the last one in that direction), so prolongation adds without races and
// restriction counts every fine node once; restriction adds into coarse nodes atomically.
// Boundary nodes are skipped (they stay zero).
#pragma once

#include "atomic.h"
#include "cell_grid.h"
#include "runner.h"
#include "tensor.h"

#include <tpmg/mesh.h>

namespace tpmg
{
  template <int dim, int k, typename Number, bool restriction>
  struct TransferKernel
  {
    static constexpr int nf = 2 * k + 1, nc = k + 1;
    static constexpr int nzf = dim == 3 ? nf : 1, nzc = dim == 3 ? nc : 1;
    static constexpr int cells_per_block       = cmax(1, 128 / (nf * nf));
    static constexpr int max_threads_per_block = nf * nf * cells_per_block;
    static constexpr int n_phases              = dim + 1;
    static constexpr int cap                   = ipow<nf, dim>();

    struct Registers
    {
    };

    const Number *src; ///< coarse (prolongation) or fine (restriction) vector
    Number       *dst; ///< fine (prolongation, added to) or coarse (restriction, added to)
    index_t       coarse_cells[3];
    index_t       coarse_nodes[3];
    index_t       fine_nodes[3];
    index_t       n_coarse_cells;
    CellGrid      grid; ///< coarse cell coordinates from the cell index
    SmallMatrix<Number, nf, nc> P;

    static constexpr std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr std::size_t off_p   = 0;
    static constexpr std::size_t off_buf = a16(nf * nc * sizeof(Number));
    static constexpr std::size_t buf     = a16(std::size_t(cap) * cells_per_block * sizeof(Number));
    static constexpr std::size_t shared_bytes = off_buf + 2 * buf;

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((n_coarse_cells + cells_per_block - 1) / cells_per_block);
      s.block        = Dim3{nf, nf, cells_per_block};
      s.shared_bytes = shared_bytes;
      return s;
    }

    template <int e0, int e1>
    static TPMG_HD int idx(int i0, int i1, int i2)
    {
      return i0 + e0 * (i1 + e1 * i2);
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto Ps = sh.template array<Number>(off_p);
      if constexpr (phase == 0)
        for (unsigned t = ctx.linear_thread(); t < unsigned(nf * nc); t += ctx.block_dim.size())
          Ps[t] = P.v[t];
      const int     tx = ctx.thread.x, ty = ctx.thread.y, c = ctx.thread.z;
      const index_t cell = index_t(ctx.block.x) * cells_per_block + c;
      if (cell >= n_coarse_cells)
        return;
      unsigned c32[3];
      grid.coordinates(unsigned(cell), c32); // 32 bits, no division instruction (cell_grid.h)
      const index_t cc[3] = {c32[0], c32[1], c32[2]};
      auto X = sh.template array<Number>(off_buf + std::size_t(c) * cap * sizeof(Number));
      auto Y = sh.template array<Number>(off_buf + buf + std::size_t(c) * cap * sizeof(Number));
      auto Pm = [&](int i, int j) -> Number { return Ps[i * nc + j]; };

      // fine node (i, j, l) of this coarse cell: global index, or -1 if not owned or on the boundary
      auto fine = [&](int i, int j, int l) -> index_t {
        const int     loc[3] = {i, j, l};
        index_t       g[3]   = {0, 0, 0};
        for (int d = 0; d < dim; ++d)
          {
            if (loc[d] == 2 * k && cc[d] != coarse_cells[d] - 1)
              return -1;
            g[d] = 2 * k * cc[d] + loc[d];
            if (g[d] == 0 || g[d] == fine_nodes[d] - 1)
              return -1;
          }
        return g[0] + fine_nodes[0] * (g[1] + fine_nodes[1] * g[2]);
      };
      auto coarse = [&](int i, int j, int l) -> index_t {
        const int loc[3] = {i, j, l};
        index_t   g[3]   = {0, 0, 0};
        for (int d = 0; d < dim; ++d)
          {
            g[d] = k * cc[d] + loc[d];
            if (g[d] == 0 || g[d] == coarse_nodes[d] - 1)
              return -1;
          }
        return g[0] + coarse_nodes[0] * (g[1] + coarse_nodes[1] * g[2]);
      };

      if constexpr (!restriction)
        {
          // prolongation: load coarse (nc^d) | z | y | x + add  (2D: load | y | x + add)
          if constexpr (phase == 0)
            {
              if (tx < nc && ty < nc)
                for (int z = 0; z < nzc; ++z)
                  {
                    const index_t g = coarse(tx, ty, z);
                    X[idx<nc, nc>(tx, ty, z)] = g < 0 ? Number(0) : src[g];
                  }
            }
          else if constexpr (dim == 3 && phase == 1)
            {
              if (tx < nc && ty < nc)
                TPMG_UNROLL
                for (int z = 0; z < nf; ++z)
                  {
                    Number s = 0;
                    TPMG_UNROLL
                    for (int j = 0; j < nc; ++j)
                      s += Pm(z, j) * X[idx<nc, nc>(tx, ty, j)];
                    Y[idx<nc, nc>(tx, ty, z)] = s;
                  }
            }
          else if constexpr (phase == dim - 1)
            {
              // y: in (nc, nc, nzf) -> out (nc, nf, nzf)
              auto in = dim == 3 ? Y : X;
              auto out = dim == 3 ? X : Y;
              if (tx < nc)
                TPMG_UNROLL
                for (int z = 0; z < nzf; ++z)
                  {
                    Number s = 0;
                    TPMG_UNROLL
                    for (int j = 0; j < nc; ++j)
                      s += Pm(ty, j) * in[idx<nc, nc>(tx, j, z)];
                    out[idx<nc, nf>(tx, ty, z)] = s;
                  }
            }
          else
            {
              // x: in (nc, nf, nzf) -> fine (nf, nf, nzf), added to dst
              auto in = dim == 3 ? X : Y;
              TPMG_UNROLL
              for (int z = 0; z < nzf; ++z)
                {
                  Number s = 0;
                  TPMG_UNROLL
                  for (int j = 0; j < nc; ++j)
                    s += Pm(tx, j) * in[idx<nc, nf>(j, ty, z)];
                  const index_t g = fine(tx, ty, z);
                  if (g >= 0)
                    dst[g] += s;
                }
            }
        }
      else
        {
          // restriction: load owned fine (nf^d) | x | y | z + atomic add  (2D: load | x | y + add)
          if constexpr (phase == 0)
            {
              for (int z = 0; z < nzf; ++z)
                {
                  const index_t g = fine(tx, ty, z);
                  X[idx<nf, nf>(tx, ty, z)] = g < 0 ? Number(0) : src[g];
                }
            }
          else if constexpr (phase == 1)
            {
              // x: (nf, nf, nzf) -> (nc, nf, nzf)
              if (tx < nc)
                TPMG_UNROLL
                for (int z = 0; z < nzf; ++z)
                  {
                    Number s = 0;
                    TPMG_UNROLL
                    for (int i = 0; i < nf; ++i)
                      s += Pm(i, tx) * X[idx<nf, nf>(i, ty, z)];
                    Y[idx<nc, nf>(tx, ty, z)] = s;
                  }
            }
          else if constexpr (phase == 2)
            {
              // y: (nc, nf, nzf) -> (nc, nc, nzf); in 2D this is the last phase
              if (tx < nc && ty < nc)
                TPMG_UNROLL
                for (int z = 0; z < nzf; ++z)
                  {
                    Number s = 0;
                    TPMG_UNROLL
                    for (int i = 0; i < nf; ++i)
                      s += Pm(i, ty) * Y[idx<nc, nf>(tx, i, z)];
                    if constexpr (dim == 3)
                      X[idx<nc, nc>(tx, ty, z)] = s;
                    else
                      {
                        const index_t g = coarse(tx, ty, 0);
                        if (g >= 0)
                          atomic_add(dst + g, s);
                      }
                  }
            }
          else
            {
              // z: (nc, nc, nf) -> coarse (nc, nc, nc)
              if (tx < nc && ty < nc)
                TPMG_UNROLL
                for (int z = 0; z < nc; ++z)
                  {
                    Number s = 0;
                    TPMG_UNROLL
                    for (int i = 0; i < nf; ++i)
                      s += Pm(i, z) * X[idx<nc, nc>(tx, ty, i)];
                    const index_t g = coarse(tx, ty, z);
                    if (g >= 0)
                      atomic_add(dst + g, s);
                  }
            }
        }
    }
  };
} // namespace tpmg
