// Matrix-free Laplace operator on a uniform Cartesian level (level operator `cartesian`):
// cell loop, gather, sum-factorized  c_x A⊗M⊗M + c_y M⊗A⊗M + c_z M⊗M⊗A + s M⊗M⊗M  (reference
// 1D matrices M, A; c_d = a (1/h_d) Π_{e≠d} h_e, s = c Π_d h_d for constants a and c of
// −∇·(a ∇u) + c u), scatter-add with atomics. The mass term costs one FMA per node: the x
// stage applies M_x to the y stage's sum, to which s times its mass product M_y M_z u is added.
//
// Thread structure: one thread per column of k+1 nodes along the last direction (z in 3D,
// y in 2D), which it keeps in registers, so the contraction along that direction needs no
// shared memory; the other directions go through shared memory. Several cells per block.
// The nodes of the Dirichlet faces are masked: they read as zero and receive nothing; the
// nodes of the other faces (Neumann, Robin) are unknowns like the interior ones.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/cell_grid.h>
#include <kernels/common/tensor.h>
#include <kernels/runtime/runner.h>

#include <tpmg/numbering.h>

namespace tpmg
{
  /// `natural`: a level with faces that are not Dirichlet faces, whose nodes are unknowns
  /// (first, last); without, the boundary test of the kernel is that of every face.
  template <int dim, int k, typename Number, bool natural = false>
  struct CartesianLaplaceKernel
  {
    static_assert(dim == 2 || dim == 3, "dimension 2 or 3");
    static constexpr int n                     = k + 1;
    static constexpr int threads_per_cell      = dim == 3 ? n * n : n;
    static constexpr int cells_per_block       = cmax(1, 128 / threads_per_cell);
    static constexpr int max_threads_per_block = threads_per_cell * cells_per_block;
    static constexpr int n_phases              = dim; // 3D: z | y | x, 2D: y | x
    static constexpr int cell_size             = ipow<n, dim>();

    struct Registers
    {
      unsigned cc[3]; ///< the cell's coordinates, from phase 0 on
    };

    const Number          *src;
    Number                *dst;
    index_t                cells[3];
    index_t                nodes[3];
    index_t                n_cells;
    CellGrid               grid; ///< cell coordinates from the cell index
    Number                 coef[3];
    Number                 shift = 0; ///< s = c Π h_d: the reaction term's multiple of M⊗M⊗M
    SmallMatrix<Number, n> mass, stiffness;
    /// the unknowns' node range per direction, [first, last]: 1 .. nodes - 2 between Dirichlet
    /// faces, the face's node included where a face is not (set_faces)
    index_t first[3], last[3];

    /// The node ranges for the Dirichlet faces `constrained` (numbering.h's face bits).
    void set_faces(unsigned constrained)
    {
      for (int d = 0; d < 3; ++d)
        {
          first[d] = (constrained >> (2 * d) & 1u) ? 1 : 0;
          last[d]  = (constrained >> (2 * d + 1) & 1u) ? nodes[d] - 2 : nodes[d] - 1;
        }
    }

    // shared memory: 1D matrices, then (dim == 3 ? 4 : 2) cell buffers per cell
    static constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr std::size_t off_mass     = 0;
    static constexpr std::size_t off_stiff    = align16(n * n * sizeof(Number));
    static constexpr std::size_t off_cells    = 2 * off_stiff;
    static constexpr std::size_t buffer_bytes = align16(std::size_t(cell_size) * cells_per_block * sizeof(Number));
    static constexpr int         n_buffers    = dim == 3 ? 4 : 2;
    static constexpr std::size_t shared_bytes = off_cells + n_buffers * buffer_bytes;

    LaunchShape shape() const
    {
      return cell_blocks(n_cells, cells_per_block, dim == 3 ? Dim3{n, n, cells_per_block} : Dim3{n, cells_per_block, 1},
                         shared_bytes);
    }

