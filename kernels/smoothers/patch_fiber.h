// The fiber patch kernels: the vertex-patch smoother of the optimizations `linear_indexing`,
// `conflict_free` and `boundary` (docs/kernels.md, "Fiber kernels"). The stages of
// fiber_stages.h run as the phases of one kernel; this file holds the phase sequence of each
// kind (fused, residual, solve), the shared-memory regions the stages share, the launch shape,
// and the launch shape (the host side that makes a kernel for one color:
// src/smoothers/patch_builders.h). The tuning is fiber_policy.h.
#pragma once

#include <kernels/runtime/runner.h>
#include <kernels/smoothers/fiber_stages.h>

namespace tpmg
{
  template <int dim, int k, typename Number, PatchKernelKind kind, KernelOptimization opt, bool lumped_mass = false,
            bool mass_term = false>
  struct FiberPatchKernel : FiberStages<dim, k, Number, kind, opt, lumped_mass, mass_term>
  {
    using Stages = FiberStages<dim, k, Number, kind, opt, lumped_mass, mass_term>;
    using Stages::b;
    using Stages::geo;
    using Stages::in_place;
    using Stages::key;
    using Stages::max_patches_per_block;
    using Stages::ni;
    using Stages::node_offset;
    using Stages::nzi;
    using Stages::policy;
    using Stages::prefetch_b;
    using Stages::reduced;
    using Stages::threads_per_patch;
    using Stages::x;
    using Stages::x_fiber_line;
    using typename Stages::L;

    /// Launch bounds (runner.h): the resident blocks per SM they ask for, which caps the
    /// registers at 65536 / (m · 32 ⌈threads / 32⌉); where none, blocks of at most 512 threads
    /// (128 registers). docs/performance/smoother.md, "Resident blocks".
    static constexpr int resident_blocks       = policy.resident_blocks;
    static constexpr int resident_patches      = policy.resident_patches;
    static constexpr int max_threads_per_block = cmax(threads_per_patch, policy.max_block_threads);
    static constexpr int min_blocks_per_sm     = resident_blocks;

    static constexpr int n_phases = kind == PatchKernelKind::residual ? dim + 1
                                    : kind == PatchKernelKind::solve  ? 2 * dim - 1
                                                                      : 3 * dim - 1;

    struct Registers
    {
      index_t first;                    ///< global index of the patch's first node, from phase 0 on
      Number  centre;                   ///< x at the patch centre (subtract_centre_value), loaded in phase 0
      Number  b_x[prefetch_b ? ni : 1]; ///< b on this thread's x-fiber (prefetch_b)
    };

    // arguments beside the stages'
    int      P;                ///< patches per block, a power of two
    int      P_log2;           ///< log2 P (set_patches_per_block sets all four)
    int      stride[3];        ///< words between the patch slots of region i
    unsigned offset[3], bytes; ///< byte offsets of the regions, their total
#if TPMG_FIBER_STAGGER
    unsigned stagger_ns = 0, stagger_blocks = 0; ///< measurement_knobs.h
#endif

    // Shared memory, padded layouts: regions X, R0, R1 (words per patch, P patch slots
    // patch_stride apart), reused as the stages go: 3D  R0: T_m,T_a -> V1 -> W1,
    // R1: U1,U2 -> V2 -> W2;  2D  R0: V1, R1: U1,U2 -> W. X is read at the last stage only by
    // the fused, non-reduced kernel; otherwise it shares the region that is first written
    // after its last read.
    // In place (policy.in_place): the stages work in place (patch_layout.h), on two
    // patch cubes: region X carries x -> T_m -> U1 -> V1 -> ... -> W2, region R0 carries
    // T_a -> U2 (the solve kind needs X only); the update reads the old x from global memory.
    // That halves the shared memory of the padded plan (double k = 8: 79 instead of 131-170
    // KiB), so two blocks fit on an SM where one did.
    static constexpr bool fused  = kind == PatchKernelKind::fused;
    static constexpr bool with_x = kind != PatchKernelKind::solve;
    static constexpr int  cap_v  = cmax(L::Vx::size, dim == 3 ? L::Vz::size : 0);
    static constexpr int  cap_r0 = in_place                         ? (with_x ? L::X::size : 0)
                                   : kind == PatchKernelKind::solve ? cap_v
                                   : dim == 3                       ? cmax(2 * L::T::size, fused ? cap_v : 0)
                                   : fused                          ? cap_v
                                                                    : 0;
    static constexpr int  cap_r1 = in_place                         ? 0
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
      return i == 0   ? (x_own ? L::X::size : 0)
             : i == 1 ? cmax(cap_r0, x_region == 1 ? L::X::size : 0)
                      : cmax(cap_r1, x_region == 2 ? L::X::size : 0);
    }
    /// where the stages' tensors live: region and word offset in its patch slot
    static constexpr int r_a = in_place ? 0 : 1, r_b = 1, r_c = in_place ? 0 : 2, r_d = in_place ? 1 : 2;
    static constexpr int o_b = in_place ? 0 : L::T::size, o_d = in_place ? 0 : L::U::size;

    static constexpr TPMG_HD std::size_t a16(std::size_t n) { return (n + 15) / 16 * 16; }
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

    /// Patches per block when the user leaves it to the library (fiber_policy.h).
    static int automatic_patches_per_block() { return policy.automatic_patches_per_block(key); }

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
#if TPMG_FIBER_STAGGER && defined(__CUDA_ARCH__)
          if (ctx.block.x < stagger_blocks && stagger_ns > 0)
            __nanosleep((ctx.block.x % 3u) * stagger_ns);
#endif
          reg.first = geo.first_index(patch);
          // loaded with the patch (phase 0), where the other loads of the phase hide its
          // latency, not in the stage that uses it (a dependent load at the head of a short
          // phase); so placed, the centre subtraction costs little (docs/performance/smoother.md,
          // "Centre-value subtraction")
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
            this->stage_load(f, first, BX);
          else if constexpr (phase == n_phases - 1)
            this->stage_skeleton_update(f, first, BX);
        }
      else if constexpr (kind == PatchKernelKind::solve)
        {
          // r -> Sᵀ_x | (3D: Sᵀ_y) | turn | (3D: S_y) | S_x + update
          if constexpr (phase == 0)
            this->stage_x(f, first, BA, BA, BA, BX, reg.b_x);
          else if constexpr (dim == 3 && phase == 1)
            this->template stage_y<true>(f, BA, BC);
          else if constexpr (phase == dim - 1)
            this->stage_turn(f, dim == 3 ? BC : BA, dim == 3 ? BA : BC);
          else if constexpr (dim == 3 && phase == 3)
            this->template stage_y<false>(f, BA, BC);
          else
            this->stage_update(f, first, BC, BX);
        }
      else
        {
          if constexpr (phase == 0)
            this->stage_load(f, first, BX);
          else if constexpr (dim == 3 && phase == 1)
            this->stage_z(f, reg.centre, BX, BA, BB);
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
              this->stage_y_residual(f, reg.centre, BX, BA, BB, BC, BD);
            }
          else if constexpr (phase == dim)
            this->stage_x(f, first, BC, BD, BA, BX, reg.b_x);
          else if constexpr (dim == 3 && phase == 4)
            this->template stage_y<true>(f, BA, BC);
          else if constexpr (phase == 2 * dim - 1)
            this->stage_turn(f, dim == 3 ? BC : BA, dim == 3 ? BA : BC);
          else if constexpr (dim == 3 && phase == 6)
            this->template stage_y<false>(f, BA, BC);
          else
            this->stage_update(f, first, BC, BX);
        }
    }
  };
} // namespace tpmg
