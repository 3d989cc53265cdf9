// Vertex-patch smoother with the 1D matrix products on the tensor cores (`tensor_core`,
// docs/kernels.md, "Tensor-core kernel"; 3D, fused kind): the algorithm of the fiber kernels (fiber_stages.h),
// each stage a set of 16×8×8 double tile products (mma.h) of a warp.
//
// A stage contracts along one direction. Its fibers (the lines of nodes along that direction)
// are cut into tiles of 8; a tile's product is C (out × 8 fibers) = Mat (out × in) · B (in × 8
// fibers), where B comes from shared memory and Mat, a constant, sits in registers as A
// fragments. The matrices are those of the fiber kernels, so that the tiles waste little:
//  * residual stages (z, y, x): the patch matrix is the sum of its two cells' (k+1)² blocks,
//    which overlap in the middle row; each cell is one 8×8 tile for k <= 7 (k = 8: 2 × 3
//    tiles of 8 × 4), and the middle row's two halves meet by one shuffle;
//  * two outputs of a residual stage in the upper and lower 8 rows of one 16×8×8 tile product
//    (the shape the H100 runs at the full FP64 tensor rate), the inputs of a sum one after the
//    other along k: z [M; A] X, y [M 0; c_y A c_z M] [T_m; T_a], x [c_x A M] [U1; U2];
//  * fast diagonalization: the dense (2k-1)² eigenvectors, one 16-row tile.
// Every tensor in shared memory is laid out for the stage that reads it: fiber n of that
// stage at n, contraction index j at n + S j, with S ≡ g/4 (mod g), g the words of a
// wavefront, so the B fragments (4 contraction indices × 8 fibers) load without bank
// conflicts. Data are Number (float or double) in memory; the products run in double.
//
// Phases: load x | z | y | x: r = b - A x | Sᵀ_x | Sᵀ_y | Sᵀ_z, divide by the eigenvalue
// sums | S_z | S_y | S_x, x += correction (exclusive_add: the patches of a color have disjoint
// interiors). The CPU runner computes each lane's outputs as dot products with the patch
// matrices (the same entries the tiles produce; the GPU tests compare the two).
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/mma.h>
#include <kernels/smoothers/patch_common.h>

#include <tpmg/option_enums.h>

namespace tpmg
{
  template <int k, typename Number>
  struct MmaPatchKernel
  {
    static_assert(k >= 2, "k = 1 has one interior node per patch (the tile kernel)");
    static constexpr int dim = 3, np = 2 * k + 1, ni = 2 * k - 1, K1 = k + 1;

    // ----------------------------------------------------------------- shared layouts
    /// the contraction stride of a tensor read by a stage of `fibers` fibers (mma.h)
    static constexpr int stride_for(int fibers) { return fragment_stride<Number>(fibers); }
    static constexpr int SX     = stride_for(np * np); ///< X: z-stage fibers (x, y), contraction z
    static constexpr int ST     = stride_for(np * ni); ///< T_m, T_a: y-stage fibers (x, zi), contraction y
    static constexpr int SU     = stride_for(ni * ni); ///< U1, U2: x-stage fibers (yi, zi), contraction x
    static constexpr int SF     = SU;                  ///< r and the eigenvector stages: ni² fibers, ni long
    static constexpr int size_X = SX * np, size_T = ST * np, size_U = SU * np, size_F = SF * ni;
    /// two regions, each stage reads one and writes the other: A: X, U, V1, W1, W3; B: T, r, V2, W2
    static constexpr int         region_a = cmax(size_X, cmax(2 * size_U, size_F)), region_b = cmax(2 * size_T, size_F);
    static constexpr std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }

    // ------------------------------------------------------------------ threads, tiles
    static constexpr int tiles(int fibers) { return (fibers + 7) / 8; }
    /// warps of a patch (one patch per block): about four tiles of the widest stage each
    static constexpr int warps                 = cmin(16, cmax(1, (tiles(np * np) + 3) / 4));
    static constexpr int threads_per_patch     = 32 * warps;
    static constexpr int max_threads_per_block = threads_per_patch;
    static constexpr int n_phases              = 10;

