// Error checking for CUDA runtime calls (only included by .cu files).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tpmg
{
  [[noreturn]] void throw_cuda_error(cudaError_t err, const char *call, const char *file, int line);

  /// Stream all library work is queued on.
  cudaStream_t current_stream();
} // namespace tpmg

#define TPMG_CUDA_CHECK(call)                                           \
  do                                                                    \
    {                                                                   \
      const cudaError_t tpmg_err_ = (call);                             \
      if (tpmg_err_ != cudaSuccess)                                     \
        ::tpmg::throw_cuda_error(tpmg_err_, #call, __FILE__, __LINE__); \
    }                                                                   \
  while (false)
