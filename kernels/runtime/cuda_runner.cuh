// CUDA runner of one-source kernels: all phases inlined into one __global__ function,
// a __syncthreads() between consecutive phases. Include only from .cu files, which
// instantiate run_on_device<Kernel> for the kernels they provide.
#pragma once

#include <kernels/runtime/runner.h>

#include <tpmg/cuda_check.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace internal
  {
    template <class Kernel, int... P>
    __device__ __forceinline__ void run_phases_on_device(const Kernel &kernel, const KernelCtx &ctx,
                                                         PlainShared &shared, typename Kernel::Registers &regs,
                                                         std::integer_sequence<int, P...>)
    {
      // The barrier after the last phase is dead code and is removed by the compiler.
      ((kernel.template run<P>(ctx, shared, regs), __syncthreads()), ...);
    }

    template <class Kernel>
    __device__ __forceinline__ void run_block_on_device(const Kernel &kernel)
    {
      extern __shared__ __align__(16) unsigned char tpmg_shared_memory[];
      PlainShared                                   shared{tpmg_shared_memory};
      const KernelCtx ctx{Dim3{blockIdx.x, blockIdx.y, blockIdx.z}, Dim3{threadIdx.x, threadIdx.y, threadIdx.z},
                          Dim3{blockDim.x, blockDim.y, blockDim.z}, Dim3{gridDim.x, gridDim.y, gridDim.z}};
      typename Kernel::Registers regs;
      run_phases_on_device(kernel, ctx, shared, regs, std::make_integer_sequence<int, Kernel::n_phases>{});
    }

    // The kernel with the launch bounds its struct asks for (runner.h: min_blocks_per_sm).
    template <class Kernel>
    __global__ void __launch_bounds__(Kernel::max_threads_per_block)
      phased_kernel(const __grid_constant__ Kernel kernel)
    {
      run_block_on_device(kernel);
    }
    template <class Kernel>
    __global__ void __launch_bounds__(Kernel::max_threads_per_block, min_blocks_per_sm<Kernel>::value)
      phased_kernel_min_blocks(const __grid_constant__ Kernel kernel)
    {
      run_block_on_device(kernel);
    }
    /// Advanced by the CUDA graph calls of device.h: a recorded upload never ran, a replayed
    /// graph leaves its own constants behind, so the next kernel of each kind uploads again.
    extern unsigned constants_epoch;
    /// `c` itself, or while a graph is recorded a page-locked copy that lives as long as the
    /// graph (an upload node reads its source at every replay).
    const void *recorded_constants(const void *c, std::size_t bytes);

    /// Copies a kernel's Constants into its __constant__ symbol, in stream order, when they
    /// differ from the last upload (they depend on the degree, rarely on anything else).
    template <class Tag>
    void upload_constants(const typename Tag::Constants &c)
    {
      using C              = typename Tag::Constants;
      static bool     seen = false;
      static unsigned epoch;
      static C        last;
      if (seen && epoch == constants_epoch && std::memcmp(&last, &c, sizeof(C)) == 0)
        return;
      TPMG_CUDA_CHECK(cudaMemcpyToSymbolAsync(tpmg_kernel_constants<Tag>, recorded_constants(&c, sizeof(C)), sizeof(C),
                                              0, cudaMemcpyHostToDevice, current_stream()));
      std::memcpy(&last, &c, sizeof(C));
      seen  = true;
      epoch = constants_epoch;
    }

    /// the __global__ function a kernel struct launches as
    template <class Kernel>
    auto device_function()
    {
      if constexpr (min_blocks_per_sm<Kernel>::value > 0)
        return &phased_kernel_min_blocks<Kernel>;
      else
        return &phased_kernel<Kernel>;
    }

    /// Lets the kernel's blocks use more than 48 KiB of shared memory (once per kernel type,
    /// up to the device's opt-in limit). A block that asks for more than that limit would fail
    /// to launch with "invalid argument": say what does not fit instead.
    template <class Kernel>
    void allow_shared_bytes(const LaunchShape &shape)
    {
      if (shape.shared_bytes <= 48 * 1024)
        return;
      static const int limit = [] {
        int device = 0, l = 0;
        TPMG_CUDA_CHECK(cudaGetDevice(&device));
        TPMG_CUDA_CHECK(cudaDeviceGetAttribute(&l, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        return l;
      }();
      if (shape.shared_bytes > std::size_t(limit))
        throw std::invalid_argument("a thread block of " + std::to_string(shape.block.size()) + " threads needs " +
                                    std::to_string(shape.shared_bytes / 1024) +
                                    " KiB of shared memory, the device allows " + std::to_string(limit / 1024) +
                                    " KiB per block (fewer patches or cells per block)");
      static bool attribute_set = false; // per kernel type
      if (!attribute_set)
        TPMG_CUDA_CHECK(
          cudaFuncSetAttribute(device_function<Kernel>(), cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
      attribute_set = true;
    }
  } // namespace internal

  template <class Kernel>
  void run_on_device(const Kernel &kernel, const LaunchShape &shape)
  {
    internal::allow_shared_bytes<Kernel>(shape);
    if constexpr (has_constants<Kernel>::value)
      internal::upload_constants<typename constants_tag<Kernel>::type>(kernel.constants);
    const dim3 grid(shape.grid.x, shape.grid.y, shape.grid.z);
    const dim3 block(shape.block.x, shape.block.y, shape.block.z);
    internal::device_function<Kernel>()<<<grid, block, shape.shared_bytes, current_stream()>>>(kernel);
    TPMG_CUDA_CHECK(cudaGetLastError());
  }

  template <class Kernel>
  KernelResources kernel_resources_on_device(const LaunchShape &shape)
  {
    internal::allow_shared_bytes<Kernel>(shape);
    cudaFuncAttributes a{};
    TPMG_CUDA_CHECK(cudaFuncGetAttributes(&a, internal::device_function<Kernel>()));
    KernelResources r;
    r.registers   = a.numRegs;
    r.local_bytes = a.localSizeBytes;
    TPMG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &r.resident_blocks, internal::device_function<Kernel>(), int(shape.block.size()), shape.shared_bytes));
    return r;
  }
} // namespace tpmg

/// Explicit instantiation of the CUDA runner for one kernel type.
#define TPMG_INSTANTIATE_DEVICE_KERNEL(...)                                                                        \
  template void                  tpmg::run_on_device<__VA_ARGS__>(const __VA_ARGS__ &, const tpmg::LaunchShape &); \
  template tpmg::KernelResources tpmg::kernel_resources_on_device<__VA_ARGS__>(const tpmg::LaunchShape &);