    // global node index of local node (x, y, z) of the cell with first node c0; -1 on a
    // Dirichlet face
    TPMG_HD index_t node(const index_t *c0, int x, int y, int z) const
    {
      if constexpr (!natural)
        return cell_node(nodes, dim, c0, x, y, z);
      const index_t g[3] = {c0[0] + x, c0[1] + y, c0[2] + z};
      for (int d = 0; d < dim; ++d)
        if (g[d] < first[d] || g[d] > last[d])
          return -1;
      return g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      auto Ms = sh.template array<Number>(off_mass);
      auto As = sh.template array<Number>(off_stiff);
      auto S1 = sh.template array<Number>(off_cells);
      auto S2 = sh.template array<Number>(off_cells + buffer_bytes);
      auto T1 = sh.template array<Number>(off_cells + 2 * buffer_bytes);
      auto T2 = sh.template array<Number>(off_cells + 3 * buffer_bytes);

      const int     c    = dim == 3 ? ctx.thread.z : ctx.thread.y;
      const index_t cell = index_t(ctx.block.x) * cells_per_block + c;
      const int     x    = ctx.thread.x;
      const int     y    = dim == 3 ? int(ctx.thread.y) : 0;
      if constexpr (phase == 0)
        for (unsigned t = ctx.linear_thread(); t < unsigned(n * n); t += ctx.block_dim.size())
          {
            Ms[t] = mass.v[t];
            As[t] = stiffness.v[t];
          }
      if (cell >= n_cells)
        return;
      if constexpr (phase == 0)
        grid.coordinates(unsigned(cell), reg.cc); // 32 bits, no division instruction (cell_grid.h)
      const index_t c0[3] = {index_t(reg.cc[0]) * k, index_t(reg.cc[1]) * k, index_t(reg.cc[2]) * k};
      const int     base  = c * cell_size;
      // buffer index of (x, y, z) in a cell, x fastest
      using Cell = TensorLayout<n, n, dim == 3 ? n : 1, n, n * n>;
      auto at    = [base](int i, int j, int l) { return Cell::at(i + base, j, l); };

      if constexpr (phase == 0)
        {
          // gather the column along the last direction, contract it in registers
          Number u[n];
          TPMG_UNROLL
          for (int z = 0; z < n; ++z)
            {
              const index_t g = dim == 3 ? node(c0, x, y, z) : node(c0, x, z, 0);
              u[z]            = g < 0 ? Number(0) : src[g];
            }
          contract_pair<n>(mass, stiffness, u, [&](int z, Number a, Number b) {
            const int i = dim == 3 ? at(x, y, z) : at(x, z, 0);
            S1[i]       = a;
            S2[i]       = coef[dim - 1] * b + (dim == 2 ? shift * a : Number(0)); // 2D: M_y u is the mass product
          });
        }
      else if constexpr (dim == 3 && phase == 1)
        {
          // y direction: T1 = M_y S1, T2 = c_y A_y S1 + M_y S2 + s T1
          TPMG_UNROLL
          for (int z = 0; z < n; ++z)
            {
              Number t1, ta, tb;
              contract_row_pair<n>([&](int j) { return Ms[y * n + j]; }, [&](int j) { return As[y * n + j]; },
                                   [&](int j) { return S1[at(x, j, z)]; }, [&](int j) { return S2[at(x, j, z)]; }, t1,
                                   ta, tb);
              T1[at(x, y, z)] = t1;
              T2[at(x, y, z)] = coef[1] * ta + tb + shift * t1;
            }
        }
      else
        {
          // x direction and scatter: out = c_x A_x P + M_x Q
          auto P = dim == 3 ? T1 : S1;
          auto Q = dim == 3 ? T2 : S2;
          TPMG_UNROLL
          for (int z = 0; z < n; ++z)
            {
              const int yy = dim == 3 ? y : z, zz = dim == 3 ? z : 0;
              Number    a = 0, b = 0;
              TPMG_UNROLL
              for (int i = 0; i < n; ++i)
                {
                  a += As[x * n + i] * P[at(i, yy, zz)];
                  b += Ms[x * n + i] * Q[at(i, yy, zz)];
                }
              const index_t g = node(c0, x, yy, zz);
              if (g >= 0)
                atomic_add(dst + g, coef[0] * a + b);
            }
        }
    }
  };

