// Vertex-patch smoother kernels with register-tiled 1D contractions ("fiber" kernels) for
// the optimizations `linear_indexing`, `conflict_free` and `boundary` (DESIGN.md §5).
//
// Each stage contracts along one direction: thread l = p + P f of a block owns fiber f of
// patch p (the f-th line of nodes along that direction; for `linear_indexing` at 3D float
// k = 2 also fiber f + T, see threads_per_patch), loads the whole fiber into registers, and
// produces every output of that fiber with all loop indices known at compile time. So the 1D
// matrices, compile-time constants (the generated tpmg/patch_data_table.h), reach the FMAs as
// immediate operands (float; a DFMA takes no 64-bit immediate, so in double ptxas materializes
// each entry in a uniform register by UMOVs, about one per DFMA, and the eigenvectors come from
// the __constant__ bank instead: FiberPatchKernel::S_in_bank), and each shared-memory load feeds
// 2k-1 (or 2k+1) FMAs instead of one.
// Threads map linearly onto the fibers a stage has (no idle boundary threads), zero entries of
// the 1D patch matrices (nodes in different cells; the off-diagonal lumped masses) are
// skipped at compile time, and the eigenvectors are applied by parity (ParityColumns,
// tensor.h: about half the FMAs of a dense product).
//
// Stages, 3D (2D drops z): load x | z: T = M_z X, A_z X | y: U | x: r = b - Ā x, Sᵀ_x |
// Sᵀ_y | z: Sᵀ_z, divide by eigenvalue sums, S_z | S_y | S_x, update x.
// `conflict_free` and `boundary` pad the shared layouts (patch_layout.h) so that no
// access has a bank conflict; `boundary` computes the reduced residual b_I - A_IB x_B
// (x_I taken as zero, eqs. 16-17 of the paper) and assigns x_I = A_j^{-1} r instead of
// adding, so the old interior values are never loaded.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/smoothers/patch_common.h>
#include <kernels/smoothers/patch_layout.h>
#include <kernels/smoothers/patch_basic.h>

#include <tpmg/patch_data_table.h>
#include <tpmg/patch_smoother.h>

#include <array>
#include <stdexcept>
#include <type_traits>
#include <vector>

// The update x_I += c of the solve kind and of the in-place kernels, which re-read the old x
// from global memory, by exclusive_add (FiberPatchKernel::exclusive_update): -1 the measured
// rule, 0 or 1 never or always (A/B runs).
#ifndef TPMG_PATCH_EXCLUSIVE_ADD
#define TPMG_PATCH_EXCLUSIVE_ADD -1
#endif

// Build knob for the A/B of NOTES §4: the float eigenvalue division of stage_turn as an
// approximate one (FiberPatchKernel::divide) or the IEEE one.
#ifndef TPMG_FAST_EIGENVALUE_DIVISION
#define TPMG_FAST_EIGENVALUE_DIVISION 1
#endif

// Build knob for the memory floor of NOTES §4 ("What the memory traffic allows"): 1 turns
// the fused kernels into their memory skeleton, which loads the patch (phase 0) and adds b_I
// to x_I in the last phase, with the same layouts, launch shape and update, and computes
// nothing. Its time bounds the fused kernel's from below whatever the arithmetic costs.
#ifndef TPMG_SMOOTHER_MEMORY_SKELETON
#define TPMG_SMOOTHER_MEMORY_SKELETON 0
#endif

// Build knob for A/B runs: the resident blocks the launch bounds of the in-place kernels with one
// patch of more than 256 threads ask for (FiberPatchKernel::resident_blocks): -1 the rule, 0
// none (the compiler's choice of registers).
#ifndef TPMG_FIBER_MIN_BLOCKS
#define TPMG_FIBER_MIN_BLOCKS -1
#endif

// Build knob for A/B runs: the resident blocks the launch bounds of the 3D fused kernels of
// 129..256 threads per patch (k = 6, 7) ask for (FiberPatchKernel::resident_blocks): -1 the
// measured rule, 0 none, m > 0 one patch per block and m blocks.
#ifndef TPMG_FIBER_RESIDENT_BLOCKS
#define TPMG_FIBER_RESIDENT_BLOCKS -1
#endif
// and the patches per block of those float kernels (FiberPatchKernel::resident_patches): -1 the
// measured rule, P > 0 P patches (A/B runs)
#ifndef TPMG_FIBER_RESIDENT_PATCHES
#define TPMG_FIBER_RESIDENT_PATCHES -1
#endif

// Build knob for A/B runs: 1 (the default) pads the planes of the in-place patch cube where that
// was measured faster, 0 keeps the plain cube
// (FiberPatchKernel::cube_plane_stride).
#ifndef TPMG_FIBER_CUBE_PADDING
#define TPMG_FIBER_CUBE_PADDING 1
#endif
// For the stride sweep (benchmarks/cube_stride_sweep.sh): S > 0 gives every in-place cube the
// plane stride S.
#ifndef TPMG_FIBER_CUBE_PLANE_STRIDE
#define TPMG_FIBER_CUBE_PLANE_STRIDE 0
#endif
// and R > 0 the row stride R (np otherwise)
#ifndef TPMG_FIBER_CUBE_ROW_STRIDE
#define TPMG_FIBER_CUBE_ROW_STRIDE 0
#endif

// Build knob for A/B runs: 1 puts the fiber kernels' 1D data in the __constant__ bank (operands
// loaded from it) instead of compile-time constants (immediate operands).
#ifndef TPMG_FIBER_CONSTANT_BANK
#define TPMG_FIBER_CONSTANT_BANK 0
#endif

// Build knob for A/B runs: where the eigenvectors S come from (FiberPatchKernel::S_in_bank): -1
// the measured rule, 0 compile-time constants, 1 the __constant__ bank.
#ifndef TPMG_FIBER_S_IN_BANK
#define TPMG_FIBER_S_IN_BANK -1
#endif

// Build knob for A/B runs: b loaded one phase ahead of the residual's x-stage
// (FiberPatchKernel::prefetch_b): -1 the measured rule, 0 never, 1 always.
#ifndef TPMG_FIBER_PREFETCH_B
#define TPMG_FIBER_PREFETCH_B -1
#endif

// Build knob for A/B runs: the unpadded 3D stages in place (FiberPatchKernel::in_place_layout):
// -1 the measured rule, 0 never, 1 always.
#ifndef TPMG_FIBER_IN_PLACE
#define TPMG_FIBER_IN_PLACE -1
#endif

// Build knob for A/B runs: stage_turn multiplies by the reciprocals of the eigenvalue sums from
// a per-level table (FiberPatchKernel::inverse_sums_table) instead of dividing: -1 the measured
// rule, 0 never, 1 always.
#ifndef TPMG_FIBER_INVERSE_SUMS
#define TPMG_FIBER_INVERSE_SUMS -1
#endif
// and, by the rule, how many of the ni entries of a fiber still divide at 3D double k >= 7
#ifndef TPMG_FIBER_INVERSE_SUMS_DIVIDED
#define TPMG_FIBER_INVERSE_SUMS_DIVIDED 1
#endif

#ifndef TPMG_FIBERS_PER_THREAD
#define TPMG_FIBERS_PER_THREAD 0 // automatic (FiberPatchKernel::threads_per_patch)
#endif

namespace tpmg
{
  /// The 1D data of the fiber kernels of degree k.
  template <int k, typename Number>
  struct FiberConstants
  {
    SmallMatrix<Number, 2 * k + 1, 2 * k + 1> M, A; ///< patch mass and stiffness, reference width
    ParityColumns<Number, 2 * k - 1>          S;    ///< eigenvectors (even, then odd), Sᵀ M S = I
    Number                                    lambda[2 * k - 1];
  };

