// All colors of a multiplicative sweep in one launch ("sweep by slabs", DESIGN.md §4-5).
//
// One launch per color moves the patches, b and the updates through DRAM once per color (8
// times per 3D sweep), and every launch ends in a tail where the SMs drain. Here one launch
// runs the patches of every color, ordered by slabs of G vertex planes along the last
// direction: for each slab, the colors in sweep order. A slab's x and b (G·k node planes)
// stay in the L2 while its colors pass over it.
//
// The multiplicative order stays exact. A patch waits, before it loads, until every patch of
// an earlier color of the sweep that overlaps it (vertices at most one apart in each
// direction) has published its update (a per-patch flag set to this launch's epoch). That
// wait can never deadlock: blocks take their work items by a ticket (an atomic counter), in
// item order, and every patch a block waits for is in an earlier item, i.e. held by a block
// that already runs. For that, the items of the sweep's second half of colors (the other
// vertex parity along the slab direction) take slabs shifted by one plane: an overlapping
// pair of colors c' before c then always has c' in the same slab or an earlier one.
//
// Phases: 0 take a ticket (thread 0) | 1 wait for the earlier overlapping patches | the
// fiber kernel's phases on the item's patches | publish (one thread per patch).
#pragma once

#include "patch_common.h"

#include <cstdint>
#include <vector>

// Build knob for A/B runs (NOTES §4): 0 skips the waits and the flags (wrong results; the
// time of the ticket and the slab order alone)
#ifndef TPMG_SWEEP_WAITS
#define TPMG_SWEEP_WAITS 1
#endif

namespace tpmg
{
  /// Device-scope flag and ticket operations, on both runners.
  TPMG_HD TPMG_FORCEINLINE unsigned load_acquire(const unsigned *p)
  {
#if TPMG_DEVICE_CODE
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
#else
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#endif
  }
  /// a release store after a block barrier: the updates of every thread of the block that
  /// precede the barrier are visible to whoever acquires the flag (the pattern of a grid
  /// barrier: barrier, then one thread's release)
  TPMG_HD TPMG_FORCEINLINE void store_release(unsigned *p, unsigned v)
  {
#if TPMG_DEVICE_CODE
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#endif
  }
  TPMG_HD TPMG_FORCEINLINE unsigned long long fetch_ticket(unsigned long long *counter)
  {
#if TPMG_DEVICE_CODE
    return atomicAdd(counter, 1ull);
#else
    return __atomic_fetch_add(counter, 1ull, __ATOMIC_RELAXED);
#endif
  }

  /// A work item of a sweep launch: `count` (≤ P) consecutive patches from `first` of the color
  /// at sweep position `position`.
  struct SweepItem
  {
    unsigned first;
    unsigned position_count; ///< position << 8 | count
    TPMG_HD int      position() const { return int(position_count >> 8); }
    TPMG_HD int      count() const { return int(position_count & 255u); }
  };

  /// The color at one position of the sweep.
  struct SweepColor
  {
    PatchColorGeometry geo;
    unsigned          *flags; ///< one per patch: the epoch of the launch that last updated it
    int                color;
  };

  /// The work items of a sweep launch (host side): the colors color_of[first_position], ...,
  /// color_of[2^dim - 1] in that order, by slabs of G vertex planes along the last direction
  /// (the second half of the positions shifted by one plane), at most P patches each.
  std::vector<SweepItem> patch_sweep_items(const CartesianLevel &level, const int *color_of, int first_position, int G,
                                           int P);

  /// The fiber kernel `Inner` (fused kind, one patch slot per P) run over all colors of a sweep
  /// from position `first_position` on. Host side: patch_sweep_items builds the items.
  template <int dim, class Inner>
  struct SweepKernel
  {
    static constexpr int n_colors = 1 << dim;
    static constexpr int n_phases = Inner::n_phases + 3;
    static constexpr int max_threads_per_block = Inner::max_threads_per_block;
    static constexpr int min_blocks_per_sm     = Inner::min_blocks_per_sm;

    struct Registers
    {
      typename Inner::Registers in;
    };

    Inner               inner;             ///< P, layouts, x, b, coefficients (its geo: node strides)
    SweepColor          colors[n_colors];  ///< by sweep position
    int                 position_of[n_colors]; ///< sweep position of color c
    int                 first_position;    ///< earlier positions ran before this launch
    const SweepItem    *items;
    unsigned long long *tickets;     ///< counter of tickets taken by all launches so far
    unsigned long long  ticket_base; ///< its value before this launch
    unsigned            epoch;       ///< this launch's flag value (increases launch by launch)
    unsigned            item_offset; ///< byte offset of the block's item in shared memory
    unsigned            n_items;

    LaunchShape shape() const
    {
      LaunchShape s = inner.shape();
      s.grid        = Dim3{n_items, 1, 1};
      s.shared_bytes = item_offset + 16;
      return s;
    }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      const int  l    = int(ctx.thread.x);
      SweepItem *slot = sh.template array<SweepItem>(item_offset);
      if constexpr (phase == 0)
        {
          if (l == 0)
            *slot = items[fetch_ticket(tickets) - ticket_base];
          return;
        }
      const SweepItem item = *slot;
      const int       p = l & (inner.P - 1), f = l >> inner.P_log2;
      if (p >= item.count())
        return;
      const index_t patch = index_t(item.first) + p;
      if constexpr (phase == 1)
        {
          if constexpr (TPMG_SWEEP_WAITS)
            wait_for_earlier(item.position(), patch, f);
        }
      else if constexpr (phase == n_phases - 1)
        {
          if (TPMG_SWEEP_WAITS && f == 0)
            store_release(colors[item.position()].flags + patch, epoch);
        }
      else
        inner.template run_patch<phase - 2>(f, p, colors[item.position()].geo, patch, sh, reg.in);
    }

    /// Thread f of a patch waits for neighbours f, f + T, ... (T threads per patch) of the
    /// 3^dim - 1 around its vertex whose color comes earlier in this launch.
    TPMG_HD void wait_for_earlier(int position, index_t patch, int f) const
    {
      const SweepColor &sc = colors[position];
      unsigned          q[3];
      sc.geo.patches.coordinates(unsigned(patch), q);
      constexpr int n_neighbours = dim == 3 ? 27 : 9;
      for (int j = f; j < n_neighbours - 1; j += Inner::threads_per_patch)
        {
          const int n = j < n_neighbours / 2 ? j : j + 1; // skip the vertex itself
          int       delta[3] = {n % 3 - 1, (n / 3) % 3 - 1, dim == 3 ? n / 9 - 1 : 0};
          int       odd      = 0;
          for (int d = 0; d < dim; ++d)
            odd |= (delta[d] & 1) << d;
          const int position2 = position_of[sc.color ^ odd];
          if (position2 >= position || position2 < first_position)
            continue;
          const SweepColor &sc2 = colors[position2];
          index_t           index = 0, scale = 1;
          bool              inside = true;
          for (int d = 0; d < dim; ++d)
            {
              // the neighbour's vertex, and its coordinate among the patches of its color
              const index_t v  = sc.geo.first_vertex[d] + 2 * index_t(q[d]) + delta[d];
              const index_t q2 = (v - sc2.geo.first_vertex[d]) / 2;
              inside           = inside && v >= sc2.geo.first_vertex[d] && q2 < sc2.geo.count[d];
              index += q2 * scale;
              scale *= sc2.geo.count[d];
            }
          if (inside)
            while (load_acquire(sc2.flags + index) < epoch)
              ;
        }
    }
  };
} // namespace tpmg
