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
} // namespace tpmg
