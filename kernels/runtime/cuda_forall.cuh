// CUDA side of forall.h. Include only from .cu files.
#pragma once

#include <kernels/runtime/forall.h>

#include <algorithm>

#include <tpmg/cuda_check.h>

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

namespace tpmg
{
  namespace internal
  {
    template <class F>
    __global__ void __launch_bounds__(256) forall_kernel(const F f, index_t n)
    {
      for (index_t i = index_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += index_t(gridDim.x) * blockDim.x)
        f(i);
    }

    template <class F>
    struct AsDouble
    {
      F                 f;
      __device__ double operator()(index_t i) const { return double(f(i)); }
    };


    /// Grows-only device scratch space for reductions.
    void *reduction_scratch(std::size_t bytes);
    int   forall_grid_limit();
  } // namespace internal

  template <class F>
  void forall_on_device(index_t n, const F &f)
  {
    const index_t blocks = std::min<index_t>((n + 255) / 256, internal::forall_grid_limit());
    internal::forall_kernel<<<unsigned(blocks), 256, 0, current_stream()>>>(f, n);
    TPMG_CUDA_CHECK(cudaGetLastError());
  }

  template <class F>
  double reduce_sum_on_device(index_t n, const F &f)
  {
    thrust::counting_iterator<index_t> first(0);
    std::size_t                        temp_bytes = 0;
    const internal::AsDouble<F>        op{f};
    TPMG_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, first, (double *)nullptr, n,
                                                       cuda::std::plus<double>{}, op, 0.0, current_stream()));
    auto   *scratch = static_cast<unsigned char *>(internal::reduction_scratch(temp_bytes + 16));
    double *d_out   = reinterpret_cast<double *>(scratch);
    TPMG_CUDA_CHECK(cub::DeviceReduce::TransformReduce(scratch + 16, temp_bytes, first, d_out, n,
                                                       cuda::std::plus<double>{}, op, 0.0, current_stream()));
    double result = 0;
    TPMG_CUDA_CHECK(cudaMemcpyAsync(&result, d_out, sizeof(double), cudaMemcpyDeviceToHost, current_stream()));
    TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
    return result;
  }

  namespace internal
  {
    /// The larger of two values, NaN passed over (as the CPU loop does).
    struct MaxOf
    {
      __device__ double operator()(double a, double b) const { return b > a ? b : a; }
    };
  } // namespace internal

  template <class F>
  double reduce_max_on_device(index_t n, const F &f)
  {
    thrust::counting_iterator<index_t> first(0);
    std::size_t                        temp_bytes = 0;
    const internal::AsDouble<F>        op{f};
    const double                       lowest = -std::numeric_limits<double>::infinity();
    TPMG_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, first, (double *)nullptr, n,
                                                       internal::MaxOf{}, op, lowest, current_stream()));
    auto   *scratch = static_cast<unsigned char *>(internal::reduction_scratch(temp_bytes + 16));
    double *d_out   = reinterpret_cast<double *>(scratch);
    TPMG_CUDA_CHECK(cub::DeviceReduce::TransformReduce(scratch + 16, temp_bytes, first, d_out, n, internal::MaxOf{}, op,
                                                       lowest, current_stream()));
    double result = 0;
    TPMG_CUDA_CHECK(cudaMemcpyAsync(&result, d_out, sizeof(double), cudaMemcpyDeviceToHost, current_stream()));
    TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
    return result;
  }

  namespace internal
  {
    constexpr int accurate_block = 256;

    /// The block's double-double sum of the threads' sums s (in thread order), by thread 0.
    __device__ inline DoubleDouble block_sum(DoubleDouble s)
    {
      __shared__ double hi[accurate_block], lo[accurate_block];
      const int         t = int(threadIdx.x);
      hi[t]               = s.hi;
      lo[t]               = s.lo;
      __syncthreads();
      for (int w = accurate_block / 2; w > 0; w /= 2)
        {
          if (t < w)
            {
              const DoubleDouble a = DoubleDouble{hi[t], lo[t]} + DoubleDouble{hi[t + w], lo[t + w]};
              hi[t]                = a.hi;
              lo[t]                = a.lo;
            }
          __syncthreads();
        }
      return {hi[0], lo[0]};
    }

    /// Each thread adds the terms of a grid-stride loop to a double-double sum; partial[block]
    /// gets the block's sum.
    template <class F>
    __global__ void __launch_bounds__(accurate_block) accurate_partial_sums(const F f, index_t n, DoubleDouble *partial)
    {
      DoubleDouble s;
      for (index_t i = index_t(blockIdx.x) * accurate_block + threadIdx.x; i < n;
           i += index_t(gridDim.x) * accurate_block)
        s = s + double(f(i));
      const DoubleDouble b = block_sum(s);
      if (threadIdx.x == 0)
        partial[blockIdx.x] = b;
    }

    /// The K sums of a grid-stride loop of terms per thread, per block: partial[block * K + c].
    template <int K, class F>
    __global__ void __launch_bounds__(accurate_block)
      accurate_partial_sums_multi(const F f, index_t n, DoubleDouble *partial)
    {
      DoubleDouble s[K];
      double       t[K];
      for (index_t i = index_t(blockIdx.x) * accurate_block + threadIdx.x; i < n;
           i += index_t(gridDim.x) * accurate_block)
        {
          f(i, t);
          for (int c = 0; c < K; ++c)
            s[c] = s[c] + t[c];
        }
      for (int c = 0; c < K; ++c)
        {
          const DoubleDouble b = block_sum(s[c]);
          if (threadIdx.x == 0)
            partial[blockIdx.x * K + c] = b;
          __syncthreads(); // block_sum's shared arrays are used again
        }
    }

    /// One block per sum: sums[c] = Σ_b partial[b * K + c].
    template <int K>
    __global__ void __launch_bounds__(accurate_block)
      accurate_final_sums_multi(const DoubleDouble *partial, int blocks, DoubleDouble *out)
    {
      const int    c = int(blockIdx.x);
      DoubleDouble s;
      for (int i = int(threadIdx.x); i < blocks; i += accurate_block)
        s = s + partial[std::size_t(i) * K + c];
      const DoubleDouble b = block_sum(s);
      if (threadIdx.x == 0)
        out[c] = b;
    }

    /// One block: the sum of m partial sums into *out.
    __global__ void __launch_bounds__(accurate_block)
      accurate_final_sum(const DoubleDouble *partial, int m, DoubleDouble *out);
  } // namespace internal

  /// As reduce_sum_on_device in double-double arithmetic: a grid-stride loop of double-double
  /// sums per thread (each term read once, as forall does), a tree per block, and one block over
  /// the blocks' sums.
  template <class F>
  DoubleDouble reduce_sum_accurate_on_device(index_t n, const F &f)
  {
    const index_t blocks =
      std::min<index_t>((n + internal::accurate_block - 1) / internal::accurate_block, internal::forall_grid_limit());
    auto *scratch =
      static_cast<DoubleDouble *>(internal::reduction_scratch(std::size_t(blocks + 1) * sizeof(DoubleDouble)));
    internal::accurate_partial_sums<<<unsigned(blocks), internal::accurate_block, 0, current_stream()>>>(f, n,
                                                                                                         scratch + 1);
    TPMG_CUDA_CHECK(cudaGetLastError());
    internal::accurate_final_sum<<<1, internal::accurate_block, 0, current_stream()>>>(scratch + 1, int(blocks),
                                                                                       scratch);
    TPMG_CUDA_CHECK(cudaGetLastError());
    DoubleDouble result;
    TPMG_CUDA_CHECK(cudaMemcpyAsync(&result, scratch, sizeof(DoubleDouble), cudaMemcpyDeviceToHost, current_stream()));
    TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
    return result;
  }

  template <int K, class F>
  void reduce_sum_accurate_on_device(index_t n, const F &f, DoubleDouble (&sums)[K])
  {
    const index_t blocks =
      std::min<index_t>((n + internal::accurate_block - 1) / internal::accurate_block, internal::forall_grid_limit());
    auto *scratch =
      static_cast<DoubleDouble *>(internal::reduction_scratch(std::size_t(blocks + 1) * K * sizeof(DoubleDouble)));
    internal::accurate_partial_sums_multi<K>
      <<<unsigned(blocks), internal::accurate_block, 0, current_stream()>>>(f, n, scratch + K);
    TPMG_CUDA_CHECK(cudaGetLastError());
    internal::accurate_final_sums_multi<K>
      <<<K, internal::accurate_block, 0, current_stream()>>>(scratch + K, int(blocks), scratch);
    TPMG_CUDA_CHECK(cudaGetLastError());
    TPMG_CUDA_CHECK(cudaMemcpyAsync(sums, scratch, K * sizeof(DoubleDouble), cudaMemcpyDeviceToHost, current_stream()));
    TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
  }
} // namespace tpmg

#define TPMG_INSTANTIATE_DEVICE_FORALL(...) \
  template void tpmg::forall_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
#define TPMG_INSTANTIATE_DEVICE_REDUCE(...) \
  template double tpmg::reduce_sum_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
#define TPMG_INSTANTIATE_DEVICE_REDUCE_MAX(...) \
  template double tpmg::reduce_max_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
#define TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(...) \
  template tpmg::DoubleDouble tpmg::reduce_sum_accurate_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
#define TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_MULTI(K, ...)                                           \
  template void tpmg::reduce_sum_accurate_on_device<K, __VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &, \
                                                                    tpmg::DoubleDouble(&)[K]);
