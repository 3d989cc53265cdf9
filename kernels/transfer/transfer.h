// Grid transfer between level ℓ-1 (coarse) and ℓ (fine), as a loop over coarse cells
// (docs/method.md, "Grid transfer"). Prolongation interpolates the coarse Q_k function at the fine nodes: on a
// coarse cell it is P⊗P(⊗P) with the 1D matrix P ((2k+1)×(k+1)); restriction is its
// transpose. Boundary nodes are skipped (they stay zero).
//
// Ownership: fine node g (per direction) belongs to coarse cell g / 2k at local index g % 2k,
// so a coarse cell owns the m³ (m = 2k) fine nodes of local indices 0..m-1 (its local index
// 2k is the next cell's 0, or the boundary), and these blocks tile the level. Prolongation
// therefore adds to each fine node from exactly one cell, and restriction reads each once;
// restriction adds into the coarse nodes, which cells share, atomically.
//
// Thread structure: one thread per fiber in every phase, as in the smoother's fiber kernels.
// A thread loads a whole line of m or k+1 values into registers, applies P or Pᵀ there with
// the even-odd split (P(2k-i, k-j) = P(i, j): the fine points are symmetric about the cell's
// middle), entries from the constant bank, and stores the line. m^(dim-1) threads per cell,
// three phases. The order of the directions puts x in the middle, so that the phases that
// touch global memory have lanes along x: prolongation y | x | z (3D) and y | x | copy-out
// (2D), restriction the reverse. Shared layouts: TransferLayout (padded against bank
// conflicts, tools/transfer_layout_search.py).
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/cell_grid.h>
#include <kernels/common/tensor.h>
#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>


