// Atomic accumulation usable in phase code on both runners.
#pragma once

#include <tpmg/config.h>

namespace tpmg
{
  template <typename T>
  TPMG_HD TPMG_FORCEINLINE void atomic_add(T *p, T v)
  {
#if TPMG_DEVICE_CODE
    atomicAdd(p, v);
#else
#pragma omp atomic
    *p += v;
#endif
  }

  /// *p += v where no other thread of the launch touches *p: on the GPU an atomic add all the
  /// same, because it is fire and forget (a reduction at the L2) where a load and a store make
  /// the thread wait for the load (docs/performance/operator.md, "Atomic scatter"); on the CPU a plain
  /// add.
  template <typename T>
  TPMG_HD TPMG_FORCEINLINE void exclusive_add(T *p, T v)
  {
#if TPMG_DEVICE_CODE
    atomicAdd(p, v);
#else
    *p += v;
#endif
  }
} // namespace tpmg