  /// The 1D data of degree k from the generated table, converted to Number at compile time
  /// (the conversion a run-time copy would make, so the values are the same).
  template <int k, typename Number, bool lumped_mass>
  constexpr FiberConstants<k, Number> fiber_constants_from_table()
  {
    static_assert(k >= 1 && k <= patch_data_table::max_degree, "degree outside the generated table");
    using E          = patch_data_table::Entries<k, lumped_mass>;
    constexpr int np = 2 * k + 1, ni = 2 * k - 1;
    FiberConstants<k, Number> c{};
    for (int i = 0; i < np * np; ++i)
      {
        c.M.v[i] = Number(E::mass[i]);
        c.A.v[i] = Number(E::stiffness[i]);
      }
    c.S = ParityColumns<Number, ni>::from([](int i, int a) { return E::eigenvectors[i * ni + a]; });
    for (int i = 0; i < ni; ++i)
      c.lambda[i] = Number(E::eigenvalues[i]);
    return c;
  }
  /// One object per degree, precision and mass in each compilation (device code reads only
  /// __device__ variables; their constexpr entries fold into the instructions). The two
  /// declarations differ between the device and the host pass of nvcc, which CUDA allows only
  /// because host code never refers to the __device__ one: FiberPatchKernel::C() picks by
  /// TPMG_DEVICE_CODE, and nothing takes these variables' addresses on the host.
#if TPMG_DEVICE_CODE
  template <int k, typename Number, bool lumped_mass>
  __device__ constexpr FiberConstants<k, Number> fiber_constants = fiber_constants_from_table<k, Number, lumped_mass>();
#else
  template <int k, typename Number, bool lumped_mass>
  constexpr FiberConstants<k, Number> fiber_constants = fiber_constants_from_table<k, Number, lumped_mass>();
#endif
#if defined(__CUDACC__)
  /// the same in the __constant__ bank, initialized when the module loads: the compiler cannot
  /// fold these, so they reach the FMAs as constant-bank operands (FiberPatchKernel::C)
  template <int k, typename Number, bool lumped_mass>
  __constant__ FiberConstants<k, Number> fiber_constants_bank = fiber_constants_from_table<k, Number, lumped_mass>();
#endif

