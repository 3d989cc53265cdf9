// Probe of the dense direct coarse solve x_I = A_II⁻¹ b_I (kernels/linear_algebra/dense_coarse.h)
// for the sizes the coarse solves have (125 to 4096 unknowns), float:
//   thread per row  each thread walks its row of the row-major inverse and finds every b_j's node
//                   by index divisions: n / 32 warps in all
//   warp per row    the library's solve: b_I gathered into a vector (GatherCoarseUnknowns), then
//                   a warp per row reading 32 consecutive words per step (DenseCoarseRows)
// Printed per solve in microseconds, best of 7 groups of 20 solves (CUDA events on the library's
// stream), with the bandwidth the inverse was read at and the largest difference of the two
// results (docs/performance/solve.md, "Dense coarse solve").
// Run: benchmarks/reproduce.sh dense-coarse-probe (target dense_coarse_probe).
#include <tpmg/cuda_check.h>
#include <tpmg/vector.h>

#include <kernels/linear_algebra/dense_coarse.h>
#include <kernels/runtime/forall.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace
{
  using tpmg::index_t;

  __global__ void thread_per_row(tpmg::CoarseUnknowns u, const float *inverse, const float *b, float *x)
  {
    const index_t row = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (row >= u.n)
      return;
    float s = 0;
    for (index_t j = 0; j < u.n; ++j)
      s += inverse[row * u.n + j] * b[u.global(j)];
    x[u.global(row)] = s;
  }

  template <class Solve>
  float best_microseconds(const Solve &solve)
  {
    cudaEvent_t start, stop;
    TPMG_CUDA_CHECK(cudaEventCreate(&start));
    TPMG_CUDA_CHECK(cudaEventCreate(&stop));
    solve(); // warm-up
    float best = 1e30f;
    for (int group = 0; group < 7; ++group)
      {
        TPMG_CUDA_CHECK(cudaEventRecord(start, tpmg::current_stream()));
        for (int r = 0; r < 20; ++r)
          solve();
        TPMG_CUDA_CHECK(cudaEventRecord(stop, tpmg::current_stream()));
        TPMG_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        TPMG_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, ms * 1000 / 20);
      }
    TPMG_CUDA_CHECK(cudaEventDestroy(start));
    TPMG_CUDA_CHECK(cudaEventDestroy(stop));
    return best;
  }
} // namespace

int main()
{
  using tpmg::Backend;
  std::printf("%4s %6s %18s %16s %14s %12s\n", "m", "n", "thread/row [us]", "warp/row [us]", "warp [GB/s]",
              "max |diff|");
  for (int m : {5, 7, 10, 13, 15, 16})
    {
      const index_t              nodes[3] = {m + 2, m + 2, m + 2}; // Dirichlet faces all round
      const tpmg::CoarseUnknowns u        = tpmg::CoarseUnknowns::on(nodes, 3, 63u);
      const std::size_t          n = std::size_t(u.n), size = std::size_t(nodes[0] * nodes[1] * nodes[2]);
      std::vector<float>         a(n * n), bh(size);
      for (std::size_t i = 0; i < n * n; ++i)
        a[i] = float((i * 2654435761u) % 1000) * 1e-3f;
      for (std::size_t i = 0; i < size; ++i)
        bh[i] = float(i % 17);
      tpmg::Vector<float> inverse(index_t(n * n), Backend::cuda), b(index_t(size), Backend::cuda),
        x0(index_t(size), Backend::cuda), x1(index_t(size), Backend::cuda), gathered(index_t(n), Backend::cuda);
      inverse.from_host(a);
      b.from_host(bh);

      const float              per_thread = best_microseconds([&] {
        thread_per_row<<<unsigned((n + 127) / 128), 128, 0, tpmg::current_stream()>>>(u, inverse.data(), b.data(),
                                                                                      x0.data());
      });
      const float              per_warp   = best_microseconds([&] {
        tpmg::forall(Backend::cuda, u.n, tpmg::GatherCoarseUnknowns<float>{u, b.data(), gathered.data()});
        const tpmg::DenseCoarseRows<float> rows{u, inverse.data(), gathered.data(), x1.data()};
        tpmg::launch(Backend::cuda, rows, rows.shape());
      });
      const std::vector<float> r0 = x0.to_host(), r1 = x1.to_host();
      double                   diff = 0;
      for (std::size_t i = 0; i < size; ++i)
        diff = std::max(diff, std::fabs(double(r0[i]) - double(r1[i])) / (1 + std::fabs(double(r0[i]))));
      std::printf("%4d %6zu %18.1f %16.1f %14.0f %12.1e\n", m, n, per_thread, per_warp,
                  double(n * n * sizeof(float)) / (per_warp * 1e3), diff);
    }
  return 0;
}
