// Cell coordinates from a lexicographic cell index, in 32 bits with divisions by the grid's
// run-time sizes done as a multiply-high and a shift. A GPU integer division by a run-time value is
// a ~20-instruction sequence (64 bits: a call of ~70), which cell-loop kernels at low degree pay
// per thread and phase, next to a few dozen FMAs of real work (docs/performance/operator.md, "Cell
// coordinates without division").
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>

#include <cstdint>

namespace tpmg
{
  namespace internal
  {
    /// The host's errors of the grid builders below (src/base/cell_grid.cc: std::invalid_argument
    /// with the numbers), out of line so that the kernels need no strings.
    [[noreturn]] void fast_divisor_out_of_range(std::int64_t divisor);
    [[noreturn]] void cell_grid_too_large(const char *what, std::int64_t cells);
  } // namespace internal

  /// n / d for 0 ≤ n < 2^31 and a divisor d ≥ 1 fixed before the launch (Granlund–Montgomery):
  /// with l = ⌈log2 d⌉ and m = ⌈2^(31+l) / d⌉ (< 2^32 as d > 2^(l-1)), q = ⌊n m / 2^(31+l)⌋ =
  /// (umulhi(n, m) >> (l - 1)). Exact: n m / 2^(31+l) = n/d + n e / (d 2^(31+l)) with
  /// 0 ≤ e = m d - 2^(31+l) < d, and that excess is below n / 2^(31+l) < 2^-l ≤ 1/d, too little
  /// to reach the next integer. d = 1 is passed through.
  struct FastDivisor
  {
    unsigned d = 1, mul = 0, shift = 0;

    FastDivisor() = default;
    explicit FastDivisor(std::int64_t divisor)
    {
      if (divisor < 1 || divisor >= (std::int64_t(1) << 31))
        internal::fast_divisor_out_of_range(divisor);
      d = unsigned(divisor);
      if (d == 1)
        return;
      unsigned l = 0;
      while ((std::uint64_t(1) << l) < d)
        ++l;
      const std::uint64_t p = std::uint64_t(1) << (31 + l);
      mul                   = unsigned((p + d - 1) / d);
      shift                 = l - 1;
    }

    TPMG_HD TPMG_FORCEINLINE unsigned quotient(unsigned n) const
    {
#if TPMG_DEVICE_CODE
      const unsigned hi = __umulhi(n, mul);
#else
      const unsigned hi = unsigned((std::uint64_t(n) * mul) >> 32);
#endif
      return d == 1 ? n : hi >> shift;
    }
  };

  /// The coordinates of cell c of a grid of cells[0] × cells[1] (× cells[2]) cells, x fastest.
  /// Built on the host, which refuses grids of 2^31 cells or more (FastDivisor's range).
  ///
  /// A grid may enumerate a box of the whole grid's cells only (box(): a rank's cells next to
  /// the faces it shares, then the others, with the exchange between; distributed_operator.h),
  /// and on the CPU the cells of one colour only (colour(): the cells whose coordinate d has
  /// the parity of bit d of the colour; launch_cells in kernels/runtime/cell_launch.h).
  /// coordinates() and index() then give the cells' place in the whole grid. Device code never
  /// enumerates by colour and compiles no step.
  struct CellGrid
  {
    FastDivisor nx, ny;
    unsigned    whole[3]  = {1, 1, 1}; ///< cells per direction of the whole grid
    unsigned    extent[3] = {1, 1, 1}; ///< cells per direction the grid enumerates (step apart)
    unsigned    step = 1, first[3] = {0, 0, 0};
    bool        part = false; ///< whether it enumerates fewer cells than the whole grid

    CellGrid() = default;
    CellGrid(const index_t (&cells)[3], const char *what)
    {
      const index_t n = cells[0] * cells[1] * cells[2];
      if (n >= (index_t(1) << 31))
        internal::cell_grid_too_large(what, n);
      nx = FastDivisor(cells[0]);
      ny = FastDivisor(cells[1]);
      for (int d = 0; d < 3; ++d)
        whole[d] = extent[d] = unsigned(cells[d]);
    }

    /// The cells of `b` (within the enumerated box of this grid, which enumerates every step-1
    /// cell of it), and their number (`count`, possibly 0).
    CellGrid box(const CellBox &b, index_t &count) const
    {
      index_t sub[3];
      for (int d = 0; d < 3; ++d)
        sub[d] = b.end[d] > b.begin[d] ? b.end[d] - b.begin[d] : 0;
      count = sub[0] * sub[1] * sub[2];
      CellGrid g;
      if (count > 0)
        g = CellGrid(sub, "cell box");
      for (int d = 0; d < 3; ++d)
        {
          g.whole[d]  = whole[d];
          g.extent[d] = unsigned(sub[d]);
          g.first[d]  = first[d] + unsigned(b.begin[d]);
        }
      g.part = count < index_t(whole[0]) * whole[1] * whole[2];
      return g;
    }