  /// `lumped_mass`: the 1D masses of the patch problems are the GLL-lumped ones (with the bp5
  /// level operator), diagonal per cell, whose zeros the contractions skip.
  template <int dim, int k, typename Number, PatchKernelKind kind, KernelOptimization opt, bool lumped_mass = false>
  struct FiberPatchKernel
  {
    static_assert(opt != KernelOptimization::basic, "basic is PatchKernel");
    static constexpr bool padded  = opt != KernelOptimization::linear_indexing;
    static constexpr bool reduced = opt == KernelOptimization::boundary;
    static constexpr int  np = 2 * k + 1, ni = 2 * k - 1;
    /// Threads per patch (stages, below): one per fiber of the widest stage (np² in 3D), or
    /// half that (two fibers per thread). Measured on the H100 (NOTES §4, "Eigenvectors by
    /// parity, fibers per thread"): two fibers per thread win only at 3D float k = 2 (+13-22%)
    /// and lose 5-50% from k = 3 on (fewer warps to hide the shared-memory latency; double
    /// spills under the 128-register bound). Only the unpadded layout takes them: the padded
    /// layouts are conflict-free for aligned windows of consecutive fibers (patch_layout.h),
    /// and the second fibers f + T of a warp are not aligned. The build knob
    /// TPMG_FIBERS_PER_THREAD = 1 or 2 forces either (A/B runs).
    static constexpr int widest            = dim == 3 ? np * np : np;
    static constexpr int fibers_per_thread = TPMG_FIBERS_PER_THREAD > 0 ? TPMG_FIBERS_PER_THREAD
                                             : dim == 3 && k == 2 && sizeof(Number) == 4 && !padded ? 2
                                                                                                    : 1;
    static_assert(fibers_per_thread == 1 || fibers_per_thread == 2, "TPMG_FIBERS_PER_THREAD: 1 or 2");
    static constexpr int threads_per_patch = (widest + fibers_per_thread - 1) / fibers_per_thread;
    /// The stages work in place (below) for unpadded 3D layouts, double at every degree, float at
    /// k = 5..7, and the fused float kernels from k = 4: measured on the H100 (NOTES §4, "In
    /// place"), float lost 2-4% at k = 2..4 and 9-16% at k = 8 in the ninth session (no gain in
    /// resident blocks, the old x re-read from global memory); the fused kernels re-measured in
    /// the nineteenth, after the exclusive update (no re-read) and the 32-bit addressing (float
    /// k = 4 32 registers): float k = 4 +7%, k = 8 +18%, k = 3 +1%, k = 2 -2%. The separate
    /// kernels at float k = 4, 8 were not re-measured and keep their separate tensors.
    static constexpr bool in_place_layout =
      dim == 3 && !padded &&
      (TPMG_FIBER_IN_PLACE >= 0 ? TPMG_FIBER_IN_PLACE == 1
                                : sizeof(Number) == 8 || (k >= 5 && k <= 7) ||
                                    (kind == PatchKernelKind::fused && (k == 4 || k == 8)));
    /// Launch bounds (runner.h): the resident blocks per SM they ask for, which caps the
    /// registers at 65536 / (m · 32 ⌈threads / 32⌉), with one patch per block; where none, blocks
    /// of at most 512 threads (128 registers). Measured on the H100:
    /// - the in-place kernels of one patch of more than 256 threads (double k = 8, 289 threads)
    ///   ask for the two blocks their shared memory allows (two cubes, 79 KiB): 96 registers;
    ///   uncapped they took 100, which left one block of 10 warps per SM (NOTES §4, "In place");
    /// - 3D fused `linear_indexing` k = 7 (NOTES §4, eighteenth session): double 3 blocks (98 ->
    ///   80 registers, 24 bytes of spills) +13%; float one patch per block +6% over two, and 5
    ///   blocks (56 -> 48 registers) +11% (6 blocks, 40 registers: the same). Double k = 6 (4
    ///   blocks of its own at 71 registers) lost 4% with 5 blocks and 26% with 6.
    /// - 3D fused `linear_indexing` float k = 6 (one patch per block, its measured P): 8 blocks,
    ///   which keep it at the 40 registers it had before the pointer chains of NodeLine (56
    ///   without the bound: 6 blocks, -3.5%; NOTES §4, twenty-second session).
    /// - float k = 7 since the twenty-second session: two patches per block (`resident_patches`)
    ///   and 3 blocks (40 registers, 4 bytes of spills; 45 warps per SM against 5 × 8): the two
    ///   patches' fibers share warps (169 fibers filled 5.3 of the 6 warps of the stages after the
    ///   residual, the eighth warp of the first two held one lane). Measured +2% and +1.2% over
    ///   5 blocks of one patch (two calls).
    static constexpr bool one_big_patch = in_place_layout && threads_per_patch > 256;
    static constexpr bool fused_3d_li   = dim == 3 && kind == PatchKernelKind::fused && !padded;
    static constexpr int  resident_blocks =
      one_big_patch                    ? (TPMG_FIBER_MIN_BLOCKS >= 0 ? TPMG_FIBER_MIN_BLOCKS : 2)
      : TPMG_FIBER_RESIDENT_BLOCKS < 0 ? (!fused_3d_li ? 0
                                          : k == 7     ? 3
                                          : k == 6     ? (sizeof(Number) == 8 ? 0 : 8)
                                                       : 0)
      : dim == 3 && kind == PatchKernelKind::fused && threads_per_patch > 128 && threads_per_patch <= 256
        ? TPMG_FIBER_RESIDENT_BLOCKS
        : 0;
    static constexpr int resident_patches =
      !(resident_blocks > 0 && !one_big_patch && sizeof(Number) == 4) ? 1
      : TPMG_FIBER_RESIDENT_PATCHES > 0                               ? TPMG_FIBER_RESIDENT_PATCHES
      : fused_3d_li && k == 7                                         ? 2
                                                                      : 1;
    static constexpr int max_block_threads =
      resident_blocks > 0 || one_big_patch ? threads_per_patch * resident_patches : 512;
    static constexpr int max_threads_per_block = cmax(threads_per_patch, max_block_threads);
    static constexpr int min_blocks_per_sm     = resident_blocks;
    static constexpr int max_patches_per_block = cmax(1, max_block_threads / threads_per_patch);
    /// Words between the planes of the in-place patch cube: np² plus a padding that spreads the
    /// fibers of a warp over more banks. The unpadded cube has two-way conflicts in its y- and
    /// x-fiber stages (3D float k = 7: 2.0 wavefronts per shared access, Nsight Compute and the
    /// CPU recorder alike); no stride makes all three directions conflict-free. These strides
    /// (rows still np apart) came from a search over a model of the banks; the CPU recorder's
    /// sweep over np²..np²+48 (benchmarks/cube_stride_sweep.sh) finds none better at float k = 6
    /// and double k = 6 and 2% fewer wavefronts with 232 at float k = 7; against the plain cube
    /// 14% fewer wavefronts at float k = 7, 8% at k = 6, 10% at double k = 6. Measured
    /// on the H100 (NOTES §4, eighteenth session): float k = 7 +4%, k = 6 +1%, double k = 6 +2%;
    /// elsewhere within 1% or slower (double k = 8 -3%), so the plain cube stays there.
    static constexpr int cube_plane_stride_found =
      dim != 3 ? 0
      : sizeof(Number) == 4 ? (k == 6 ? 175 : k == 7 ? 239 : 0)
                            : (k == 6 ? 173 : 0);
    static constexpr int cube_plane_stride = !in_place_layout                  ? 0
                                             : TPMG_FIBER_CUBE_PLANE_STRIDE > 0 ? TPMG_FIBER_CUBE_PLANE_STRIDE
                                             : TPMG_FIBER_CUBE_PADDING         ? cube_plane_stride_found
                                                                               : 0;
    static constexpr int cube_row_stride = in_place_layout ? TPMG_FIBER_CUBE_ROW_STRIDE : 0;
    using L = PatchLayouts<dim, k, padded, max_patches_per_block, in_place_layout, cube_plane_stride, cube_row_stride>;
    /// Kernel direction d is the mesh's direction axis(d). The residual's x-stage (b) and the
    /// update (x) touch global memory by x-fibers, one fiber per thread, so the lanes of a warp
    /// walk neighbouring fibers: with the kernel's x the mesh's x, each lane reads or writes its
    /// own mesh row and every warp access costs 32 L2 sectors (Nsight Compute, NOTES §4, "What
    /// the memory traffic allows"). The unpadded kernels turn the patch so that the lanes of
    /// those stages lie along the mesh's x: kernel x is the mesh's z (2D: y), kernel y the
    /// mesh's x, kernel z the mesh's y. Nothing in shared memory changes; the 1D data are the
    /// same in every direction, the coefficients c_d go with their directions
    /// (make_fiber_kernel). Measured on the H100 (NOTES §4): 3D float k = 4..8 +35-65%, double
    /// k = 4, 5 +20%, 2D k >= 4 +2-43%; at 3D k = 2 (-1%, -4%) and 2D k = 2, 3 (-1% to -14%:
    /// with 8-16 patches per block the lanes were already spread along x over the patches) the
    /// patch stays as it is. The padded layouts keep the mesh's directions: their strides are
    /// searched for the load's lanes along x (patch_layout.h).
    static constexpr bool turned = !padded && k >= (dim == 3 ? 3 : 4);
    static constexpr TPMG_HD int axis(int d) { return !turned ? d : dim == 3 ? (d + 2) % 3 : 1 - d; }
    /// offset from the patch's first node of the node with kernel coordinates (i0, i1, i2)
    TPMG_HD TPMG_FORCEINLINE unsigned node_offset(int i0, int i1, int i2) const
    {
      int m[3] = {0, 0, 0};
      m[axis(0)] = i0;
      m[axis(1)] = i1;
      if constexpr (dim == 3)
        m[axis(2)] = i2;
      return geo.offset32(m[0], m[1], m[2]);
    }
    /// The global nodes of a line of the patch, node t at base + off0 + t·step (unit: step 1,
    /// immediate offsets). In float they are indexed by 64-bit multiples of the step, which
    /// ptxas walks as a chain of pointer increments, one IMAD.WIDE per node; 32-bit offsets
    /// (off0 + t·step, which may wrap, so they cannot be chained) cost an addition and a
    /// widening per node (SASS of 3D float k = 7, NOTES §4, twenty-second session: 41 of about
    /// 1850 instructions per thread, in the load, the residual's b and the update). Measured on
    /// the H100, 3D fused float: k = 4 +7% (40 -> 32 registers), k = 7 +2.3%, k = 3, 8 +1-1.4%;
    /// k = 6 took 56 registers instead of 40 (resident_blocks caps it again). Double was within
    /// 1% at k = 2..7 and lost 2.5% at k = 8, so it keeps the offsets; so do the kernels that
    /// were not measured (2D, the other kinds, the padded layouts).
    static constexpr bool pointer_chain = sizeof(Number) == 4 && fused_3d_li;
    template <typename T, bool unit>
    struct NodeLine
    {
      T       *base;
      unsigned off0, step;
      TPMG_HD TPMG_FORCEINLINE T &operator[](int t) const
      {
        if constexpr (unit)
          return base[off0 + unsigned(t)];
        else if constexpr (pointer_chain)
          return (base + off0)[std::size_t(step) * unsigned(t)];
        else
          return base[off0 + step * unsigned(t)];
      }
    };
    /// the patch nodes along kernel x from node (0, i1, i2): the mesh's z (2D: y) when turned
    template <typename T>
    TPMG_HD TPMG_FORCEINLINE NodeLine<T, !turned> x_line(T *patch, int i1, int i2) const
    {
      return {patch, node_offset(0, i1, i2), geo.node_stride[dim - 1]};
    }
    /// node i + 1 of interior x-fiber fg = (yi, zi) is x_fiber_line(patch, fg)[i + 1]
    template <typename T>
    TPMG_HD TPMG_FORCEINLINE NodeLine<T, !turned> x_fiber_line(T *patch, int fg) const
    {
      return x_line(patch, fg % ni + 1, dim == 3 ? fg / ni + 1 : 0);
    }

    static constexpr int nzp = L::nzp, nzi = L::nzi;
    /// Where the update re-reads x (solve kind, in place), add by exclusive_add (atomic.h: the
    /// patches of a color have disjoint interiors), which does not wait for the old value, or
    /// by a load and a store. Measured on the H100 (NOTES §4, twelfth session, 3D): from k = 4
    /// the in-place double kernels +14-19%, the solve kind +4-25%, float in place k = 6, 7
    /// +4%, +10%; lost at k = 2, 3 (solve kind -3 to -11%). The fused kernels (in place: 3D
    /// unpadded, double at every degree, float k = 5..7) re-measured after the turn and the
    /// compile-time 1D data (NOTES §4, sixteenth session): exclusive at every degree, float k = 5
    /// +11% (had lost 10% in the twelfth session), double k = 3 +11%, k = 2 +2%; without it from
    /// k = 4 they lose 12-25%.
    static constexpr bool exclusive_update =
      TPMG_PATCH_EXCLUSIVE_ADD >= 0 ? TPMG_PATCH_EXCLUSIVE_ADD == 1 : kind == PatchKernelKind::fused || k >= 4;

