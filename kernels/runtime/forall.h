// Element-wise loops and reductions written once (MFEM forall style): a functor with a
// TPMG_HD operator()(index_t) runs in an OpenMP loop on the CPU and in a grid-stride
// kernel on the GPU; reductions use CUB on the GPU.
#pragma once

#include <tpmg/config.h>
#include <tpmg/mesh.h>

namespace tpmg
{
  /// CUDA versions (cuda_forall.cuh, instantiated in src/cuda/*.cu).
  template <class F>
  void forall_on_device(index_t n, const F &f);
  template <class F>
  double reduce_sum_on_device(index_t n, const F &f);

  [[noreturn]] void throw_no_cuda(const char *what);

  /// Calls f(i) for i in [0, n).
  template <class F>
  void forall(Backend backend, index_t n, const F &f)
  {
    if (n <= 0)
      return;
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        forall_on_device(n, f);
#else
        throw_no_cuda("forall");
#endif
      }
    else
      {
#pragma omp parallel for schedule(static) if (static_cast <unsigned long long>(n) >= host_parallel_threshold)
        for (index_t i = 0; i < n; ++i)
          f(i);
      }
  }

  /// Returns Σ_i f(i) for i in [0, n), accumulated in double.
  template <class F>
  double reduce_sum(Backend backend, index_t n, const F &f)
  {
    if (n <= 0)
      return 0.0;
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        return reduce_sum_on_device(n, f);
#else
        throw_no_cuda("reduce_sum");
#endif
      }
    double sum = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : sum) if (static_cast<unsigned long long>(n) >= host_parallel_threshold)
    for (index_t i = 0; i < n; ++i)
      sum += f(i);
    return sum;
  }
} // namespace tpmg
