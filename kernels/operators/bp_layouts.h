// Shared-memory layouts of the bake-off kernels (kernels/operators/bp_operator.h): strides and
// cell padding per number of quadrature points, from searches with the bank recorder.
#pragma once

#include <kernels/common/tensor.h>

#include <cstddef>

namespace tpmg
{
  /// 2D shared-memory layout of the BP kernel for `word`-byte numbers (with its cells per block): a
  /// cell buffer holds (x, y) at x + sx y, cells lie cs apart, the rows of the B and D copies sd
  /// apart. Unpadded (sx = sd = nq, cs = nq²) the contractions conflict: warp lanes that differ in
  /// y read x + sx y, the rows D(tx, ·) lie nq apart, and for even nq both are multiples of half
  /// the banks (nq = 4, 8: 3-4x the ideal wavefronts). sx, sd and the cell padding were found by
  /// search with the bank recorder (sx in [nq, nq+16], sd in [nq, nq+8], padding 0..16, over BP1,
  /// BP3, BP5 with that nq; fewest wavefronts, then least memory) among layouts with at most 12.5%
  /// more shared memory per cell. The double row dates from the whole-warp rule the recorder had
  /// before the half-warp rule was measured (docs/performance/bp_operators.md, "Shared layouts");
  /// not re-searched (2D is not benchmarked), its padded entries stay within 1.55x the ideal under
  /// the measured rule. BankConflicts.BPKernelsNearIdeal checks them. `padded`: the table changes
  /// anything.
  template <int nq, std::size_t word>
  struct BPSharedLayout2D
  {
    // {sx, sd, cell padding} by nq = 2..10 for float, double; more points stay unpadded
    static constexpr int table[2][9][3] = {
      {{2, 4, 0}, {3, 6, 0}, {4, 4, 2}, {5, 5, 0}, {6, 14, 2}, {7, 7, 3}, {8, 9, 8}, {9, 9, 3}, {10, 10, 6}},
      {{2, 4, 0}, {3, 3, 0}, {4, 10, 2}, {5, 7, 1}, {6, 6, 2}, {7, 7, 6}, {8, 9, 4}, {9, 9, 8}, {10, 11, 6}}};
    static constexpr int  entry(int i) { return nq <= 10 ? table[word == 8][nq - 2][i] : i == 2 ? 0 : nq; }
    static constexpr int  sx = entry(0), sz = sx * nq, sd = entry(1), cs = sx * nq + entry(2);
    static constexpr bool padded = sx != nq || sd != nq || cs != nq * nq;
    using Cell                   = TensorLayout<nq, nq, 1, sx, sz, 0, cs>;
  };

  /// 3D shared-memory layout of the BP kernel: a cell buffer holds (x, y, z) at
  /// x + sx y + sz z, cells lie cs apart. The threads (a, b) of a cell access fibers
  /// (a, b, ·), (a, ·, b) and (·, a, b), so the lanes of a warp touch a + sx b, a + sz b and
  /// sx a + sz b (plus the fiber index): the table's strides keep those apart in the banks.
  template <int nq, std::size_t word>
  struct BPFiberLayout3D
  {
    // {sx - nq, sz - sx nq, cell padding} by nq = 2..10 for float, double: among layouts with at
    // most 25% more memory, the smallest worst ratio of wavefronts to the ideal over BP1, BP3 (nq =
    // k + 2) and BP5 (nq = k + 1), then the fewest wavefronts, then the least memory
    // (tools/bp_layout_search.py), where measured faster (docs/performance/bp_operators.md, "Shared
    // layouts"). Unpadded, nq = 8 needs 3.8x (double) and 4.4x (float) the ideal wavefronts; padded
    // 1.5x and 1.4x. Doubles are served per half-warp (bank_recorder.h): the 16 fibers of a
    // half-warp need 16 distinct bank pairs, which strides cannot give all three directions (nq =
    // 4: x + sx y and x + sz z need sx, sz ≡ ±4 mod 16, and then sx y + sz z takes 4 values); the
    // double row is the search under that rule.
    static constexpr int table[2][9][3] = {
      {{0, 0, 0}, {0, 0, 0}, {0, 3, 4}, {0, 0, 0}, {0, 1, 6}, {0, 7, 9}, {1, 0, 0}, {0, 0, 0}, {0, 5, 0}},
      {{0, 1, 0}, {0, 0, 0}, {0, 3, 0}, {0, 0, 0}, {0, 7, 2}, {0, 5, 7}, {1, 0, 0}, {0, 8, 0}, {0, 5, 0}}};
    static constexpr int  entry(int i) { return nq <= 10 ? table[word == 8][nq - 2][i] : 0; }
    static constexpr int  sx = nq + entry(0), sz = sx * nq + entry(1), sd = nq, cs = sz * nq + entry(2);
    static constexpr bool padded = cs != nq * nq * nq;
    using Cell                   = TensorLayout<nq, nq, nq, sx, sz, 0, cs>;
  };
} // namespace tpmg