    static constexpr int n_phases = kind == PatchKernelKind::residual ? dim + 1
                                    : kind == PatchKernelKind::solve  ? 2 * dim - 1
                                                                      : 3 * dim - 1;

    /// The residual's x-stage reads b on its x-fiber, a wait for global memory in the middle of
    /// the stage (Nsight Compute, NOTES §4, nineteenth session: half the stall samples of that
    /// phase). Thread f owns x-fiber f there and is a thread of the stage before, so it may load
    /// its b at the start of the stage before (registers across one barrier), where the wait
    /// overlaps that stage's work. Measured on the H100 (3D fused `linear_indexing`): double
    /// k = 5 +6% (60 -> 80 registers); everywhere else it lost 1-22% (float k = 5 32 -> 56
    /// registers, half the resident warps), so only double k = 5 of the fused kind takes it.
    static constexpr bool prefetch_b = kind != PatchKernelKind::solve && threads_per_patch >= ni * nzi &&
                                       (TPMG_FIBER_PREFETCH_B >= 0
                                          ? TPMG_FIBER_PREFETCH_B == 1
                                          : kind == PatchKernelKind::fused && dim == 3 && k == 5 && sizeof(Number) == 8);

    /// The local solve divides by the eigenvalue sums c_0 λ_a + c_1 λ_b + c_2 λ_c (stage_turn).
    /// In double the IEEE division is about 19 instructions with a slow-path test per entry
    /// (SASS of double k = 6, NOTES §4, twentieth session), a tenth of the kernel's stall
    /// samples; with the table it is one load and one product: `inverse_sums` holds the
    /// reciprocals, ni^dim values per level (fiber_inverse_eigenvalue_sums), which all patches
    /// read, so they stay in L1. Measured on the H100 (NOTES §4, twentieth session), double 3D:
    /// fused `linear_indexing` k = 2 +20%, k = 3, 4, 6 +4-5%, k = 5 +1%; `conflict_free` and
    /// `boundary` fused k = 2..6 +1-11%, separate k = 2, 3 +6%; k = 7, 8 lost 2% and 5%: at
    /// their register bounds (80, 96) the loads, which ptxas issues ahead, raise the spills from
    /// 20 to 60 and from 12 to 44 bytes; with the last entry of each fiber divided, ptxas
    /// schedules them otherwise and k = 7 has no spills, k = 8 its 12 bytes: +4% and +5% over
    /// dividing them all (`conflict_free` +7%, +5%). 2D double lost up to 8% (k = 2, 3, 6, 9,
    /// 10). So 3D double takes the table (from k = 7 for all but one entry), 2D divides; float
    /// keeps its approximate division (divide: a reciprocal instruction and a product).
    static constexpr int inverse_sums_entries =
      TPMG_FIBER_INVERSE_SUMS >= 0                ? (TPMG_FIBER_INVERSE_SUMS == 1 ? ni : 0)
      : !(sizeof(Number) == 8 && dim == 3) ? 0
      : k <= 6                                    ? ni
                                                  : cmax(ni - TPMG_FIBER_INVERSE_SUMS_DIVIDED, 0);
    static constexpr bool inverse_sums_table = inverse_sums_entries > 0;
    /// entry c n + fg of the table: 1 / (c_0 λ_a + c_1 λ_b + c_2 λ_c) for fiber fg = a + ni b of
    /// stage_turn's n fibers (2D: fg = a, no b) and its entry c
    static TPMG_HD TPMG_FORCEINLINE int inverse_sum_index(int fg, int c)
    {
      return c * (dim == 3 ? ni * ni : ni) + fg;
    }
    /// The eigenvalue sums with the kernel's coefficients c (coef): c_0 λ_a + c_1 λ_b, shared by
    /// the entries of fiber (a, b) of stage_turn (2D: c_0 λ_a), and the sum of its entry e
    static TPMG_HD TPMG_FORCEINLINE Number eigenvalue_sum_base(const Number (&c)[3], int a, int bb)
    {
      return c[0] * C().lambda[a] + (dim == 3 ? c[1] * C().lambda[bb] : Number(0));
    }
    static TPMG_HD TPMG_FORCEINLINE Number eigenvalue_sum(const Number (&c)[3], Number base, int e)
    {
      return base + c[dim - 1] * C().lambda[e];
    }
    /// The kernel's coefficients from the mesh's: kernel direction d is mesh direction axis(d)
    static void kernel_coefficients(const std::array<double, 3> &mesh, Number (&c)[3])
    {
      for (int i = 0; i < 3; ++i)
        c[i] = Number(mesh[i < dim ? axis(i) : i]);
    }

    struct Registers
    {
      index_t first;  ///< global index of the patch's first node, from phase 0 on
      Number  centre; ///< x at the patch centre (subtract_centre_value), loaded in phase 0
      Number  b_x[prefetch_b ? ni : 1]; ///< b on this thread's x-fiber (prefetch_b)
    };

    // arguments
    PatchColorGeometry          geo;
    Number                     *x;
    const Number               *b;
    Number                     *r;
    Number                      coef[3];
    const Number               *inverse_sums; ///< inverse_sums_table: the reciprocals (inverse_sum_index)
    int                         P;      ///< patches per block, a power of two
    int                         P_log2; ///< log2 P (set_patches_per_block sets all four)
    int                         stride[3]; ///< words between the patch slots of region i
    unsigned                    offset[3], bytes; ///< byte offsets of the regions, their total
    /// 1D data: compile-time constants, or with the A/B knob TPMG_FIBER_CONSTANT_BANK on the
    /// GPU the same values from the __constant__ bank
    using Data1D = FiberConstants<k, Number>;
    static constexpr bool data_in_constant_bank = TPMG_FIBER_CONSTANT_BANK == 1;
    static TPMG_HD TPMG_FORCEINLINE const Data1D &C()
    {
#if TPMG_DEVICE_CODE
      if constexpr (data_in_constant_bank)
        return fiber_constants_bank<k, Number, lumped_mass>;
#endif
      return fiber_constants<k, Number, lumped_mass>;
    }
    /// The eigenvectors (the fast diagonalization's six products per fiber) from the __constant__
    /// bank (ULDC.64, one per entry, then DFMA) rather than as compile-time constants: in double
    /// ptxas materializes each constant by two UMOVs (SASS, NOTES §4, seventeenth session: 1143
    /// UMOV for 1068 DFMA per thread at k = 6), while the bank's ULDC.64 loads one double per
    /// instruction, and S (k² + (k-1)² entries, 904 bytes at k = 7) fits the constant cache,
    /// where all the 1D data (4.6 KB at k = 7) missed (sixteenth session). Measured on the
    /// H100, 3D fused double: +1-2% at k = 2..5, +5% k = 6, +7% k = 7, +10% k = 8. Float keeps
    /// immediates (an FFMA takes a 32-bit immediate: no instruction to spare).
    static constexpr bool S_in_bank = TPMG_FIBER_S_IN_BANK >= 0 ? TPMG_FIBER_S_IN_BANK == 1 : sizeof(Number) == 8;
    static TPMG_HD TPMG_FORCEINLINE const ParityColumns<Number, ni> &S()
    {
#if TPMG_DEVICE_CODE
      if constexpr (S_in_bank)
        return fiber_constants_bank<k, Number, lumped_mass>.S;
#endif
      return C().S;
    }
    /// whether M(i, j) is nonzero (the lumped masses are diagonal per cell): from the
    /// compile-time copy, so that the test folds away under either data source
    static TPMG_HD TPMG_FORCEINLINE bool mass_nz(int i, int j)
    {
      return fiber_constants<k, Number, lumped_mass>.M(i, j) != Number(0);
    }

