// Dense direct coarse solve: x_I = A_II^{-1} b_I with the precomputed inverse. Unknown i of a
// level (the nodes off its Dirichlet faces) maps to its global index arithmetically
// (CoarseUnknowns); the solve gathers b_I into a contiguous vector (GatherCoarseUnknowns), then
// multiplies by the inverse a warp per row (DenseCoarseRows).
#pragma once

#include <kernels/runtime/runner.h>

#include <tpmg/config.h>
#include <tpmg/numbering.h>

namespace tpmg
{
  /// The unknowns of a level: count[d] nodes from first[d] per direction (1 and nodes − 2
  /// between Dirichlet faces; 0 and 1 beyond the dimension), n in all, numbered x fastest.
  struct CoarseUnknowns
  {
    index_t n;
    index_t nodes[3]; ///< level nodes per direction
    index_t first[3], count[3];

    /// The unknowns of a level of `nodes` per direction whose Dirichlet faces are `constrained`.
    static CoarseUnknowns on(const index_t (&nodes)[3], int dim, unsigned constrained)
    {
      CoarseUnknowns s{};
      for (int d = 0; d < 3; ++d)
        {
          s.nodes[d] = nodes[d];
          s.first[d] = d < dim && (constrained >> (2 * d) & 1u) ? 1 : 0;
          s.count[d] = d < dim ? nodes[d] - s.first[d] - ((constrained >> (2 * d + 1) & 1u) ? 1 : 0) : 1;
        }
      s.n = s.count[0] * s.count[1] * s.count[2];
      return s;
    }

    TPMG_HD index_t global(index_t i) const
    {
      const index_t i0 = i % count[0], r = i / count[0];
      const index_t i1 = r % count[1], i2 = r / count[1];
      return (first[0] + i0) + nodes[0] * ((first[1] + i1) + nodes[1] * (first[2] + i2));
    }
  };

  /// b_I in the unknowns' order: the rows below then read one contiguous vector, with no index
  /// division per term.
  template <typename Number>
  struct GatherCoarseUnknowns
  {
    CoarseUnknowns unknowns;
    const Number  *b;
    Number        *b_unknowns;
    TPMG_HD void   operator()(index_t i) const { b_unknowns[i] = b[unknowns.global(i)]; }
  };

  /// x_I = A_II^{-1} b_I, the inverse row-major, a warp per row: lane l sums the row's terms
  /// j ≡ l (mod 32), so that a warp reads one 128-byte line of its row per step and the blocks
  /// of every row together stream the inverse (a thread per row leaves n / 32 warps on the
  /// device, too few to keep DRAM busy: docs/performance/solve.md, "Dense coarse solve"); the
  /// second phase adds the 32 partial sums in lane order, the same order on both runners.
  template <typename Number>
  struct DenseCoarseRows
  {
    static constexpr int lanes = 32, rows_per_block = 8;
    static constexpr int n_phases              = 2;
    static constexpr int max_threads_per_block = lanes * rows_per_block;

    struct Registers
    {};

    CoarseUnknowns unknowns;
    const Number  *inverse;    ///< n × n, row-major
    const Number  *b_unknowns; ///< b_I (GatherCoarseUnknowns)
    Number        *x;

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((unknowns.n + rows_per_block - 1) / rows_per_block);
      s.block        = Dim3{unsigned(lanes), unsigned(rows_per_block), 1};
      s.shared_bytes = std::size_t(max_threads_per_block) * sizeof(Number);
      return s;
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      Number *const  partial = sh.template array<Number>(0) + ctx.thread.y * lanes;
      const index_t  n       = unknowns.n;
      const index_t  row     = index_t(ctx.block.x) * rows_per_block + index_t(ctx.thread.y);
      const unsigned lane    = ctx.thread.x;
      if constexpr (phase == 0)
        {
          Number s = 0;
          if (row < n)
            for (index_t j = lane; j < n; j += lanes)
              s += inverse[row * n + j] * b_unknowns[j];
          partial[lane] = s;
        }
      else if (lane == 0 && row < n)
        {
          Number s = 0;
          for (int l = 0; l < lanes; ++l)
            s += partial[l];
          x[unknowns.global(row)] = s;
        }
    }
  };
} // namespace tpmg
