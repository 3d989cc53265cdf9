// Compile-time configuration shared by host code and kernels.
#pragma once

#if defined(__CUDACC__)
#define TPMG_HD __host__ __device__
#define TPMG_FORCEINLINE __forceinline__
#else
#define TPMG_HD
#define TPMG_FORCEINLINE inline __attribute__((always_inline))
#endif

#if defined(__CUDA_ARCH__)
#define TPMG_DEVICE_CODE 1
#else
#define TPMG_DEVICE_CODE 0
#endif

#define TPMG_STRINGIFY2(x) #x
#define TPMG_STRINGIFY(x) TPMG_STRINGIFY2(x)
// Full unrolling where the GPU needs it (compile-time trip counts, register arrays). The host
// compiler decides for itself: forcing it multiplies the CPU runner's compile time.
#if defined(__CUDA_ARCH__)
#define TPMG_UNROLL _Pragma("unroll")
#else
#define TPMG_UNROLL
#endif
// Loops the GPU compiler must keep as loops, and calls it must keep as calls: bodies that
// evaluate an expression program (a switch over every function) would otherwise be copied
// into every unrolled iteration, and the compile time would explode.
#if defined(__CUDA_ARCH__)
#define TPMG_NO_UNROLL _Pragma("unroll 1")
#else
#define TPMG_NO_UNROLL
#endif
#if defined(__CUDACC__)
#define TPMG_NOINLINE __noinline__
#else
#define TPMG_NOINLINE __attribute__((noinline))
#endif

#include <tpmg/degrees.h>

namespace tpmg
{
  inline constexpr double pi = 3.14159265358979323846;

  /// CPU loops shorter than this (forall, reduce_sum; runner launches: blocks x threads) run
  /// on the calling thread: an OpenMP region costs microseconds, and far more where several
  /// processes share the cores (ctest -j), as every region then waits for descheduled threads.
  constexpr unsigned long long host_parallel_threshold = 16384;


  /// True when the library was built with the CUDA backend.
  bool cuda_compiled();
} // namespace tpmg