    /// tile counts (m tiles of 8 rows, k steps of 4 columns) of the cells' (k+1)² blocks, and
    /// the k steps of the eigenvectors (one 16-row tile: ni <= 15)
    static constexpr int MTc = (K1 + 7) / 8, KSc = (K1 + 3) / 4;
    static constexpr int KSd = (ni + 3) / 4;
    static_assert(ni <= 16, "the eigenvectors in one 16-row tile");

    // --------------------------------------------------- the matrix table (doubles)
    // The cells' mass and stiffness tiles, row-major, zero-padded to 8 MT × 4 KS (cell 0: patch
    // rows/columns 0..k, cell 1: k..2k, each with half of the middle diagonal entry), and the
    // full patch matrices and eigenvectors for the CPU runner.
    static constexpr int ld_c = 4 * KSc, size_c = 8 * MTc * ld_c;
    static constexpr int off_cell(int mat, int cell) { return (2 * mat + cell) * size_c; } ///< mat 0 mass, 1 stiffness
    static constexpr int off_M = 4 * size_c, off_A = off_M + np * np, off_S = off_A + np * np;
    /// The A fragments of all tiles in lane order (fragment f, lane l at 32 f + l), followed
    /// by the eigenvalues: phase 0 copies them to shared memory, where each phase finds its
    /// fragments by one conflict-free load per lane. Fragment numbers: the cells' tiles
    /// (mat, cell, mt, s), then Sᵀ (rows coefficients) and S (rows nodes), each in 16 rows
    /// zero beyond ni (k step s, rows 8h..8h+7).
    static constexpr int frag_cell(int mat, int c, int mt, int s) { return ((2 * mat + c) * MTc + mt) * KSc + s; }
    static constexpr int frag_Sf = 4 * MTc * KSc, frag_Sb = frag_Sf + 2 * KSd, n_frag = frag_Sb + 2 * KSd;
    static constexpr int n_fast   = 32 * n_frag + ni; ///< fragments and eigenvalues, the shared copy
    static constexpr int off_frag = off_S + ni * ni, n_matrix_entries = off_frag + n_fast;


    /// shared memory: the fragments and eigenvalues (doubles), then regions A and B
    static constexpr std::size_t offset_a               = a16(std::size_t(n_fast) * sizeof(double));
    static constexpr std::size_t offset_b               = offset_a + a16(std::size_t(region_a) * sizeof(Number));
    static constexpr std::size_t shared_bytes_per_patch = offset_b + a16(std::size_t(region_b) * sizeof(Number));

    /// Launch bounds: as many resident blocks as the shared memory of an sm_90 SM (228 KiB,
    /// 1 KiB reserved per block) holds, at 128 registers a thread or more (fewer spilled at
    /// k = 4..6); unbounded the compiler took up to 138 registers, one block of 8 warps per SM
    /// at k = 7 (runner.h)
    static constexpr int blocks_by_shared  = int((228 * 1024) / (shared_bytes_per_patch + 1024));
    static constexpr int resident_blocks   = cmin(cmin(blocks_by_shared, 512 / threads_per_patch), 32);
    static constexpr int min_blocks_per_sm = resident_blocks > 1 ? resident_blocks : 0;

    struct Registers
    {
      index_t first;  ///< global index of the patch's first node
      Number  centre; ///< x at the patch centre (the residual reads x - centre, as the fiber kernels)
    };

    // arguments
    PatchColorGeometry geo;
    Number            *x;
    const Number      *b;
    Number             coef[3];
    const double      *mats; ///< the matrix table (mma_patch_matrices, on the launch's backend)

