// Copies from global into shared memory that do not pass through registers (cp.async, sm_80
// and later): one instruction per element where a load and a store take two, and the thread
// does not wait for the data before the copy's shared store is issued. Usable in phase code on
// both runners; the CPU runner copies at once.
#pragma once

#include <tpmg/config.h>

namespace tpmg
{
  /// *dst = *src, dst in shared memory, completed by wait_async_copies() in the same thread
  /// (a barrier after that makes it visible to the block)
  template <typename T>
  TPMG_HD TPMG_FORCEINLINE void copy_to_shared_async(T *dst, const T *src)
  {
#if TPMG_DEVICE_CODE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "cp.async copies 4, 8 or 16 bytes");
    const unsigned shared = unsigned(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(shared), "l"(src), "n"(int(sizeof(T))) : "memory");
#else
    *dst = *src;
#endif
  }

  /// waits for this thread's copy_to_shared_async
  TPMG_HD TPMG_FORCEINLINE void wait_async_copies()
  {
#if TPMG_DEVICE_CODE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
  }
} // namespace tpmg