  /// Constrained rows act as identity: dst = src on the nodes of the Dirichlet faces
  /// `constrained`, or the residual's dst = b - src where `b` is given. One index per such node
  /// (count()): first the nodes of the whole x-lines on constrained z faces, then those on
  /// constrained y faces between them, then the two ends of every other x-line on constrained x
  /// faces. One thread per line instead walked up to nodes[0] rows whose loads could not overlap
  /// (dst may alias src): 56 us per application at 97 nodes per line, a fifth of a small solve
  /// (docs/performance/operator.md, "Constrained rows").
  template <typename Number>
  struct CopyBoundaryLines
  {
    const Number *src;
    Number       *dst;
    index_t       nodes[3];
    int           dim;
    const Number *b           = nullptr;
    unsigned      constrained = all_faces;

    /// whether the lower or upper end of direction d is constrained
    TPMG_HD bool    lower(int d) const { return d < dim && (constrained >> (2 * d) & 1u); }
    TPMG_HD bool    upper(int d) const { return d < dim && (constrained >> (2 * d + 1) & 1u); }
    TPMG_HD index_t ends(int d) const { return index_t(lower(d)) + index_t(upper(d)); }
    /// coordinate of constrained end e (0: the first one there is) of direction d
    TPMG_HD index_t end(int d, index_t e) const { return e == 0 && lower(d) ? 0 : nodes[d] - 1; }
    /// the unconstrained coordinates of direction d: [free_begin, free_begin + free_count)
    TPMG_HD index_t free_begin(int d) const { return lower(d) ? 1 : 0; }
    TPMG_HD index_t free_count(int d) const { return nodes[d] - ends(d); }

    TPMG_HD index_t z_lines() const { return ends(2) * nodes[1]; }
    TPMG_HD index_t face_lines() const { return z_lines() + ends(1) * free_count(2); }
    TPMG_HD index_t count() const { return face_lines() * nodes[0] + ends(0) * free_count(1) * free_count(2); }

    TPMG_HD void operator()(index_t t) const
    {
      index_t       g[3];
      const index_t on_lines = face_lines() * nodes[0];
      if (t < on_lines)
        {
          g[0]         = t % nodes[0];
          index_t line = t / nodes[0];
          if (line < z_lines())
            {
              g[1] = line % nodes[1];
              g[2] = end(2, line / nodes[1]);
            }
          else
            {
              line -= z_lines();
              g[2] = free_begin(2) + line % free_count(2);
              g[1] = end(1, line / free_count(2));
            }
        }
      else
        {
          t -= on_lines;
          g[1] = free_begin(1) + t % free_count(1);
          t /= free_count(1);
          g[2] = free_begin(2) + t % free_count(2);
          g[0] = end(0, t / free_count(2));
        }
      const index_t i = g[0] + nodes[0] * (g[1] + nodes[1] * g[2]);
      dst[i]          = b ? b[i] - src[i] : src[i];
    }
  };

  /// value at the nodes of the Dirichlet faces `constrained` of a level (nodes[d] per
  /// direction), the rest unchanged (the identity rows of an operator's diagonal).
  template <typename Number>
  struct SetBoundaryNodes
  {
    index_t      nodes[3];
    int          dim;
    Number       value;
    Number      *v;
    unsigned     constrained = all_faces;
    TPMG_HD void operator()(index_t i) const
    {
      const index_t c[3] = {i % nodes[0], (i / nodes[0]) % nodes[1], i / (nodes[0] * nodes[1])};
      if (on_faces(nodes, dim, c, constrained))
        v[i] = value;
    }
  };
} // namespace tpmg
