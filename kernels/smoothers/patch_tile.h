// Vertex-patch smoother for k = 1 with shared loads ("tile" kernel, docs/kernels.md, "Tile kernel").
//
// For k = 1 a patch (the 2^d cells around a vertex) has a single interior DoF, the vertex,
// and 3^d nodes. Loaded patch by patch, every node of a color's patches is read up to 2^d
// times (neighbouring patches of one color share their boundary layers) and each load
// feeds one FMA. Here a block owns a tile of T_0 × T_1 (× T_2) patches of one color; it
// loads the (2T_0+1) × (2T_1+1) (× (2T_2+1)) nodes they cover once, coalesced along x,
// and one thread per patch then computes the local residual with the 3^d-point stencil of
// the patch matrix row, c_x A⊗M⊗M + c_y M⊗A⊗M + c_z M⊗M⊗A (+ s M⊗M⊗M with a reaction term;
// constants), and the local solve, which for one DoF is the division by the diagonal entry (what
// fast diagonalization gives exactly). `boundary`: the stencil skips the centre and x is assigned.
#pragma once

#include <kernels/operators/laplace_stencil.h>
#include <kernels/smoothers/patch_common.h>

#include <tpmg/option_enums.h>

namespace tpmg
{
  template <int dim, typename Number>
  struct TileStencil
  {
    Number w[dim == 3 ? 27 : 9]; ///< patch matrix row of the vertex, lexicographic offsets -1..1
    Number inv_diag;
    Number row_sum; ///< Σ w: 0 for the Laplacian, s Π m with a reaction term
  };

  template <int dim, typename Number, bool reduced>
  struct PatchTileKernel
  {
    static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
    /// patches per block and direction (x fastest); 3D 8×8×4, 2D 16×16
    static constexpr int T0 = dim == 3 ? 8 : 16, T1 = dim == 3 ? 8 : 16, T2 = dim == 3 ? 4 : 1;
    static constexpr int N0 = 2 * T0 + 1, N1 = 2 * T1 + 1, N2 = dim == 3 ? 2 * T2 + 1 : 1;
    static constexpr int tile_nodes            = N0 * N1 * N2;
    static constexpr int n_phases              = 2;
    static constexpr int max_threads_per_block = T0 * T1 * T2;

    struct Registers
    {};

    PatchColorGeometry geo;
    Number            *x;
    const Number      *b;
    using Constants = TileStencil<dim, Number>;
    Constants                constants;
    TPMG_HD const Constants &C() const { return tpmg::constants(*this); }

    /// patches per tile and direction
    static constexpr TPMG_HD int extent(int d) { return d == 0 ? T0 : d == 1 ? T1 : T2; }
    /// tiles per direction
    TPMG_HD index_t tiles(int d) const { return (geo.count[d] + extent(d) - 1) / extent(d); }

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned(tiles(0) * tiles(1) * (dim == 3 ? tiles(2) : 1));
      s.block        = Dim3{unsigned(T0), unsigned(T1), unsigned(T2)};
      s.shared_bytes = std::size_t(tile_nodes) * sizeof(Number);
      return s;
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto          X  = sh.template array<Number>(0);
      const index_t bx = index_t(ctx.block.x) % tiles(0);
      const index_t by = (index_t(ctx.block.x) / tiles(0)) % tiles(1);
      const index_t bz = dim == 3 ? index_t(ctx.block.x) / (tiles(0) * tiles(1)) : 0;
      // first patch of the tile per direction, and the node below it (vertex - 1, k = 1)
      const index_t p0[3] = {bx * T0, by * T1, bz * T2};
      index_t       n0[3];
      for (int d = 0; d < 3; ++d)
        n0[d] = d < dim ? geo.first_vertex[d] + 2 * p0[d] - 1 : 0;
      if constexpr (phase == 0)
        {
          // the tile's nodes, clipped to the mesh; consecutive threads read consecutive x
          for (unsigned t = ctx.linear_thread(); t < unsigned(tile_nodes); t += ctx.block_dim.size())
            {
              const int     i = int(t % N0), j = int((t / N0) % N1), l = int(t / (N0 * N1));
              const index_t g[3] = {n0[0] + i, n0[1] + j, n0[2] + l};
              if (g[0] < geo.nodes[0] && g[1] < geo.nodes[1] && (dim == 2 || g[2] < geo.nodes[2]))
                X[t] = x[g[0] + geo.nodes[0] * (g[1] + geo.nodes[1] * g[2])];
            }
        }
      else
        {
          const int tx = int(ctx.thread.x), ty = int(ctx.thread.y), tz = int(ctx.thread.z);
          if (p0[0] + tx >= geo.count[0] || p0[1] + ty >= geo.count[1] || (dim == 3 && p0[2] + tz >= geo.count[2]))
            return;
          // the vertex is node (2tx+1, 2ty+1, 2tz+1) of the tile
          const int c = (2 * tx + 1) + N0 * ((2 * ty + 1) + N1 * (dim == 3 ? 2 * tz + 1 : 0));
          // non-reduced: the stencil applied to x - x_c (the Laplacian's weights sum to zero), which
          // for a smooth x avoids the cancellation (fiber_stages.h, subtract_centre_value); a
          // reaction term's row sum gives back its part, row_sum x_c
          const Number xc = reduced ? Number(0) : Number(X[c]);
          Number       s  = 0;
          TPMG_UNROLL
          for (int o = 0; o < (dim == 3 ? 27 : 9); ++o)
            {
              const int ox = o % 3 - 1, oy = (o / 3) % 3 - 1, oz = dim == 3 ? o / 9 - 1 : 0;
              if (ox == 0 && oy == 0 && oz == 0)
                continue;
              s += C().w[o] * (X[c + ox + N0 * (oy + N1 * oz)] - xc);
            }
          const index_t g = (n0[0] + 2 * tx + 1) +
                            geo.nodes[0] * ((n0[1] + 2 * ty + 1) + geo.nodes[1] * (dim == 3 ? n0[2] + 2 * tz + 1 : 0));
          const Number r = b[g] - s - C().row_sum * xc;
          if constexpr (reduced)
            x[g] = r * C().inv_diag;
          else
            x[g] = X[c] + r * C().inv_diag;
        }
    }
  };
} // namespace tpmg