    // Shared memory, padded layouts: regions X, R0, R1 (words per patch, P patch slots
    // patch_stride apart), reused as the stages go: 3D  R0: T_m,T_a -> V1 -> W1,
    // R1: U1,U2 -> V2 -> W2;  2D  R0: V1, R1: U1,U2 -> W. X is read at the last stage only by
    // the fused, non-reduced kernel; otherwise it shares the region that is first written
    // after its last read.
    // In place (`in_place_layout`): the stages work in place (patch_layout.h), on two
    // patch cubes: region X carries x -> T_m -> U1 -> V1 -> ... -> W2, region R0 carries
    // T_a -> U2 (the solve kind needs X only); the update reads the old x from global memory.
    // That halves the shared memory of the padded plan (double k = 8: 79 instead of 131-170
    // KiB), so two blocks fit on an SM where one did.
    static constexpr bool in_place = L::in_place;
    static constexpr bool fused    = kind == PatchKernelKind::fused;
    static constexpr bool with_x   = kind != PatchKernelKind::solve;
    static constexpr int  cap_v    = cmax(L::Vx::size, dim == 3 ? L::Vz::size : 0);
    static constexpr int  cap_r0   = in_place ? (with_x ? L::X::size : 0)
                                     : kind == PatchKernelKind::solve ? cap_v
                                     : dim == 3                     ? cmax(2 * L::T::size, fused ? cap_v : 0)
                                     : fused                        ? cap_v
                                                                    : 0;
    static constexpr int  cap_r1 = in_place ? 0
                                   : kind == PatchKernelKind::solve ? cap_v
                                                                    : cmax(2 * L::U::size, fused ? cap_v : 0);
    /// X has its own region only when the update reads it or the stages work in place; else it
    /// shares the region first written after its last read: R1 in 3D (written by the y-stage),
    /// R0 in 2D (x-stage).
    static constexpr bool x_own    = in_place || (with_x && fused && !reduced);
    static constexpr int  x_region = x_own ? 0 : !with_x ? -1 : dim == 3 ? 2 : 1;
    /// words per patch of region i
    static constexpr TPMG_HD int capacity(int i)
    {
      return i == 0 ? (x_own ? L::X::size : 0)
             : i == 1 ? cmax(cap_r0, x_region == 1 ? L::X::size : 0)
                      : cmax(cap_r1, x_region == 2 ? L::X::size : 0);
    }
    /// where the stages' tensors live: region and word offset in its patch slot
    static constexpr int r_a = in_place ? 0 : 1, r_b = 1, r_c = in_place ? 0 : 2, r_d = in_place ? 1 : 2;
    static constexpr int o_b = in_place ? 0 : L::T::size, o_d = in_place ? 0 : L::U::size;

    static constexpr TPMG_HD std::size_t a16(std::size_t b) { return (b + 15) / 16 * 16; }
    /// Words from one patch's slot of region i to the next's, for P patches per block. The
    /// patches of a block lie one after the other, so a thread's shared addresses are its
    /// patch's base plus compile-time offsets (no index arithmetic per access). A wavefront
    /// serves g = 128 / sizeof(Number) lanes, P patches of m = g/P fibers each; where the
    /// padded layouts give those fibers offsets distinct modulo m (patch_layout.h), a stride
    /// ≡ m (mod 2m) puts patch p at m·(p·odd mod P) modulo g, so no wavefront has a conflict,
    /// even in a partial warp. Unpadded layouts get the same stride (it spreads their patches
    /// over the banks as interleaving would).
    static int patch_stride(int i, int P)
    {
      const int c = capacity(i);
      if (P == 1 || c == 0)
        return c;
      const int m = cmax(1, int(128 / sizeof(Number)) / P);
      return c + ((m - c % (2 * m)) % (2 * m) + 2 * m) % (2 * m);
    }
    /// P and the region layout that depends on it (host side, before a launch).
    void set_patches_per_block(int patches)
    {
      P      = patches;
      P_log2 = 0;
      while ((1 << P_log2) < P)
        ++P_log2;
      std::size_t o = 0;
      for (int i = 0; i < 3; ++i)
        {
          stride[i] = patch_stride(i, P);
          offset[i] = unsigned(o);
          o += a16(std::size_t(stride[i]) * P * sizeof(Number));
        }
      bytes = unsigned(o);
    }
    std::size_t shared_bytes() const { return bytes; }

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((geo.n_patches + P - 1) / P);
      s.block        = Dim3{unsigned(P * threads_per_patch), 1, 1};
      s.shared_bytes = shared_bytes();
      return s;
    }

    /// Patches per block chosen by degree and precision: the most that keep a block at 256
    /// threads or fewer; float patches of more than 128 threads (3D k = 6, 7) go two to a block,
    /// 2D float patches at least 16 to a block. Measured on the H100 over P = 1..16 (NOTES §4,
    /// "Shared addresses as offsets"): 3D double k = 3 and 5 gain 6% and 21% over the former
    /// limit of 192 threads, 3D float k = 7 16% over one patch, 2D float k = 7..10 4-24% with
    /// 16 patches instead of 8; the rest is within 2% of the best P.
    /// The fused 3D `linear_indexing` kernels (turned, 1D data at compile time) take the P
    /// measured for them where it beats the rule (`fused_linear_indexing`; NOTES §4, sixteenth
    /// session, P = 1..8): float k = 4 P = 4 (+10%), k = 6 P = 1 (+3%); double k = 3 P = 8 (+6%),
    /// k = 5 P = 1 (+7%); float k = 5 P = 2 (nineteenth session, P = 1..16 re-measured at every
    /// degree: +10% over the P = 4 of the sixteenth, which the exclusive update and the resident
    /// blocks since then had overtaken; nothing else moved). Double k = 3 went back to the rule's
    /// P = 4 in the twentieth session (with the table of inverse eigenvalue sums: 15.6 against
    /// 15.0 GDoF/s for P = 8). Elsewhere the rule's P is the best or within
    /// 1% of it: float k = 3 P = 4 (23.61 against 23.62 GDoF/s for P = 8, the fifteenth
    /// session's choice); double k = 6 keeps its P = 1 (two patches, the fifteenth session's
    /// choice, lose 27% since the compile-time data raised its registers from 74 to 94).
    /// Measured with the consistent masses; the lumped ones (bp5) take the same P. Where the
    /// launch bounds ask for resident blocks (fused 3D k = 7, float k = 6) the block holds one
    /// patch, float k = 7 two (resident_patches).
    static constexpr int fused_linear_indexing_P = dim != 3 ? 0
                                                   : resident_patches > 1 ? resident_patches
                                                   : sizeof(Number) == 4 ? (k == 4 ? 4 : k == 5 ? 2 : k == 6 ? 1 : 0)
                                                                         : (k == 5 ? 1 : 0);
    static int automatic_patches_per_block(bool fused_linear_indexing = false)
    {
      if (fused_linear_indexing && fused_linear_indexing_P > 0)
        return cmin(fused_linear_indexing_P, max_patches_per_block);
      const int limit = sizeof(Number) == 4 && threads_per_patch > 128 ? 512 : 256;
      int       p     = 1;
      while (2 * p * threads_per_patch <= limit && 2 * p <= max_patches_per_block)
        p *= 2;
      if (dim == 2 && sizeof(Number) == 4)
        while (p < 16 && 2 * p <= max_patches_per_block)
          p *= 2;
      return p;
    }