namespace tpmg
{
  /// Shared layout of the transfer kernels: two buffers per cell, A of (k+1, m, k+1) and B of
  /// (m, m, k+1) values (x, y, z; 2D: (k+1, m) and (m, m)), A(x, y, z) at x + ay y + az z,
  /// B(x, y, z) at x + by y + bz z, the cells of a block ca and cb apart. The paddings
  /// {ay - (k+1), az - ay m, ca - az (k+1), by - m, bz - by m, cb - bz (k+1)} by degree were
  /// found by tools/transfer_layout_search.py (fewest wavefronts under the bank
  /// recorder's rule for all the accesses of both kernels, then the least memory, at most
  /// 50% more); BankConflicts.TransferKernelsNearIdeal counts the kernels themselves.
  template <int dim, int k, std::size_t word>
  struct TransferLayout
  {
    static constexpr int m = 2 * k, nc = k + 1;
    // by k = 1..10 (2D), 1..8 (3D), for float and double
    static constexpr int table[2][2][10][6] = {{// 2D float, double
                                                {{1, 0, 0, 1, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {0, 0, 1, 1, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {1, 0, 0, 5, 0, 0},
                                                 {0, 0, 0, 5, 0, 0},
                                                 {2, 0, 1, 3, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {3, 0, 0, 1, 0, 0},
                                                 {4, 0, 0, 5, 0, 0}},
                                                {{1, 0, 0, 1, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {0, 0, 3, 3, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {1, 0, 0, 1, 0, 0},
                                                 {2, 0, 0, 1, 0, 0},
                                                 {1, 0, 0, 3, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {3, 0, 0, 7, 0, 0},
                                                 {0, 0, 0, 1, 0, 0}}},
                                               {// 3D float, double (k <= 8)
                                                {{1, 0, 0, 0, 1, 2},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {0, 1, 0, 0, 1, 16},
                                                 {0, 5, 0, 1, 0, 0},
                                                 {1, 0, 0, 1, 0, 0},
                                                 {0, 0, 0, 1, 0, 0},
                                                 {3, 14, 0, 0, 0, 0},
                                                 {1, 9, 0, 1, 0, 0},
                                                 {0, 0, 0, 0, 0, 0},
                                                 {0, 0, 0, 0, 0, 0}},
                                                {{1, 0, 0, 0, 1, 2},
                                                 {0, 0, 0, 0, 1, 0},
                                                 {2, 0, 0, 0, 1, 0},
                                                 {1, 5, 0, 1, 0, 0},
                                                 {1, 0, 0, 0, 1, 6},
                                                 {0, 3, 0, 1, 0, 0},
                                                 {1, 0, 0, 0, 1, 0},
                                                 {0, 9, 0, 1, 0, 0},
                                                 {0, 0, 0, 0, 0, 0},
                                                 {0, 0, 0, 0, 0, 0}}}};
    static constexpr int pad(int i) { return k <= 10 ? table[dim == 3][word == 8][k - 1][i] : 0; }
    static constexpr int ay = nc + pad(0), az = dim == 3 ? ay * m + pad(1) : 0;
    static constexpr int ca = (dim == 3 ? az * nc : ay * m) + pad(2);
    static constexpr int by = m + pad(3), bz = dim == 3 ? by * m + pad(4) : 0;
    static constexpr int cb = (dim == 3 ? bz * nc : by * m) + pad(5);
    using A                 = TensorLayout<nc, m, dim == 3 ? nc : 1, ay, az, 0, ca>;
    using B                 = TensorLayout<m, m, dim == 3 ? nc : 1, by, bz, 0, cb>;
  };

  /// The 1D prolongation matrix P and Pᵀ by their even and odd parts.
  template <int k, typename Number>
  struct TransferConstants
  {
    EvenOddMatrix<Number, 2 * k + 1, k + 1> P;
    EvenOddMatrix<Number, k + 1, 2 * k + 1> Pt;
  };

  /// `part`: between the parts of two levels that a rank stores (box_layout.h), whose first coarse
  /// cell may be off the coarse part's origin and whose fine faces may be no boundary; the
  /// whole-level instantiation does without the offsets and face flags (fewer registers).
  /// `natural`: between whole levels with Neumann faces (the part's offsets and face flags, and
  /// the coarse cells past the upper Neumann faces: bounded_line).
  template <int dim, int k, typename Number, bool restriction, bool part = false, bool natural = false>
  struct TransferKernel
  {
    static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
    static constexpr int nf = 2 * k + 1, nc = k + 1, m = 2 * k;
    static constexpr int threads_per_cell      = dim == 3 ? m * m : m;
    static constexpr int cells_per_block       = cmax(1, 256 / threads_per_cell);
    static constexpr int max_threads_per_block = threads_per_cell * cells_per_block;
    static constexpr int n_phases              = 3;
    using L                                    = TransferLayout<dim, k, sizeof(Number)>;

    struct Registers
    {
      unsigned cc[3]; ///< the coarse cell's coordinates, from phase 0 on
    };

    /// runner.h: a __constant__ copy on the GPU, shared by prolongation and restriction
    using Constants    = TransferConstants<k, Number>;
    using ConstantsTag = TransferKernel<dim, k, Number, false, false>;
    Constants                constants;
    TPMG_HD const Constants &C() const { return tpmg::constants(*this); }

    const Number *src; ///< coarse (prolongation) or fine (restriction) vector
    Number       *dst; ///< fine (prolongation, added to) or coarse (restriction, added to)
    index_t       coarse_nodes[3];
    index_t       fine_nodes[3];
    index_t       coarse_shift[3]; ///< k × the coarse cell whose refinement starts the fine vector
    /// the faces of the fine level that are no boundary (NodeLine::along): those of a rank's part
    /// towards a neighbour, read and written like the inside, so that the restriction of a
    /// rank's part adds what the whole level's does
    unsigned fine_open;
    /// (part) the coarse level's faces read and written like the inside: its Neumann faces
    unsigned coarse_open = 0;
    index_t  n_coarse_cells;
    CellGrid grid; ///< coordinates of the coarse cells of the launch from the cell index

    static constexpr std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr std::size_t off_b        = a16(std::size_t(L::A::size) * cells_per_block * sizeof(Number));
    static constexpr std::size_t shared_bytes = off_b + a16(std::size_t(L::B::size) * cells_per_block * sizeof(Number));

    LaunchShape shape() const
    {
      return cell_blocks(n_coarse_cells, cells_per_block, Dim3{threads_per_cell, cells_per_block, 1}, shared_bytes);
    }

    /// out = P in (coarse line to the m owned fine points; the last point, the next cell's, is
    /// computed by the even-odd scheme and dropped) and out = Pᵀ in (m fine values, the next
    /// cell's point as zero).
    TPMG_HD TPMG_FORCEINLINE void interpolate(const Number (&in)[nc], Number (&out)[m]) const
    {
      Number o[nf];
      apply_even_odd<1>(C().P, in, o);
      TPMG_UNROLL
      for (int i = 0; i < m; ++i)
        out[i] = o[i];
    }
    TPMG_HD TPMG_FORCEINLINE void restrict_line(const Number (&in)[m], Number (&out)[nc]) const
    {
      Number i2[nf];
      TPMG_UNROLL
      for (int i = 0; i < m; ++i)
        i2[i] = in[i];
      i2[m] = Number(0);
      apply_even_odd<1>(C().Pt, i2, out);
    }

    /// (part) A line that may leave the array: that of a coarse cell past an upper Neumann face
    /// (make_transfer_kernel), whose only nodes inside are those on the face.
    template <int len>
    struct BoundedLine
    {
      NodeLine<len>                    line;
      int                              inside; ///< the entries before the array's end
      TPMG_HD TPMG_FORCEINLINE index_t operator()(int j) const { return j < inside ? line(j) : index_t(-1); }
    };
    template <int len, int dir>
    static TPMG_HD TPMG_FORCEINLINE BoundedLine<len> bounded_line(const index_t *nodes, const index_t (&g)[3],
                                                                  unsigned       open)
    {
      bool past = false; // a fixed coordinate past the array
      for (int d = 0; d < dim; ++d)
        past = past || (d != dir && g[d] >= nodes[d]);
      const index_t rest = nodes[dir] - g[dir];
      return {NodeLine<len>::template along<dim, dir>(nodes, g, open), past ? 0 : int(rest < len ? rest : len)};
    }

    /// The line of coarse nodes (a, ·, cz) of the cell, or of owned fine nodes (a, b, ·) (3D)
    /// or (a, ·) (2D).
    TPMG_HD TPMG_FORCEINLINE auto coarse_line(const unsigned (&cc)[3], int a, int cz) const
    {
      index_t g[3] = {index_t(k) * cc[0] + a, index_t(k) * cc[1], dim == 3 ? index_t(k) * cc[2] + cz : 0};
      if constexpr (part)
        for (int d = 0; d < 3; ++d)
          g[d] += coarse_shift[d];
      if constexpr (natural)
        return bounded_line<nc, 1>(coarse_nodes, g, coarse_open);
      else
        return NodeLine<nc>::template along<dim, 1>(coarse_nodes, g);
    }
    TPMG_HD TPMG_FORCEINLINE auto fine_line(const unsigned (&cc)[3], int a, int b) const
    {
      const index_t g[3] = {index_t(m) * cc[0] + a, index_t(m) * cc[1] + (dim == 3 ? b : 0),
                            dim == 3 ? index_t(m) * cc[2] : 0};
      if constexpr (natural)
        return bounded_line<m, dim - 1>(fine_nodes, g, fine_open);
      else if constexpr (part)
        return NodeLine<m>::template along<dim, dim - 1>(fine_nodes, g, fine_open);
      else
        return NodeLine<m>::template along<dim, dim - 1>(fine_nodes, g);
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      const int     t    = int(ctx.thread.x);
      const int     c    = int(ctx.thread.y);
      const index_t cell = index_t(ctx.block.x) * cells_per_block + c;
      if (cell >= n_coarse_cells)
        return;
      if constexpr (phase == 0)
        grid.coordinates(unsigned(cell), reg.cc); // 32 bits, no division instruction (cell_grid.h)
      auto A = sh.template array<Number>(0) + c * L::A::size;
      auto B = sh.template array<Number>(off_b) + c * L::B::size;
      // fibers of the phases: (a, cz) with a < k+1 along y; (b, cz) with b < m along x; (a, b)
      // with a, b < m along z (2D: a, b, with cz = 0)
      constexpr int nz = dim == 3 ? nc : 1;
      const auto    P  = [this](const Number(&in)[nc], Number(&out)[m]) { interpolate(in, out); };
      const auto    Pt = [this](const Number(&in)[m], Number(&out)[nc]) { restrict_line(in, out); };
      // the z fiber (a, b, ·) of B: the last direction's P or Pᵀ in 3D, a copy of the line
      // (a, ·) in 2D
      constexpr int nbz = dim == 3 ? nc : m;
      const auto    Bz  = [](int a, int b, int j) { return dim == 3 ? L::B::at(a, b, j) : L::B::at(a, j, 0); };
      // a line of the source vector, zero where it has no node
      const auto from = [this](const auto &line, int j) {
        const index_t g = line(j);
        return g < 0 ? Number(0) : src[g];
      };
      if constexpr (!restriction)
        {
          if constexpr (phase == 0)
            {
              // coarse line along y -> A(a, ·, cz)
              if (t < nc * nz)
                {
                  const int  a = t % nc, cz = t / nc;
                  const auto line = coarse_line(reg.cc, a, cz);
                  fiber_step<Number, nc, m>([&](int j) { return from(line, j); }, P,
                                            [&](int i, Number v) { A[L::A::at(a, i, cz)] = v; });
                }
            }
          else if constexpr (phase == 1)
            {
              // x: A(·, b, cz) -> B(·, b, cz)
              if (t < m * nz)
                {
                  const int b = t % m, cz = t / m;
                  fiber_step<Number, nc, m>([&](int j) { return A[L::A::at(j, b, cz)]; }, P,
                                            [&](int i, Number v) { B[L::B::at(i, b, cz)] = v; });
                }
            }
          else
            {
              // 3D: z, B(a, b, ·) -> fine (a, b, ·); 2D: B(a, ·) copied out to fine (a, ·)
              const int  a = t % m, b = t / m;
              const auto read = [&](int j) { return B[Bz(a, b, j)]; };
              Number     out[m];
              if constexpr (dim == 3)
                fiber_apply<Number, nbz>(read, P, out);
              else
                fiber_apply<Number, nbz>(read, CopyFiber{}, out);
              const auto line = fine_line(reg.cc, a, b);
              TPMG_UNROLL
              for (int i = 0; i < m; ++i)
                {
                  const index_t g = line(i);
                  // each fine node has one writer: exclusive_add (atomic.h) does not wait for
                  // the old value (docs/performance/transfer.md, "Atomic prolongation")
                  if (g >= 0)
                    exclusive_add(dst + g, out[i]);
                }
            }
        }
      else
        {
          if constexpr (phase == 0)
            {
              // 3D: owned fine line (a, b, ·), Pᵀ along z -> B(a, b, ·); 2D: (a, ·) copied to B
              const int  a = t % m, b = t / m;
              const auto line = fine_line(reg.cc, a, b);
              Number     in[m];
              TPMG_UNROLL
              for (int i = 0; i < m; ++i)
                in[i] = from(line, i);
              Number out[nbz];
              if constexpr (dim == 3)
                restrict_line(in, out);
              else
                CopyFiber{}(in, out);
              TPMG_UNROLL
              for (int j = 0; j < nbz; ++j)
                B[Bz(a, b, j)] = out[j];
            }
          else if constexpr (phase == 1)
            {
              // x: B(·, b, cz) -> A(·, b, cz)
              if (t < m * nz)
                {
                  const int b = t % m, cz = t / m;
                  fiber_step<Number, m, nc>([&](int i) { return B[L::B::at(i, b, cz)]; }, Pt,
                                            [&](int j, Number v) { A[L::A::at(j, b, cz)] = v; });
                }
            }
          else
            {
              // y: A(a, ·, cz) -> coarse line (a, ·, cz), added atomically (cells share nodes)
              if (t < nc * nz)
                {
                  const int a = t % nc, cz = t / nc;
                  Number    out[nc];
                  fiber_apply<Number, m>([&](int i) { return A[L::A::at(a, i, cz)]; }, Pt, out);
                  const auto line = coarse_line(reg.cc, a, cz);
                  TPMG_UNROLL
                  for (int j = 0; j < nc; ++j)
                    {
                      const index_t g = line(j);
                      if (g >= 0)
                        atomic_add(dst + g, out[j]);
                    }
                }
            }
        }
    }
  };

} // namespace tpmg
