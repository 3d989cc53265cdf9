// One-source kernels (docs/kernels.md, "One source, two runners").
//
// A kernel is a struct that holds its arguments and provides
//
//   static constexpr int n_phases;
//   struct Registers { ... };                // per-thread state kept across phases
//   template <int phase, class Shared>
//   TPMG_HD void run(const KernelCtx &, Shared &, Registers &) const;
//
// Phases are separated by block barriers. The CUDA runner (cuda_runner.cuh) calls them
// in one __global__ function with __syncthreads() in between; the CPU runner below
// executes each phase for every thread of a block before the next phase starts, which is
// exactly the ordering guarantee a barrier gives. Blocks run in parallel with OpenMP.
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>
#include <tpmg/option_enums.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tpmg
{
  struct Dim3
  {
    unsigned                   x = 1, y = 1, z = 1;
    TPMG_HD constexpr unsigned size() const { return x * y * z; }
  };

  /// What a thread knows about its place in the launch (blockIdx, threadIdx, ...).
  struct KernelCtx
  {
    Dim3             block, thread, block_dim, grid_dim;
    TPMG_HD unsigned linear_thread() const { return thread.x + block_dim.x * (thread.y + block_dim.y * thread.z); }
    TPMG_HD std::size_t linear_block() const
    {
      return block.x + std::size_t(grid_dim.x) * (block.y + std::size_t(grid_dim.y) * block.z);
    }
  };

  struct LaunchShape
  {
    Dim3        grid;
    Dim3        block;
    std::size_t shared_bytes = 0;
  };

  /// The launch of a kernel that gives each block `cells_per_block` cells of `cells`, `block`
  /// threads a block (the cells along one of its axes), and `shared_bytes` of shared memory.
  inline LaunchShape cell_blocks(index_t cells, unsigned cells_per_block, Dim3 block, std::size_t shared_bytes)
  {
    LaunchShape s;
    s.grid.x       = unsigned((cells + cells_per_block - 1) / cells_per_block);
    s.block        = block;
    s.shared_bytes = shared_bytes;
    return s;
  }

  /// Plain view of a block's shared memory: typed arrays at byte offsets.
  /// The recording view (bank_recorder.h) has the same interface.
  struct PlainShared
  {
    unsigned char *base;
    template <typename T>
    TPMG_HD T *array(std::size_t byte_offset) const
    {
      return reinterpret_cast<T *>(base + byte_offset);
    }
  };

  /// Kernels may group read-only data that every thread reads at compile-time offsets (small
  /// 1D matrices) into `struct Constants` and a member `constants`. Phase code reads them via
  /// constants(kernel): on the GPU that is a __constant__ copy the CUDA runner uploads, so the
  /// compiler can use the entries directly as FMA operands (through the kernel's `this`
  /// pointer into parameter space it emits a separate LDC per use); on the CPU the member.
  /// Kernels that share their constants (and are instantiated in the same .cu file) name a
  /// common `ConstantsTag`, so that one __constant__ copy serves them (64 KB per module);
  /// otherwise the kernel type itself is the tag.
  template <class Kernel, class = void>
  struct constants_tag
  {
    using type = Kernel;
  };
  template <class Kernel>
  struct constants_tag<Kernel, std::void_t<typename Kernel::ConstantsTag>>
  {
    using type = typename Kernel::ConstantsTag;
  };

#if defined(__CUDACC__)
  template <class Tag>
  __constant__ typename Tag::Constants tpmg_kernel_constants;
#endif

  template <class Kernel>
  TPMG_HD TPMG_FORCEINLINE const typename Kernel::Constants &constants(const Kernel &kernel)
  {
#if TPMG_DEVICE_CODE
    (void)kernel;
    return tpmg_kernel_constants<typename constants_tag<Kernel>::type>;
#else
    return kernel.constants;
#endif
  }

  template <class Kernel, class = void>
  struct has_constants : std::false_type
  {};
  template <class Kernel>
  struct has_constants<Kernel, std::void_t<typename Kernel::Constants>> : std::true_type
  {};

  /// A kernel may ask for `min_blocks_per_sm` resident blocks (the second argument of
  /// __launch_bounds__, which caps the registers per thread); 0: not given, the compiler
  /// chooses. (An explicit 1 is not the same: it tells the compiler that one block per SM is
  /// enough, and it then spends up to 255 registers on small blocks: the Cartesian operator at
  /// k = 8, 81 threads, took 204 registers instead of 40; docs/performance/operator.md, "Launch
  /// bounds".)
  template <class Kernel, class = void>
  struct min_blocks_per_sm : std::integral_constant<int, 0>
  {};
  template <class Kernel>
  struct min_blocks_per_sm<Kernel, std::void_t<decltype(Kernel::min_blocks_per_sm)>>
    : std::integral_constant<int, Kernel::min_blocks_per_sm>
  {};

  /// Byte offsets of consecutive shared arrays, each aligned to 16 bytes.
  struct SharedLayout
  {
    std::size_t bytes = 0;
    template <typename T>
    constexpr std::size_t add(std::size_t count)
    {
      const std::size_t offset = bytes;
      bytes += (count * sizeof(T) + 15) / 16 * 16;
      return offset;
    }
  };

  namespace internal
  {
    template <class Kernel, class Shared, int... P>
    void run_block_on_host(const Kernel &kernel, KernelCtx ctx, Shared &shared, typename Kernel::Registers *regs,
                           std::integer_sequence<int, P...>)
    {
      const Dim3 bd        = ctx.block_dim;
      auto       one_phase = [&](auto phase) {
        constexpr int p = decltype(phase)::value;
        unsigned      t = 0;
        for (unsigned z = 0; z < bd.z; ++z)
          for (unsigned y = 0; y < bd.y; ++y)
            for (unsigned x = 0; x < bd.x; ++x, ++t)
              {
                ctx.thread = Dim3{x, y, z};
                shared.begin_thread(t, p);
                kernel.template run<p>(ctx, shared, regs[t]);
              }
        shared.end_phase(p);
      };
      (one_phase(std::integral_constant<int, P>{}), ...);
    }
  } // namespace internal

  /// Shared-memory view used by the CPU runner: plain arrays, no recording.
  struct HostShared : PlainShared
  {
    void begin_thread(unsigned, int) {}
    void end_phase(int) {}
  };

  /// Runs one block of a kernel on the host with a caller-provided shared view.
  template <class Kernel, class Shared>
  void run_block_on_host(const Kernel &kernel, const LaunchShape &shape, Dim3 block, Shared &shared,
                         typename Kernel::Registers *regs)
  {
    KernelCtx ctx{block, Dim3{}, shape.block, shape.grid};
    internal::run_block_on_host(kernel, ctx, shared, regs, std::make_integer_sequence<int, Kernel::n_phases>{});
  }

  /// CPU runner: every block, phase by phase, thread by thread.
  template <class Kernel>
  void run_on_host(const Kernel &kernel, const LaunchShape &shape);

  /// CUDA runner (defined in cuda_runner.cuh, instantiated in src/cuda/*.cu).
  template <class Kernel>
  void run_on_device(const Kernel &kernel, const LaunchShape &shape);

  /// What the compiled device function of a kernel uses: registers per thread, local memory
  /// per thread (spills), and the blocks of a launch shape that fit on one SM together.
  struct KernelResources
  {
    int         registers       = 0;
    std::size_t local_bytes     = 0;
    int         resident_blocks = 0;
  };
  /// (cuda_runner.cuh; instantiated with run_on_device)
  template <class Kernel>
  KernelResources kernel_resources_on_device(const LaunchShape &shape);

  /// Runs a kernel on the given backend.
  template <class Kernel>
  void launch(Backend backend, const Kernel &kernel, const LaunchShape &shape);
} // namespace tpmg

#include <kernels/runtime/runner_host.h>