    // structurally nonzero entries of the 1D patch matrices: row r and column j share a cell
    static constexpr bool nz(int row, int j) { return (row <= k && j <= k) || (row >= k && j >= k); }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      const int     l     = int(ctx.thread.x);
      const int     p     = l & (P - 1);
      const int     f     = l >> P_log2;
      const index_t patch = index_t(ctx.block.x) * P + p;
      if (patch >= geo.n_patches)
        return;
      if constexpr (phase == 0)
        {
          reg.first = geo.first_index(patch);
          // loaded with the patch (phase 0), where the other loads of the phase hide its
          // latency, not in the stage that uses it (a dependent load at the head of a short
          // phase); so placed, the centre subtraction costs 0-3.5% (NOTES §5, twelfth session)
          if constexpr (with_x && !reduced)
            reg.centre = patch_pointer(x, reg.first)[node_offset(k, k, dim == 3 ? k : 0)];
        }
      const index_t first = reg.first;
      // this patch's slot of each region; B follows A, D follows C (in place: A = C = X, B = D)
      auto region = [&](int i) { return sh.template array<Number>(offset[i]) + p * stride[i]; };
      auto BA = region(r_a), BC = region(r_c);
      auto BB = region(r_b) + o_b, BD = region(r_d) + o_d;
      auto BX = region(x_region < 0 ? 0 : x_region);

