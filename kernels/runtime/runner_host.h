// Definitions of the CPU runner and of the backend dispatch.
#pragma once

#include <kernels/runtime/runner.h>

#include <cstdint>
#include <memory>

namespace tpmg
{
  template <class Kernel>
  void run_on_host(const Kernel &kernel, const LaunchShape &shape)
  {
    const std::size_t n_blocks  = std::size_t(shape.grid.x) * shape.grid.y * shape.grid.z;
    const unsigned    n_threads = shape.block.size();
    // small launches (coarse levels, test meshes) run on the calling thread (config.h)
#pragma omp parallel if (n_blocks > 1 && n_blocks * n_threads >= host_parallel_threshold)
    {
      // 16-byte aligned scratch for the block's shared memory.
      const auto storage = std::make_unique<unsigned char[]>(shape.shared_bytes + 16);
      auto      *aligned =
        reinterpret_cast<unsigned char *>((reinterpret_cast<std::uintptr_t>(storage.get()) + 15) & ~std::uintptr_t(15));
      HostShared shared{{aligned}};
      const auto regs = std::make_unique<typename Kernel::Registers[]>(n_threads);
#pragma omp for schedule(static)
      for (std::size_t b = 0; b < n_blocks; ++b)
        {
          const Dim3 block{unsigned(b % shape.grid.x), unsigned((b / shape.grid.x) % shape.grid.y),
                           unsigned(b / (std::size_t(shape.grid.x) * shape.grid.y))};
          run_block_on_host(kernel, shape, block, shared, regs.get());
        }
    }
  }

  [[noreturn]] void throw_no_cuda(const char *what);

  template <class Kernel>
  void launch(Backend backend, const Kernel &kernel, const LaunchShape &shape)
  {
    if (shape.grid.size() == 0)
      return;
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        run_on_device(kernel, shape);
#else
        throw_no_cuda("a kernel launch");
#endif
      }
    else
      run_on_host(kernel, shape);
  }
} // namespace tpmg