    std::size_t shared_bytes() const { return shared_bytes_per_patch; }
    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned(geo.n_patches);
      s.block        = Dim3{unsigned(threads_per_patch), 1, 1};
      s.shared_bytes = shared_bytes();
      return s;
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      const int     tid   = int(ctx.thread.x);
      const index_t patch = index_t(ctx.block.x);
      const int     w     = tid >> 5;
      const MmaLane L{tid & 31};
      double       *FS = sh.template array<double>(0);
      Number       *RA = sh.template array<Number>(offset_a), *RB = sh.template array<Number>(offset_b);
      if constexpr (phase == 0)
        {
          // x of the patch into X, the fragments and eigenvalues into FS: all loads of a
          // thread issued before its first store
          reg.first        = geo.first_index(patch);
          reg.centre       = x[reg.first + geo.offset(k, k, k)];
          constexpr int nx = np * np * np, per_x = (nx + threads_per_patch - 1) / threads_per_patch;
          constexpr int per_f = (n_fast + threads_per_patch - 1) / threads_per_patch;
          Number        v[per_x];
          double        f[per_f];
          TPMG_UNROLL
          for (int i = 0; i < per_x; ++i)
            {
              const int q = tid + i * threads_per_patch;
              v[i]        = q < nx ? x[reg.first + geo.offset(q % np, (q / np) % np, q / (np * np))] : Number(0);
            }
          TPMG_UNROLL
          for (int i = 0; i < per_f; ++i)
            {
              const int q = tid + i * threads_per_patch;
              f[i]        = q < n_fast ? mats[off_frag + q] : 0.0;
            }
          TPMG_UNROLL
          for (int i = 0; i < per_x; ++i)
            {
              const int q = tid + i * threads_per_patch;
              if (q < nx)
                RA[q % (np * np) + SX * (q / (np * np))] = v[i]; // (x, y) = q % np², z = q / np²
            }
          TPMG_UNROLL
          for (int i = 0; i < per_f; ++i)
            {
              const int q = tid + i * threads_per_patch;
              if (q < n_fast)
                FS[q] = f[i];
            }
          return;
        }
      const index_t first  = reg.first;
      const Number  centre = reg.centre;
      // Each stage reads fiber n of its input at n + S_in j (the layouts above); where(n) gives
      // what the epilogue needs of output fiber n, once per tile and lane entry: the word
      // offset o of its node 0 in the output tensor, whose nodes i then lie at o + S_out i.
      auto at          = [](int o) { return Where{o, 0.0}; };
      auto no_prefetch = [](const Where &, int) { return 0.0; };
      if constexpr (phase == 1) // z: T_m = M_z X, T_a = A_z X; fibers (x, y) -> T, read by fibers (x, zi)
        residual_products<np * np, SX, 1, true>(
          FS, w, L, {{0}, {1}}, {{1.0}, {1.0}}, {RA}, centre,
          [&](unsigned n) { return at(int(n % np + ST * (n / np))); }, no_prefetch,
          [&](const Where &o, int i, const double(&v)[2], double) {
            RB[o.offset + np * i]          = Number(v[0]);
            RB[size_T + o.offset + np * i] = Number(v[1]);
          });
      else if constexpr (phase == 2) // y: U1 = M_y T_m, U2 = c_y A_y T_m + c_z M_y T_a; fibers (x, zi) -> U
        residual_products<np * ni, ST, 2, false>(
          FS, w, L, {{0, -1}, {1, 0}}, {{1.0, 0.0}, {double(coef[1]), double(coef[2])}}, {RB, RB + size_T}, centre,
          [&](unsigned n) { return at(int(ni * (n / np) + SU * (n % np))); }, no_prefetch,
          [&](const Where &o, int i, const double(&v)[2], double) {
            RA[o.offset + i]          = Number(v[0]);
            RA[size_U + o.offset + i] = Number(v[1]);
          });
      else if constexpr (phase == 3) // x: r = b - (c_x A_x U1 + M_x U2); fibers (yi, zi) -> r, same fibers
        residual_products<ni * ni, SU, 2, false>(
          FS, w, L, {{1, 0}, {-1, -1}}, {{double(coef[0]), 1.0}, {0.0, 0.0}}, {RA, RA + size_U}, centre,
          [&](unsigned n) {
            return Where{int(n), double(0), first + geo.offset(1, n % ni + 1, n / ni + 1)};
          },
          [&](const Where &o, int i) { return double(b[o.global + i]); },
          [&](const Where &o, int i, const double(&v)[2], double bi) { RB[o.offset + SF * i] = Number(bi - v[0]); });
      else if constexpr (phase == 4) // Sᵀ_x; fibers (yi, zi) -> V1, read by fibers (a, zi)
        eigen_products<false>(
          FS, w, L, RB, [&](unsigned n) { return at(int(ni * (n / ni) + SF * (n % ni))); },
          [&](const Where &o, int a, double v) { RA[o.offset + a] = Number(v); });
      else if constexpr (phase == 5) // Sᵀ_y; fibers (a, zi) -> V2, read by fibers (a, b)
        eigen_products<false>(
          FS, w, L, RA, [&](unsigned n) { return at(int(n % ni + SF * (n / ni))); },
          [&](const Where &o, int c, double v) { RB[o.offset + ni * c] = Number(v); });
      else if constexpr (phase == 6) // Sᵀ_z and the eigenvalue sums; fibers (a, b) -> W1, same fibers
        {
          const double *lambda = FS + 32 * n_frag;
          eigen_products<false>(
            FS, w, L, RB,
            [&](unsigned n) {
              return Where{int(n), double(coef[0]) * lambda[n % ni] + double(coef[1]) * lambda[n / ni]};
            },
            [&](const Where &o, int c, double v) {
              RA[o.offset + SF * c] = Number(v / (o.base + double(coef[2]) * lambda[c]));
            });
        }
      else if constexpr (phase == 7) // S_z; fibers (a, b) -> W2, read by fibers (a, zi)
        eigen_products<true>(
          FS, w, L, RA, [&](unsigned n) { return at(int(n % ni + SF * (n / ni))); },
          [&](const Where &o, int z, double v) { RB[o.offset + ni * z] = Number(v); });
      else if constexpr (phase == 8) // S_y; fibers (a, zi) -> W3, read by fibers (yi, zi)
        eigen_products<true>(
          FS, w, L, RB, [&](unsigned n) { return at(int(ni * (n / ni) + SF * (n % ni))); },
          [&](const Where &o, int y, double v) { RA[o.offset + y] = Number(v); });
      else // S_x and the update; fibers (yi, zi)
        eigen_products<true>(
          FS, w, L, RA,
          [&](unsigned n) {
            return Where{0, 0.0, first + geo.offset(1, n % ni + 1, n / ni + 1)};
          },
          [&](const Where &o, int i, double v) { exclusive_add(x + o.global + i, Number(v)); });
    }

    /// What an epilogue needs of an output fiber (stage_products: where(n)).
    struct Where
    {
      int     offset;     ///< word offset of the fiber's node 0 in the output tensor
      double  base;       ///< Sᵀ_z: the fiber's part of the eigenvalue sums
      index_t global = 0; ///< global index of the fiber's interior node 0 (x-stage, update)
    };

    // ------------------------------------------------------------------- tile loops
    /// body(q, t) for the tiles t = w + q warps of a stage of `fibers` fibers
    template <int fibers>
    static constexpr int tiles_per_warp = (tiles(fibers) + warps - 1) / warps;
    template <int fibers, class Body>
    static TPMG_HD TPMG_FORCEINLINE void for_tiles(int w, Body body)
    {
      TPMG_UNROLL
      for (int q = 0; q < tiles_per_warp<fibers>; ++q)
        {
          const int t = w + q * warps;
          if (t < tiles(fibers))
            body(q, t);
        }
    }

    /// body(e, n, where(n)) for the lane's output columns n = 8 t + c_col(e) of tile t that are
    /// fibers of the stage
    template <int fibers, class WhereOf, class Body>
    static TPMG_HD TPMG_FORCEINLINE void for_lane_fibers(int t, MmaLane L, WhereOf where, Body body)
    {
      TPMG_UNROLL
      for (int e = 0; e < 2; ++e)
        {
          const unsigned n = unsigned(8 * t + L.c_col(e));
          if (n < unsigned(fibers))
            body(e, int(n), where(n));
        }
    }

    /// The lane's entry of A fragment f (its shared copy).
    static TPMG_HD TPMG_FORCEINLINE double fragment(const double *FS, int f, MmaLane L) { return FS[32 * f + L.lane]; }