      if constexpr (TPMG_SMOOTHER_MEMORY_SKELETON && kind == PatchKernelKind::fused)
        {
          if constexpr (phase == 0)
            stage_load(f, first, BX);
          else if constexpr (phase == n_phases - 1)
            stage_skeleton_update(f, first, BX);
        }
      else if constexpr (kind == PatchKernelKind::solve)
        {
          // r -> Sᵀ_x | (3D: Sᵀ_y) | turn | (3D: S_y) | S_x + update
          if constexpr (phase == 0)
            stage_x(f, first, BA, BA, BA, BX, reg.b_x);
          else if constexpr (dim == 3 && phase == 1)
            stage_y<true>(f, BA, BC);
          else if constexpr (phase == dim - 1)
            stage_turn(f, dim == 3 ? BC : BA, dim == 3 ? BA : BC);
          else if constexpr (dim == 3 && phase == 3)
            stage_y<false>(f, BA, BC);
          else
            stage_update(f, first, BC, BX);
        }
      else
        {
          if constexpr (phase == 0)
            stage_load(f, first, BX);
          else if constexpr (dim == 3 && phase == 1)
            stage_z(f, reg.centre, BX, BA, BB);
          else if constexpr (phase == dim - 1)
            {
              if constexpr (prefetch_b)
                if (f < ni * nzi)
                  {
                    const auto bl = x_fiber_line(patch_pointer(b, first), f);
                    TPMG_UNROLL
                    for (int i = 0; i < ni; ++i)
                      reg.b_x[i] = bl[i + 1];
                  }
              stage_y_residual(f, reg.centre, BX, BA, BB, BC, BD);
            }
          else if constexpr (phase == dim)
            stage_x(f, first, BC, BD, BA, BX, reg.b_x);
          else if constexpr (dim == 3 && phase == 4)
            stage_y<true>(f, BA, BC);
          else if constexpr (phase == 2 * dim - 1)
            stage_turn(f, dim == 3 ? BC : BA, dim == 3 ? BA : BC);
          else if constexpr (dim == 3 && phase == 6)
            stage_y<false>(f, BA, BC);
          else
            stage_update(f, first, BC, BX);
        }
    }

    /// a / b for the eigenvalue sums of the local solve: in float on the GPU the approximate
    /// division (a reciprocal instruction and a product, within 2 ulp) instead of the IEEE one
    /// (about 8 instructions and a slow-path test, ni per fiber of stage_turn); the CPU and
    /// double divide exactly.
    static TPMG_HD TPMG_FORCEINLINE Number divide(Number a, Number b)
    {
#if TPMG_DEVICE_CODE
      if constexpr (TPMG_FAST_EIGENVALUE_DIVISION && sizeof(Number) == 4)
        return __fdividef(a, b);
#endif
      return a / b;
    }

    /// out = Sᵀ in (transposed) or S in, on G fibers held in registers; the parity of the
    /// eigenvectors halves the FMAs (ParityColumns).
    template <bool transposed, int G>
    TPMG_HD TPMG_FORCEINLINE void apply_S(const Number (&in)[G][ni], Number (&out)[G][ni]) const
    {
      if constexpr (transposed)
        apply_parity_columns_transposed(S(), in, out);
      else
        apply_parity_columns(S(), in, out);
    }

    // ----------------------------------------------------------------------- stages
    // Thread f of a patch owns the fibers f, f + T, f + 2T, ... (T = threads_per_patch) of a
    // stage of n fibers, groups<n> of them, those from n on masked. The fiber index g is the
    // innermost loop of every contraction, so each 1D matrix entry a thread loads feeds
    // groups<n> FMAs.
    template <int n>
    static constexpr int groups = (n + threads_per_patch - 1) / threads_per_patch;
    static TPMG_HD TPMG_FORCEINLINE int fiber(int f, int g) { return f + g * threads_per_patch; }
    template <int n>
    static TPMG_HD TPMG_FORCEINLINE bool owns(int f, int g) { return g == 0 || fiber(f, g) < n; }

    /// in[g][j] = buf[at(c0, c1, j)] for the fibers of a stage of n fibers this thread owns,
    /// (c0, c1) = (fiber % E, fiber / E) the fiber's coordinates; 0 for the masked ones.
    template <int n, int E, int len, class Buf, class At>
    static TPMG_HD TPMG_FORCEINLINE void load_fibers(int f, Buf buf, At at, Number (&in)[groups<n>][len])
    {
      TPMG_UNROLL
      for (int g = 0; g < groups<n>; ++g)
        {
          const int fg = fiber(f, g);
          TPMG_UNROLL
          for (int j = 0; j < len; ++j)
            in[g][j] = owns<n>(f, g) ? Number(buf[at(fg % E, fg / E, j)]) : Number(0);
        }
    }
    /// buf[at(c0, c1, i)] = out[g][i] for the fibers this thread owns (as load_fibers).
    template <int n, int E, int len, class Buf, class At>
    static TPMG_HD TPMG_FORCEINLINE void store_fibers(int f, Buf buf, At at, const Number (&out)[groups<n>][len])
    {
      TPMG_UNROLL
      for (int g = 0; g < groups<n>; ++g)
        if (owns<n>(f, g))
          {
            const int fg = fiber(f, g);
            TPMG_UNROLL
            for (int i = 0; i < len; ++i)
              buf[at(fg % E, fg / E, i)] = out[g][i];
          }
    }

    /// The residual stages read x - c, c = x at the patch's centre: the interior rows of the
    /// patch matrix sum to zero (A_I 1 = 0), so b_I - A_I (x - c) is the same residual, but for
    /// a smooth x the sums no longer cancel |A| |x| down to |r|. In float that cancellation
    /// made the V-cycle's error grow like eps cond(A): 3D Q7 on 128^3 cells needed 4 GMRES
    /// iterations where double needs 3 (benchmarks/NOTES.md §5). Not for `boundary`, whose
    /// reduced residual b_I - A_IB x_B leaves the interior out (A_IB 1 is not zero).
    template <int G, int len>
    TPMG_HD TPMG_FORCEINLINE void subtract_centre_value(Number c, Number (&in)[G][len]) const
    {
      if constexpr (!reduced)
        {
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            TPMG_UNROLL
            for (int j = 0; j < len; ++j)
              in[g][j] -= c;
        }
    }

    /// X <- x on the patch. A thread loads one line of nodes along the mesh's z (2D: y), the
    /// lanes of a warp neighbouring lines along the mesh's x: kernel z-fibers (x, y) (2D
    /// y-fibers x), or, turned, kernel x-fibers (y, z) (2D: yi). `boundary`: interior zero.
    template <class Buf>
    TPMG_HD void stage_load(int f, index_t first, Buf BX) const
    {
      constexpr int n = dim == 3 ? np * np : np;
      if (f >= n)
        return;
      const Number *xp = patch_pointer(x, first);
      TPMG_UNROLL
      for (int g = 0; g < groups<n>; ++g)
        if (owns<n>(f, g))
          {
            const int fg = fiber(f, g), c0 = fg % np, c1 = dim == 3 ? fg / np : 0;
            // kernel coordinates of node t of the line
            auto coordinates = [&](int t, int &u, int &v, int &w) {
              u = turned ? t : c0, v = turned ? c0 : dim == 3 ? c1 : t, w = dim == 3 ? (turned ? c1 : t) : 0;
            };
            int u0, v0, w0;
            coordinates(0, u0, v0, w0);
            // the line runs along the mesh's z (2D: y)
            const NodeLine<const Number, false> line{xp, node_offset(u0, v0, w0), geo.node_stride[dim - 1]};
            TPMG_UNROLL
            for (int t = 0; t < np; ++t)
              {
                int u, v, w;
                coordinates(t, u, v, w);
                const bool inner = u > 0 && u < np - 1 && v > 0 && v < np - 1 && (dim == 2 || (w > 0 && w < np - 1));
                const bool skip  = reduced && inner;
                BX[dim == 3 ? L::X::at(u, v, w) : L::X::at(u, v)] = skip ? Number(0) : line[t];
              }
          }
    }

    /// 3D z-stage: T_m = M_z X, T_a = A_z X on interior z rows; z-fibers (x, y).
    template <class Buf>
    TPMG_HD void stage_z(int f, Number centre, Buf BX, Buf BA, Buf BB) const
    {
      constexpr int n = np * np, G = groups<n>;
      if (f >= n)
        return;
      Number in[G][np];
      load_fibers<n, np>(f, BX, [](int u, int v, int z) { return L::X::at(u, v, z); }, in);
      subtract_centre_value(centre, in);
      TPMG_UNROLL
      for (int i = 0; i < ni; ++i)
        {
          Number tm[G] = {}, ta[G] = {};
          TPMG_UNROLL
          for (int j = 0; j < np; ++j)
            if (nz(i + 1, j))
              TPMG_UNROLL
              for (int g = 0; g < G; ++g)
                {
                  if (mass_nz(i + 1, j))
                    tm[g] += C().M(i + 1, j) * in[g][j];
                  ta[g] += C().A(i + 1, j) * in[g][j];
                }
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            if (owns<n>(f, g))
              {
                const int fg = fiber(f, g), u = fg % np, v = fg / np;
                BA[L::T::at(u, v, i)] = tm[g];
                BB[L::T::at(u, v, i)] = ta[g];
              }
        }
    }

    /// y-stage of the residual: U1 = M_y T_m, U2 = c_y A_y T_m + c_z M_y T_a (2D: T_m = X,
    /// T_a = 0); y-fibers (x, zi).
    template <class Buf>
    TPMG_HD void stage_y_residual(int f, Number centre, Buf BX, Buf BA, Buf BB, Buf BC, Buf BD) const
    {
      constexpr int n = np * nzi, G = groups<n>;
      if (f >= n)
        return;
      Number tm[G][np], ta[G][np] = {};
      if constexpr (dim == 3)
        {
          auto t = [](int u, int w, int y) { return L::T::at(u, y, w); };
          load_fibers<n, np>(f, BA, t, tm);
          load_fibers<n, np>(f, BB, t, ta);
        }
      else
        {
          load_fibers<n, np>(f, BX, [](int u, int, int y) { return L::X::at(u, y); }, tm);
          subtract_centre_value(centre, tm);
        }
      TPMG_UNROLL
      for (int i = 0; i < ni; ++i)
        {
          Number u1[G] = {}, ua[G] = {}, ub[G] = {};
          TPMG_UNROLL
          for (int j = 0; j < np; ++j)
            if (nz(i + 1, j))
              TPMG_UNROLL
              for (int g = 0; g < G; ++g)
                {
                  if (mass_nz(i + 1, j))
                    u1[g] += C().M(i + 1, j) * tm[g][j];
                  ua[g] += C().A(i + 1, j) * tm[g][j];
                  if constexpr (dim == 3)
                    if (mass_nz(i + 1, j))
                      ub[g] += C().M(i + 1, j) * ta[g][j];
                }
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            if (owns<n>(f, g))
              {
                const int fg = fiber(f, g), u = fg % np, w = fg / np;
                BC[L::U::at(u, i, w)] = u1[g];
                BD[L::U::at(u, i, w)] = coef[1] * ua[g] + (dim == 3 ? coef[2] * ub[g] : Number(0));
              }
        }
    }

    /// x-stage: for fused/residual kinds r = b - (c_x A_x U1 + M_x U2) on the x-fiber (yi, zi),
    /// for the solve kind r is read from global memory. Then either r is stored (residual
    /// kind) or Sᵀ_x r goes to V1 (layout Vx).
    template <class Buf>
    TPMG_HD void stage_x(int f, index_t first, Buf BC, Buf BD, Buf BV1, Buf, const Number (&b_x)[prefetch_b ? ni : 1]) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      if (f >= n)
        return;
      const Number *bp = patch_pointer(b, first);
      Number       *rp = kind != PatchKernelKind::fused ? patch_pointer(r, first) : nullptr;
      auto          b_line = [&](int g) { return x_fiber_line(bp, fiber(f, g)); };
      auto          r_line = [&](int g) { return x_fiber_line(rp, fiber(f, g)); };
      Number res[G][ni];
      if constexpr (kind == PatchKernelKind::solve)
        {
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            TPMG_UNROLL
            for (int i = 0; i < ni; ++i)
              res[g][i] = owns<n>(f, g) ? r_line(g)[i + 1] : Number(0);
        }
      else
        {
          Number u1[G][np], u2[G][np];
          auto   u = [](int yi, int zi, int j) { return L::U::at(j, yi, zi); };
          load_fibers<n, ni>(f, BC, u, u1);
          load_fibers<n, ni>(f, BD, u, u2);
          TPMG_UNROLL
          for (int i = 0; i < ni; ++i)
            {
              Number a[G] = {}, m[G] = {};
              TPMG_UNROLL
              for (int j = 0; j < np; ++j)
                if (nz(i + 1, j))
                  TPMG_UNROLL
                  for (int g = 0; g < G; ++g)
                    {
                      a[g] += C().A(i + 1, j) * u1[g][j];
                      if (mass_nz(i + 1, j))
                        m[g] += C().M(i + 1, j) * u2[g][j];
                    }
              TPMG_UNROLL
              for (int g = 0; g < G; ++g)
                {
                  const bool o = owns<n>(f, g);
                  Number     bi;
                  if constexpr (prefetch_b)
                    bi = b_x[i]; // G = 1: the thread's own fiber
                  else
                    bi = o ? b_line(g)[i + 1] : Number(0);
                  res[g][i] = bi - (coef[0] * a[g] + m[g]);
                  if constexpr (kind == PatchKernelKind::residual)
                    if (o)
                      r_line(g)[i + 1] = res[g][i];
                }
            }
        }
      if constexpr (kind != PatchKernelKind::residual)
        {
          Number v[G][ni];
          apply_S<true>(res, v);
          store_fibers<n, ni>(f, BV1, [](int yi, int zi, int c) { return L::Vx::at(c, yi, zi); }, v);
        }
    }

    /// 3D, y-fibers (a, zi): Sᵀ_y, V1 (Vx) -> V2 (Vz), or (not transposed) S_y, W1 (Vz) -> W2 (Vx).
    template <bool transposed, class Buf>
    TPMG_HD void stage_y(int f, Buf in, Buf out) const
    {
      constexpr int n = ni * ni, G = groups<n>;
      if (f >= n)
        return;
      using In  = typename std::conditional<transposed, typename L::Vx, typename L::Vz>::type;
      using Out = typename std::conditional<transposed, typename L::Vz, typename L::Vx>::type;
      Number v[G][ni], w[G][ni];
      load_fibers<n, ni>(f, in, [](int a, int zi, int j) { return In::at(a, j, zi); }, v);
      apply_S<transposed>(v, w);
      store_fibers<n, ni>(f, out, [](int a, int zi, int i) { return Out::at(a, i, zi); }, w);
    }

    /// The last direction (z in 3D, y in 2D): Sᵀ, divide by the eigenvalue sums, S.
    /// 3D: z-fibers (a, b), V2 (Vz) -> W1 (Vz). 2D: y-fibers a, V1 (Vx) -> W (Vx).
    template <class Buf>
    TPMG_HD void stage_turn(int f, Buf in, Buf out) const
    {
      constexpr int n = dim == 3 ? ni * ni : ni, G = groups<n>;
      if (f >= n)
        return;
      using In = typename std::conditional<dim == 3, typename L::Vz, typename L::Vx>::type;
      auto at  = [](int a, int bb, int i) { return dim == 3 ? In::at(a, bb, i) : In::at(a, i); };
      Number v[G][ni], w[G][ni];
      load_fibers<n, ni>(f, in, at, v);
      apply_S<true>(v, w);
      constexpr int from_table = inverse_sums_entries; // entries c < from_table: the table
      TPMG_UNROLL
      for (int c = 0; c < from_table; ++c)
        TPMG_UNROLL
        for (int g = 0; g < G; ++g)
          if (owns<n>(f, g))
            w[g][c] *= inverse_sums[inverse_sum_index(fiber(f, g), c)];
      if constexpr (from_table < ni)
        {
          Number base[G];
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            {
              const int fg = owns<n>(f, g) ? fiber(f, g) : 0; // 2D: fg / ni = 0
              base[g]      = eigenvalue_sum_base(coef, fg % ni, fg / ni);
            }
          TPMG_UNROLL
          for (int c = from_table; c < ni; ++c)
            TPMG_UNROLL
            for (int g = 0; g < G; ++g)
              w[g][c] = divide(w[g][c], eigenvalue_sum(coef, base[g], c));
        }
      apply_S<false>(w, v);
      store_fibers<n, ni>(f, out, at, v);
    }

    /// S_x on x-fibers (yi, zi) and the update of the interior: x_I += c, or x_I = c for
    /// `boundary` (whose residual already excluded x_I). The old x_I comes from X, or, where X
    /// was overwritten in place, from global memory (this block loaded it in phase 0, and the
    /// patches of a color do not overlap).
    template <class Buf>
    TPMG_HD void stage_update(int f, index_t first, Buf in, Buf BX) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      if (f >= n)
        return;
      Number v[G][ni], w[G][ni];
      load_fibers<n, ni>(f, in, [](int yi, int zi, int j) { return L::Vx::at(j, yi, zi); }, v);
      apply_S<false>(v, w);
      update_interior(f, first, w, BX);
    }

    /// The memory skeleton's last phase (TPMG_SMOOTHER_MEMORY_SKELETON): the corrections are
    /// b_I, read on the x-fibers of stage_x, and go through the update of stage_update.
    template <class Buf>
    TPMG_HD void stage_skeleton_update(int f, index_t first, Buf BX) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      if (f >= n)
        return;
      Number w[G][ni];
      TPMG_UNROLL
      for (int g = 0; g < G; ++g)
        TPMG_UNROLL
        for (int i = 0; i < ni; ++i)
          w[g][i] = owns<n>(f, g) ? x_fiber_line(patch_pointer(b, first), fiber(f, g))[i + 1] : Number(0);
      update_interior(f, first, w, BX);
    }

    /// x_I += w (or x_I = w, `boundary`) on the x-fibers (yi, zi) this thread owns.
    template <class Buf>
    TPMG_HD void update_interior(int f, index_t first, const Number (&w)[groups<ni * nzi>][ni], Buf BX) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      Number *const xp = patch_pointer(x, first);
      TPMG_UNROLL
      for (int g = 0; g < G; ++g)
        if (owns<n>(f, g))
          {
            const int fg = fiber(f, g), yi = fg % ni, zi = fg / ni;
            const int  zg   = dim == 3 ? zi + 1 : 0;
            const auto line = x_fiber_line(xp, fg);
            TPMG_UNROLL
            for (int i = 0; i < ni; ++i)
              {
                const Number  s  = w[g][i];
                Number *const xi = &line[i + 1];
                if constexpr (reduced)
                  *xi = s;
                else if constexpr (kind == PatchKernelKind::solve || in_place)
                  {
                    if constexpr (exclusive_update)
                      exclusive_add(xi, s);
                    else
                      *xi += s;
                  }
                else
                  *xi = BX[L::X::at(i + 1, yi + 1, zg)] + s;
              }
          }
    }
  };

  /// A fiber kernel for one color (host side).
  template <int dim, int k, typename Number, PatchKernelKind kind, KernelOptimization opt, bool lumped_mass = false>
  FiberPatchKernel<dim, k, Number, kind, opt, lumped_mass> make_fiber_kernel(const PatchColorGeometry &geo, Number *x,
                                                                             const Number *b, Number *r,
                                                                             const std::array<double, 3> &coef, int P,
                                                                             const Number *inverse_sums)
  {
    FiberPatchKernel<dim, k, Number, kind, opt, lumped_mass> kern;
    kern.geo = geo;
    kern.x   = x;
    kern.b   = b;
    kern.r   = r;
    kern.set_patches_per_block(P);
    kern.kernel_coefficients(coef, kern.coef);
    if (kern.inverse_sums_table && inverse_sums == nullptr)
      throw std::logic_error("fiber patch kernel: the table of inverse eigenvalue sums is missing");
    kern.inverse_sums = inverse_sums;
    return kern;
  }

  /// The table FiberPatchKernel::inverse_sums of a level with direction coefficients `coef`, in
  /// the kernel's directions (the turned kernels permute them) and with its eigenvalues (those
  /// of the lumped mass differ); the same for every kind of the kernel. Empty where the kernel
  /// divides instead.
  template <int dim, int k, typename Number, KernelOptimization opt, bool lumped_mass = false>
  std::vector<Number> fiber_inverse_eigenvalue_sums(const std::array<double, 3> &coef)
  {
    using Kernel = FiberPatchKernel<dim, k, Number, PatchKernelKind::fused, opt, lumped_mass>;
    if (!Kernel::inverse_sums_table)
      return {};
    constexpr int ni = Kernel::ni, nb = dim == 3 ? ni : 1;
    Number        c[3];
    Kernel::kernel_coefficients(coef, c);
    std::vector<Number> table(std::size_t(ni) * ni * nb);
    for (int bb = 0; bb < nb; ++bb)
      for (int a = 0; a < ni; ++a)
        {
          const Number base = Kernel::eigenvalue_sum_base(c, a, bb); // as the dividing kernels form it
          for (int e = 0; e < ni; ++e)
            table[Kernel::inverse_sum_index(a + ni * bb, e)] = Number(1) / Kernel::eigenvalue_sum(c, base, e);
        }
    return table;
  }
} // namespace tpmg
