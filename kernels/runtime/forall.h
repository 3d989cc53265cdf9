// Element-wise loops and reductions written once (MFEM forall style): a functor with a
// TPMG_HD operator()(index_t) runs in an OpenMP loop on the CPU and in a grid-stride
// kernel on the GPU; reductions use CUB on the GPU.
#pragma once

#include <kernels/common/double_double.h>

#include <tpmg/config.h>
#include <tpmg/numbering.h>
#include <tpmg/option_enums.h>

#include <limits>
#include <memory>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tpmg
{
  /// CUDA versions (cuda_forall.cuh, instantiated in src/cuda/*.cu).
  template <class F>
  void forall_on_device(index_t n, const F &f);
  template <class F>
  double reduce_sum_on_device(index_t n, const F &f);
  template <class F>
  double reduce_max_on_device(index_t n, const F &f);
  template <class F>
  DoubleDouble reduce_sum_accurate_on_device(index_t n, const F &f);
  template <int K, class F>
  void reduce_sum_accurate_on_device(index_t n, const F &f, DoubleDouble (&sums)[K]);
  template <class F>
  void reduce_sum_accurate_into_device(index_t n, const F &f, DoubleDouble *out);

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

  /// Returns Σ_i f(i) for i in [0, n), accumulated in double (on the CPU the same bits on any
  /// number of threads).
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
    // sums of fixed chunks, added in order: the same bits on any number of threads
    constexpr index_t chunk    = 4096;
    const index_t     n_chunks = (n + chunk - 1) / chunk;
    const auto        part     = std::make_unique<double[]>(static_cast<std::size_t>(n_chunks));
#pragma omp parallel for schedule(static) if (static_cast <unsigned long long>(n) >= host_parallel_threshold)
    for (index_t c = 0; c < n_chunks; ++c)
      {
        double s = 0.0;
        for (index_t i = c * chunk; i < n && i < (c + 1) * chunk; ++i)
          s += f(i);
        part[static_cast<std::size_t>(c)] = s;
      }
    double sum = 0.0;
    for (index_t c = 0; c < n_chunks; ++c)
      sum += part[static_cast<std::size_t>(c)];
    return sum;
  }

  /// Returns max_i f(i) for i in [0, n) (-inf for n = 0; NaN terms are passed over).
  template <class F>
  double reduce_max(Backend backend, index_t n, const F &f)
  {
    double m = -std::numeric_limits<double>::infinity();
    if (n <= 0)
      return m;
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        return reduce_max_on_device(n, f);
#else
        throw_no_cuda("reduce_max");
#endif
      }
#pragma omp parallel for schedule(static) \
  reduction(max                           \
            : m) if (static_cast <unsigned long long>(n) >= host_parallel_threshold)
    for (index_t i = 0; i < n; ++i)
      {
        const double v = f(i);
        m              = v > m ? v : m;
      }
    return m;
  }

  /// Σ_i f(i) for i in [0, n) in double-double arithmetic (double_double.h): rounded to double,
  /// the same whatever the split of [0, n) into threads, blocks or ranks, but in the rarest cases.
  template <class F>
  DoubleDouble reduce_sum_accurate(Backend backend, index_t n, const F &f)
  {
    if (n <= 0)
      return {};
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        return reduce_sum_accurate_on_device(n, f);
#else
        throw_no_cuda("reduce_sum_accurate");
#endif
      }
    DoubleDouble sum;
#ifdef _OPENMP
    if (static_cast<unsigned long long>(n) >= host_parallel_threshold)
      {
        const int  threads = omp_get_max_threads();
        const auto part    = std::make_unique<DoubleDouble[]>(static_cast<std::size_t>(threads));
#pragma omp parallel
        {
          DoubleDouble s;
#pragma omp for schedule(static)
          for (index_t i = 0; i < n; ++i)
            s = s + double(f(i));
          part[std::size_t(omp_get_thread_num())] = s;
        }
        for (int t = 0; t < threads; ++t)
          sum = sum + part[std::size_t(t)];
        return sum;
      }
#endif
    for (index_t i = 0; i < n; ++i)
      sum = sum + double(f(i));
    return sum;
  }

  /// reduce_sum_accurate into *out, in the backend's memory: on the GPU without waiting for it
  /// (a later kernel on the stream reads it there), on the CPU at once. A chain of reductions
  /// whose terms read the previous results then waits on the host once, at its end.
  template <class F>
  void reduce_sum_accurate_into(Backend backend, index_t n, const F &f, DoubleDouble *out)
  {
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        reduce_sum_accurate_into_device(n, f, out);
        return;
#else
        throw_no_cuda("reduce_sum_accurate_into");
#endif
      }
    *out = reduce_sum_accurate(backend, n, f);
  }

  /// K sums at once, in one pass: f(i, t) sets the K terms t[c] of item i; sums[c] = Σ_i t[c]
  /// in double-double arithmetic (as reduce_sum_accurate).
  template <int K, class F>
  void reduce_sum_accurate(Backend backend, index_t n, const F &f, DoubleDouble (&sums)[K])
  {
    for (DoubleDouble &s : sums)
      s = DoubleDouble{};
    if (n <= 0)
      return;
    if (backend == Backend::cuda)
      {
#ifdef TPMG_WITH_CUDA
        reduce_sum_accurate_on_device<K>(n, f, sums);
        return;
#else
        throw_no_cuda("reduce_sum_accurate");
#endif
      }
    auto add_range = [&](index_t begin, index_t end, DoubleDouble(&s)[K]) {
      double t[K];
      for (index_t i = begin; i < end; ++i)
        {
          f(i, t);
          for (int c = 0; c < K; ++c)
            s[c] = s[c] + t[c];
        }
    };
#ifdef _OPENMP
    if (static_cast<unsigned long long>(n) >= host_parallel_threshold)
      {
        const int  threads = omp_get_max_threads();
        const auto part    = std::make_unique<DoubleDouble[]>(static_cast<std::size_t>(threads) * K);
#pragma omp parallel
        {
          const int    t = omp_get_thread_num(), nt = omp_get_num_threads();
          DoubleDouble s[K];
          add_range(n * t / nt, n * (t + 1) / nt, s);
          for (int c = 0; c < K; ++c)
            part[std::size_t(t) * K + std::size_t(c)] = s[c];
        }
        for (std::size_t i = 0; i < static_cast<std::size_t>(threads) * K; ++i)
          sums[i % K] = sums[i % K] + part[i];
        return;
      }
#endif
    add_range(0, n, sums);
  }
} // namespace tpmg