#if TPMG_DEVICE_CODE
    /// A lane's A fragments of a residual stage, a[h][q][c][mt][s]: cell c's matrix mat[h][q]
    /// scaled by scale[h][q], zero where there is no product (mat[h][q] < 0).
    template <int n_in>
    static __device__ TPMG_FORCEINLINE void scaled_fragments(const double *FS, MmaLane L, const int (&mat)[2][n_in],
                                                             const double (&scale)[2][n_in],
                                                             double (&a)[2][n_in][2][MTc][KSc])
    {
      TPMG_UNROLL
      for (int h = 0; h < 2; ++h)
        {
          TPMG_UNROLL
          for (int q = 0; q < n_in; ++q)
            {
              TPMG_UNROLL
              for (int c = 0; c < 2; ++c)
                {
                  TPMG_UNROLL
                  for (int mt = 0; mt < MTc; ++mt)
                    {
                      TPMG_UNROLL
                      for (int s = 0; s < KSc; ++s)
                        a[h][q][c][mt][s] =
                          mat[h][q] < 0
                            ? 0.0
                            : scale[h][q] * fragment(FS, frag_cell(mat[h][q] < 0 ? 0 : mat[h][q], c, mt, s), L);
                    }
                }
            }
        }
    }

    /// The patch's middle row, which both cells' tiles hold a part of: cell 0's half (row k % 8
    /// of m-tile k / 8) added onto cell 1's (row 0 of m-tile 0, lanes 0..3); for k = 8 both sit
    /// in lanes 0..3. acc[c][mt][h][e] as in residual_products.
    static __device__ TPMG_FORCEINLINE void add_middle_row(double (&acc)[2][MTc][2][2], MmaLane L)
    {
      TPMG_UNROLL
      for (int h = 0; h < 2; ++h)
        {
          TPMG_UNROLL
          for (int e = 0; e < 2; ++e)
            {
              const double v = k % 8 == 0 ? acc[0][k / 8][h][e]
                                          : __shfl_sync(0xffffffffu, acc[0][0][h][e], 4 * (k % 8) + (L.lane & 3));
              if (L.lane < 4)
                acc[1][0][h][e] += v;
            }
        }
    }
