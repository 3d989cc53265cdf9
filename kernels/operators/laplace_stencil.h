// The Cartesian Laplace operator for k = 1 as a 3^d-point stencil (docs/kernels.md, "Level operator kernels").
//
// For Q1 the cell-wise kernel (laplace_cartesian.h) does little arithmetic per node and is
// bound by its atomic scatter-add. A vertex row of c_x A⊗M⊗M + c_y M⊗A⊗M + c_z M⊗M⊗A on a
// uniform Cartesian level is the same 27 (2D: 9) numbers everywhere, so here a block loads a
// tile of nodes with a one-node halo into shared memory once (boundary nodes read as zero,
// like the constrained cell kernel) and each thread writes a short column of outputs along
// the last direction: no atomics, no zeroing of dst, one write per node, boundary rows copied.
#pragma once

#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>


namespace tpmg
{
  template <int dim, typename Number>
  struct StencilWeights
  {
    Number w[dim == 3 ? 27 : 9]; ///< lexicographic offsets -1..1, x fastest
  };

  template <int dim, typename Number>
  struct LaplaceStencilKernel
  {
    static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
    /// outputs per thread along the last direction; threads per block and direction
    static constexpr int C  = 4;
    static constexpr int B0 = 32, B1 = dim == 3 ? 4 : 8, B2 = dim == 3 ? 2 : 1;
    /// nodes a block writes per direction, and its tile with the halo
    static constexpr TPMG_HD int extent(int d)
    {
      return d == 0 ? B0 : d == 1 ? (dim == 3 ? B1 : B1 * C) : (dim == 3 ? B2 * C : 1);
    }
    static constexpr int N0 = extent(0) + 2, N1 = extent(1) + 2, N2 = dim == 3 ? extent(2) + 2 : 1;
    static constexpr int tile_nodes            = N0 * N1 * N2;
    static constexpr int n_phases              = 2;
    static constexpr int max_threads_per_block = B0 * B1 * B2;

    struct Registers
    {};

    const Number *src;
    Number       *dst;
    index_t       nodes[3];
    using Constants = StencilWeights<dim, Number>;
    Constants                constants;
    TPMG_HD const Constants &W() const { return tpmg::constants(*this); }

    TPMG_HD index_t tiles(int d) const { return (nodes[d] + extent(d) - 1) / extent(d); }

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned(tiles(0) * tiles(1) * (dim == 3 ? tiles(2) : 1));
      s.block        = Dim3{unsigned(B0), unsigned(B1), unsigned(B2)};
      s.shared_bytes = std::size_t(tile_nodes) * sizeof(Number);
      return s;
    }

    TPMG_HD bool on_boundary(const index_t *g) const
    {
      for (int d = 0; d < dim; ++d)
        if (g[d] == 0 || g[d] == nodes[d] - 1)
          return true;
      return false;
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto          X    = sh.template array<Number>(0);
      const index_t b    = index_t(ctx.block.x);
      const index_t o[3] = {(b % tiles(0)) * extent(0), ((b / tiles(0)) % tiles(1)) * extent(1),
                            dim == 3 ? (b / (tiles(0) * tiles(1))) * extent(2) : 0};
      if constexpr (phase == 0)
        {
          // tile nodes o - 1 .. o + E; outside the mesh or on its boundary: zero
          for (unsigned t = ctx.linear_thread(); t < unsigned(tile_nodes); t += ctx.block_dim.size())
            {
              const index_t g[3]   = {o[0] - 1 + index_t(t % N0), o[1] - 1 + index_t((t / N0) % N1),
                                    dim == 3 ? o[2] - 1 + index_t(t / (N0 * N1)) : 0};
              bool          inside = true;
              for (int d = 0; d < dim; ++d)
                inside = inside && g[d] > 0 && g[d] < nodes[d] - 1;
              X[t] = inside ? src[g[0] + nodes[0] * (g[1] + nodes[1] * g[2])] : Number(0);
            }
        }
      else
        {
          const int tx = int(ctx.thread.x), ty = int(ctx.thread.y), tz = int(ctx.thread.z);
          TPMG_UNROLL
          for (int m = 0; m < C; ++m)
            {
              // local position in the block's output box
              const int     l[3] = {tx, dim == 3 ? ty : ty * C + m, dim == 3 ? tz * C + m : 0};
              const index_t g[3] = {o[0] + l[0], o[1] + l[1], o[2] + l[2]};
              if (g[0] >= nodes[0] || g[1] >= nodes[1] || (dim == 3 && g[2] >= nodes[2]))
                continue;
              const index_t gi = g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
              if (on_boundary(g))
                {
                  dst[gi] = src[gi];
                  continue;
                }
              const int c = (l[0] + 1) + N0 * ((l[1] + 1) + N1 * (dim == 3 ? l[2] + 1 : 0));
              Number    s = 0;
              TPMG_UNROLL
              for (int q = 0; q < (dim == 3 ? 27 : 9); ++q)
                s += W().w[q] * X[c + (q % 3 - 1) + N0 * ((q / 3) % 3 - 1 + (dim == 3 ? N1 * (q / 9 - 1) : 0))];
              dst[gi] = s;
            }
        }
    }
  };
} // namespace tpmg