    /// The cells of `colour` (bit d: the parity of coordinate d in the whole grid, d < dim) of
    /// the box this grid enumerates, and their number (`count`, possibly 0).
    CellGrid colour(int colour, int dim, index_t &count) const
    {
      index_t  sub[3];
      unsigned start[3];
      for (int d = 0; d < 3; ++d)
        {
          const unsigned f = d < dim ? ((unsigned(colour >> d) ^ first[d]) & 1u) : 0u; // the box's first of the colour
          start[d]         = first[d] + f;
          sub[d]           = d < dim ? (index_t(extent[d]) + 1 - f) / 2 : index_t(extent[d]);
        }
      count = sub[0] * sub[1] * sub[2];
      CellGrid g;
      if (count > 0)
        g = CellGrid(sub, "cell colour");
      for (int d = 0; d < 3; ++d)
        {
          g.whole[d] = whole[d];
          g.first[d] = start[d];
        }
      g.step = 2;
      g.part = true;
      return g;
    }

    TPMG_HD TPMG_FORCEINLINE void coordinates(unsigned c, unsigned (&cc)[3]) const
    {
      const unsigned q = nx.quotient(c), r = ny.quotient(q);
      cc[0] = c - q * nx.d;
      cc[1] = q - r * ny.d;
      cc[2] = r;
#if TPMG_DEVICE_CODE
      for (int d = 0; d < 3; ++d) // (a box; 0 for the whole grid)
        cc[d] += first[d];
#else
      for (int d = 0; d < 3; ++d)
        cc[d] = first[d] + step * cc[d];
#endif
    }

    /// The whole grid's lexicographic index of the cell the launch enumerates as c, at
    /// coordinates cc (c itself where the grid enumerates the whole grid).
    TPMG_HD TPMG_FORCEINLINE index_t index(index_t c, const unsigned (&cc)[3]) const
    {
      return part ? index_t(cc[0]) + index_t(whole[0]) * (index_t(cc[1]) + index_t(whole[1]) * index_t(cc[2])) : c;
    }
  };

  /// The nodes of one line of a level's lexicographic numbering (nodes[d] per direction)
  /// starting at global coordinates g and running `len` nodes along direction `dir`:
  /// operator()(j) is the global index of node j, or -1 where it lies on the boundary and
  /// `constrained` (the tests of the fixed coordinates once per line; along it only the ends
  /// can be boundary). Used by the cell kernels' gathers and scatters (BP, transfers).
  template <int len>
  struct NodeLine
  {
    index_t first, stride;
    bool    out, first_out, last_out; ///< the whole line, its first, its last node

    /// dir = 1 (y lines) or 2 (z lines, 3D)
    template <int dim, int dir>
    static TPMG_HD TPMG_FORCEINLINE NodeLine along(const index_t *nodes, const index_t (&g)[3], bool constrained = true)
    {
      static_assert(dir >= 1 && dir < dim, "lines along y, or z in 3D");
      constexpr int fixed = dir == 1 ? 2 : 1; // the fixed direction besides x (3D)
      NodeLine      l;
      l.first  = g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
      l.stride = dir == 1 ? nodes[0] : nodes[0] * nodes[1];
      l.out    = constrained &&
              (g[0] == 0 || g[0] == nodes[0] - 1 || (dim == 3 && (g[fixed] == 0 || g[fixed] == nodes[fixed] - 1)));
      l.first_out = constrained && g[dir] == 0;
      l.last_out  = constrained && g[dir] + len - 1 == nodes[dir] - 1;
      return l;
    }
    /// As along(), where `open` marks faces of the array that are no boundary (a rank's stored
    /// part of a level towards a neighbour: their nodes hold values like any other): bit 2d the
    /// lower face of direction d, bit 2d + 1 the upper one.
    template <int dim, int dir>
    static TPMG_HD TPMG_FORCEINLINE NodeLine along(const index_t *nodes, const index_t (&g)[3], unsigned open)
    {
      static_assert(dir >= 1 && dir < dim, "lines along y, or z in 3D");
      constexpr int fixed = dir == 1 ? 2 : 1;
      auto          lower = [&](int d) { return g[d] == 0 && !((open >> (2 * d)) & 1u); };
      auto          upper = [&](int d, index_t last) { return last == nodes[d] - 1 && !((open >> (2 * d + 1)) & 1u); };
      NodeLine      l;
      l.first     = g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
      l.stride    = dir == 1 ? nodes[0] : nodes[0] * nodes[1];
      l.out       = lower(0) || upper(0, g[0]) || (dim == 3 && (lower(fixed) || upper(fixed, g[fixed])));
      l.first_out = lower(dir);
      l.last_out  = upper(dir, g[dir] + len - 1);
      return l;
    }
    TPMG_HD TPMG_FORCEINLINE index_t operator()(int j) const
    {
      return out || (j == 0 && first_out) || (j == len - 1 && last_out) ? index_t(-1) : first + j * stride;
    }
  };

} // namespace tpmg