#endif

    /// Residual stage along one direction (np nodes in, the ni interior rows out): two outputs
    /// v_h = Σ_q scale[h][q] Mat_{mat[h][q]} In_q (mat 0 mass, 1 stiffness, -1 none), and
    /// epi(where(n), i, v, pre(where(n), i)) for fiber n and interior row i. Input q holds node
    /// j of fiber n at IN[q][n + S_in j] (minus `centre` where `centred`); pre is a global value
    /// the epilogue needs, loaded for all the warp's tiles before the first product. On the GPU
    /// the two outputs are the upper and lower 8 rows of 16×8×8 tile products, the inputs one
    /// after the other along k.
    template <int fibers, int S_in, int n_in, bool centred, class WhereOf, class Pre, class Epi>
    TPMG_HD TPMG_FORCEINLINE void residual_products(const double *FS, int w, MmaLane L, const int (&mat)[2][n_in],
                                                    const double (&scale)[2][n_in], const Number *const (&IN)[n_in],
                                                    Number centre, WhereOf where, Pre pre, Epi epi) const
    {
      // a lane's output slots: cell c, m-tile mt, entry e -> patch row r, stored where the
      // cell owns it (cell 0 rows 1..k-1, cell 1 rows k..2k-1; the middle row k is the sum)
      auto row    = [&](int c, int mt) { return c * k + 8 * mt + L.a_row(); };
      auto stores = [](int c, int r) { return c == 0 ? (r >= 1 && r <= k - 1) : (r >= k && r <= 2 * k - 1); };
      auto value  = [&](int q, int off) { return centred ? double(IN[q][off] - centre) : double(IN[q][off]); };
#if TPMG_DEVICE_CODE
      double a[2][n_in][2][MTc][KSc];
      scaled_fragments(FS, L, mat, scale, a);
      // B rows beyond the cell (zero columns of A) read its last node: finite, no predicate
      auto j_of = [&](int c, int s) { return S_in * (c * k + cmin(4 * s + L.a_col(), k)); };
      // (for every entry, a select where the fiber or slot does not exist: as a branch, the
      // compiler spilled at k = 4)
      double early[tiles_per_warp<fibers>][2][MTc][2];
      for_tiles<fibers>(w, [&](int q, int t) {
        TPMG_UNROLL
        for (int e = 0; e < 2; ++e)
          {
            const unsigned n = unsigned(8 * t + L.c_col(e));
            const Where    o = where(n);
            TPMG_UNROLL
            for (int c = 0; c < 2; ++c)
              {
                TPMG_UNROLL
                for (int mt = 0; mt < MTc; ++mt)
                  early[q][c][mt][e] = n < unsigned(fibers) && stores(c, row(c, mt)) ? pre(o, row(c, mt) - 1) : 0.0;
              }
          }
      });
      // columns beyond the stage's fibers read its last fiber; their outputs are not stored
      auto fiber_b = [&](int t) { return cmin(8 * t + L.b_col(), fibers - 1); };
      // the B values of all the warp's tiles loaded ahead, where they fit in 32 doubles, so that
      // their latency overlaps (the compiler does not move a tile's loads above the previous
      // tile's stores)
      constexpr int           tpw   = tiles_per_warp<fibers>;
      constexpr bool          ahead = tpw * n_in * 2 * KSc <= 32;
      [[maybe_unused]] double b_ahead[ahead ? tpw : 1][2][KSc][n_in];
      if constexpr (ahead)
        for_tiles<fibers>(w, [&](int q, int t) {
          TPMG_UNROLL
          for (int c = 0; c < 2; ++c)
            {
              TPMG_UNROLL
              for (int s = 0; s < KSc; ++s)
                {
                  TPMG_UNROLL
                  for (int i = 0; i < n_in; ++i)
                    b_ahead[q][c][s][i] = value(i, fiber_b(t) + j_of(c, s));
                }
            }
        });
      // k steps of 4 over the inputs one after the other, two to an instruction
      constexpr int KT = n_in * KSc, K8 = (KT + 1) / 2;
      for_tiles<fibers>(w, [&](int q, int t) {
        const int nb = fiber_b(t);
        auto      bv = [&](int ks, int c) {
          const int i = ks / KSc, s = ks % KSc;
          if constexpr (ahead)
            return b_ahead[q][c][s][i];
          else
            return value(i, nb + j_of(c, s));
        };
        double acc[2][MTc][2][2] = {}; // [c][mt][h][e]
        TPMG_UNROLL
        for (int c = 0; c < 2; ++c)
          {
            TPMG_UNROLL
            for (int q8 = 0; q8 < K8; ++q8)
              {
                const int    k0 = 2 * q8, k1 = 2 * q8 + 1;
                const double b0 = bv(k0, c), b1 = k1 < KT ? bv(k1 < KT ? k1 : k0, c) : b0;
                TPMG_UNROLL
                for (int mt = 0; mt < MTc; ++mt)
                  {
                    auto af = [&](int h, int ks) { return ks < KT ? a[h][ks / KSc][c][mt][ks % KSc] : 0.0; };
                    mma_16x8x8(acc[c][mt][0][0], acc[c][mt][0][1], acc[c][mt][1][0], acc[c][mt][1][1], af(0, k0),
                               af(1, k0), af(0, k1 < KT ? k1 : KT), af(1, k1 < KT ? k1 : KT), b0, b1);
                  }
              }
          }
        add_middle_row(acc, L);
        for_lane_fibers<fibers>(t, L, where, [&](int e, int, const Where &o) {
          TPMG_UNROLL
          for (int c = 0; c < 2; ++c)
            {
              TPMG_UNROLL
              for (int mt = 0; mt < MTc; ++mt)
                if (stores(c, row(c, mt)))
                  {
                    const double v[2] = {acc[c][mt][0][e], acc[c][mt][1][e]};
                    epi(o, row(c, mt) - 1, v, early[q][c][mt][e]);
                  }
            }
        });
      });
#else
      (void)FS; // the CPU runner takes the full patch matrices
      for_tiles<fibers>(w, [&](int, int t) {
        for_lane_fibers<fibers>(t, L, where, [&](int, int n, const Where &o) {
          for (int c = 0; c < 2; ++c)
            for (int mt = 0; mt < MTc; ++mt)
              if (stores(c, row(c, mt)))
                {
                  const int r    = row(c, mt);
                  double    v[2] = {};
                  for (int h = 0; h < 2; ++h)
                    for (int q = 0; q < n_in; ++q)
                      if (mat[h][q] >= 0)
                        for (int j = 0; j < np; ++j)
                          v[h] +=
                            scale[h][q] * mats[(mat[h][q] == 0 ? off_M : off_A) + r * np + j] * value(q, n + S_in * j);
                  epi(o, r - 1, v, pre(o, r - 1));
                }
        });
      });
#endif
    }

    /// Eigenvector stage on the ni² fibers of ni nodes, node j of fiber n at IN[n + SF j]:
    /// out = Sᵀ in (coefficients) or, `backward`, out = S in; epi(where(n), i, value) for fiber
    /// n and output index i. One 16-row tile holds all ni outputs (rows g and g + 8 of lane g).
    template <bool backward, class WhereOf, class Epi>
    TPMG_HD TPMG_FORCEINLINE void eigen_products(const double *FS, int w, MmaLane L, const Number *IN, WhereOf where,
                                                 Epi epi) const
    {
      constexpr int fibers = ni * ni;
#if TPMG_DEVICE_CODE
      double a[KSd][2];
      TPMG_UNROLL
      for (int s = 0; s < KSd; ++s)
        {
          TPMG_UNROLL
          for (int h = 0; h < 2; ++h)
            a[s][h] = fragment(FS, (backward ? frag_Sb : frag_Sf) + 2 * s + h, L);
        }
      // the B values of all the warp's tiles, loaded ahead (as in residual_products); rows
      // beyond ni read the last node (zero columns of A), columns beyond the fibers the last
      // fiber: no predicates
      double bv[tiles_per_warp<fibers>][KSd];
      for_tiles<fibers>(w, [&](int q, int t) {
        const int nb = cmin(8 * t + L.b_col(), fibers - 1);
        TPMG_UNROLL
        for (int s = 0; s < KSd; ++s)
          bv[q][s] = double(IN[nb + SF * cmin(4 * s + L.a_col(), ni - 1)]);
      });
      for_tiles<fibers>(w, [&](int q, int t) {
        double c[2][2] = {}; // [h][e]: row 8h + g, column 2t + e
        TPMG_UNROLL
        for (int s = 0; s < KSd; s += 2)
          {
            // two k steps to an instruction; an odd last one pairs with zero A
            const int    s1 = s + 1 < KSd ? s + 1 : s;
            const double z  = s + 1 < KSd ? 1.0 : 0.0;
            mma_16x8x8(c[0][0], c[0][1], c[1][0], c[1][1], a[s][0], a[s][1], z * a[s1][0], z * a[s1][1], bv[q][s],
                       bv[q][s1]);
          }
        for_lane_fibers<fibers>(t, L, where, [&](int e, int, const Where &o) {
          TPMG_UNROLL
          for (int h = 0; h < 2; ++h)
            if (8 * h + L.a_row() < ni)
              epi(o, 8 * h + L.a_row(), c[h][e]);
        });
      });
#else
      (void)FS; // the CPU runner takes the full eigenvectors
      auto S = [&](int i, int c) { return mats[off_S + i * ni + c]; };
      for_tiles<fibers>(w, [&](int, int t) {
        for_lane_fibers<fibers>(t, L, where, [&](int, int n, const Where &o) {
          for (int h = 0; h < 2; ++h)
            {
              const int r = 8 * h + L.a_row();
              if (r >= ni)
                continue;
              double v = 0;
              for (int j = 0; j < ni; ++j)
                v += (backward ? S(r, j) : S(j, r)) * double(IN[n + SF * j]);
              epi(o, r, v);
            }
        });
      });
#endif
    }
  };
} // namespace tpmg
