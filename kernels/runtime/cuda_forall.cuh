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

    /// Where a reduction's blocks meet: a counter of the blocks done (zero between reductions)
    /// and the results, in page-locked host memory that the device writes directly
    /// (`device` is its device address), so that the host reads them after the stream's
    /// synchronization without a copy. One per process, as the partial sums' scratch: the
    /// reductions run one after another on the library's stream (never inside a CUDA graph,
    /// whose recording forbids the synchronization), from one host thread.
    struct ReductionSlots
    {
      unsigned     *counter;
      DoubleDouble *host, *device;
    };
    constexpr int  max_accurate_sums = 8;
    ReductionSlots reduction_slots();

    /// Whether this block is the last of the grid to arrive, after each block's thread 0 stored
    /// the block's partial sums; the last block then sees all of them and resets the counter.
    __device__ inline bool last_block(unsigned *counter)
    {
      __shared__ bool last;
      if (threadIdx.x == 0)
        {
          __threadfence(); // the partial sums before the count
          last = atomicAdd(counter, 1u) == gridDim.x - 1;
          if (last)
            {
              __threadfence(); // the other blocks' sums after the count (the barrier passes it on)
              *counter = 0;
            }
        }
      __syncthreads();
      return last;
    }

    /// The sum of partial[c], partial[K + c], ... partial[(blocks - 1) K + c] into *out: each
    /// thread a strided part in block order, then the tree (the same order on every run).
    template <int K>
    __device__ void final_sum(const DoubleDouble *partial, int blocks, int c, DoubleDouble *out)
    {
      DoubleDouble s;
      for (int i = int(threadIdx.x); i < blocks; i += accurate_block)
        s = s + DoubleDouble{__ldcg(&partial[std::size_t(i) * K + c].hi), __ldcg(&partial[std::size_t(i) * K + c].lo)};
      const DoubleDouble b = block_sum(s);
      if (threadIdx.x == 0)
        out[c] = b;
      __syncthreads(); // block_sum's shared arrays are used again
    }

    /// The K sums of a grid-stride loop of terms per thread (f(i, t) gives the K terms of index
    /// i): each block's sums into partial[block * K + c], then the last block to finish adds
    /// them into out[c]. One launch per reduction: a separate kernel for the final sums cost a
    /// launch of 5 us each (docs/performance/solve.md, "Reductions in one launch").
    template <int K, class F>
    __global__ void __launch_bounds__(accurate_block)
      accurate_sums(const F f, index_t n, DoubleDouble *partial, unsigned *counter, DoubleDouble *out)
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
      if (last_block(counter))
        for (int c = 0; c < K; ++c)
          final_sum<K>(partial, int(gridDim.x), c, out);
    }

    /// One term per index as the K = 1 case of accurate_sums.
    template <class F>
    struct OneTerm
    {
      F               f;
      __device__ void operator()(index_t i, double *t) const { t[0] = double(f(i)); }
    };

    /// Launches accurate_sums of g over [0, n) into out[0, K) (device or mapped memory) on the
    /// current stream.
    template <int K, class G>
    void launch_accurate_sums(index_t n, const G &g, DoubleDouble *out)
    {
      const index_t blocks = std::min<index_t>((n + accurate_block - 1) / accurate_block, forall_grid_limit());
      const index_t grid   = std::max<index_t>(blocks, 1); // (n = 0: one block adds nothing)
      auto *partial = static_cast<DoubleDouble *>(reduction_scratch(std::size_t(grid) * K * sizeof(DoubleDouble)));
      accurate_sums<K>
        <<<unsigned(grid), accurate_block, 0, current_stream()>>>(g, n, partial, reduction_slots().counter, out);
      TPMG_CUDA_CHECK(cudaGetLastError());
    }

    /// accurate_sums of g over [0, n) into sums[0, K) on the host: through the mapped slots,
    /// after the stream is done.
    template <int K, class G>
    void accurate_sums_on_device(index_t n, const G &g, DoubleDouble *sums)
    {
      static_assert(K <= max_accurate_sums, "reduction_slots holds max_accurate_sums results");
      const ReductionSlots slots = reduction_slots();
      launch_accurate_sums<K>(n, g, slots.device);
      TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
      std::copy(slots.host, slots.host + K, sums);
    }
  } // namespace internal

  /// As reduce_sum_on_device in double-double arithmetic: a grid-stride loop of double-double
  /// sums per thread (each term read once, as forall does), a tree per block, and the last block
  /// over the blocks' sums.
  template <class F>
  DoubleDouble reduce_sum_accurate_on_device(index_t n, const F &f)
  {
    DoubleDouble result;
    internal::accurate_sums_on_device<1>(n, internal::OneTerm<F>{f}, &result);
    return result;
  }

  template <int K, class F>
  void reduce_sum_accurate_on_device(index_t n, const F &f, DoubleDouble (&sums)[K])
  {
    internal::accurate_sums_on_device<K>(n, f, sums);
  }

  /// The sum into device memory, without waiting (reduce_sum_accurate_into).
  template <class F>
  void reduce_sum_accurate_into_device(index_t n, const F &f, DoubleDouble *out)
  {
    internal::launch_accurate_sums<1>(n, internal::OneTerm<F>{f}, out);
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
#define TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_INTO(...)                                              \
  template void tpmg::reduce_sum_accurate_into_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &, \
                                                                   tpmg::DoubleDouble *);
#define TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE_MULTI(K, ...)                                           \
  template void tpmg::reduce_sum_accurate_on_device<K, __VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &, \
                                                                    tpmg::DoubleDouble(&)[K]);
