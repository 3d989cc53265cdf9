// CUDA side of forall.h. Include only from .cu files.
#pragma once

#include <kernels/runtime/forall.h>

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

    template <class F>
    struct AsDoubleDouble
    {
      F                       f;
      __device__ DoubleDouble operator()(index_t i) const { return DoubleDouble{double(f(i)), 0.0}; }
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

  template <class F>
  DoubleDouble reduce_sum_accurate_on_device(index_t n, const F &f)
  {
    thrust::counting_iterator<index_t> first(0);
    std::size_t                        temp_bytes = 0;
    const internal::AsDoubleDouble<F>  op{f};
    TPMG_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, first, (DoubleDouble *)nullptr, n,
                                                       DoubleDoublePlus{}, op, DoubleDouble{}, current_stream()));
    auto         *scratch = static_cast<unsigned char *>(internal::reduction_scratch(temp_bytes + 16));
    DoubleDouble *d_out   = reinterpret_cast<DoubleDouble *>(scratch);
    TPMG_CUDA_CHECK(cub::DeviceReduce::TransformReduce(scratch + 16, temp_bytes, first, d_out, n, DoubleDoublePlus{},
                                                       op, DoubleDouble{}, current_stream()));
    DoubleDouble result;
    TPMG_CUDA_CHECK(cudaMemcpyAsync(&result, d_out, sizeof(DoubleDouble), cudaMemcpyDeviceToHost, current_stream()));
    TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
    return result;
  }
} // namespace tpmg

#define TPMG_INSTANTIATE_DEVICE_FORALL(...) \
  template void tpmg::forall_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
#define TPMG_INSTANTIATE_DEVICE_REDUCE(...) \
  template double tpmg::reduce_sum_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
#define TPMG_INSTANTIATE_DEVICE_REDUCE_ACCURATE(...) \
  template tpmg::DoubleDouble tpmg::reduce_sum_accurate_on_device<__VA_ARGS__>(tpmg::index_t, const __VA_ARGS__ &);
