// Probe of what a dependent step costs on the GPU, for deciding whether the colours of a smoothing
// step should run in one launch separated by grid-wide barriers instead of one launch each:
//   graph:       a CUDA graph of `steps` launches of a small kernel, replayed (what the V-cycle's
//                graph does with its colour launches)
//   cooperative: one cooperative launch whose blocks run the same steps with a grid barrier
//                (cooperative_groups::this_grid().sync()) after each
//   coop graph:  that cooperative launch recorded in a graph
// Each step reads, per element, the entry s places further in the same array and writes its own
// (in place: threads race on the values, which the timing does not care about), so that a step
// depends on the one before it. Printed per step in microseconds, best of 17 replays, for several
// array sizes and grid sizes (docs/performance/solve.md, "Small solves: launches, not bytes").
// Run: benchmarks/reproduce.sh grid-sync-probe (built as target grid_sync_probe).
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>

namespace
{
  constexpr int steps = 64, threads = 256;

  __device__ void one_step(float *x, int n, int s)
  {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
      x[i] = 0.5f * x[(i + s) % n] + 1.f;
  }

  __global__ void step_kernel(float *x, int n, int s) { one_step(x, n, s); }

  __global__ void all_steps(float *x, int n)
  {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int s = 1; s <= steps; ++s)
      {
        one_step(x, n, s);
        grid.sync();
      }
  }

  void check(cudaError_t e, const char *what)
  {
    if (e != cudaSuccess)
      {
        std::fprintf(stderr, "grid_sync_probe: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
      }
  }

  /// best time of `run` over 17 of 20 repetitions (the first three warm up), per step [us]
  template <class Run>
  float per_step(cudaStream_t stream, Run run)
  {
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    float best = 1e30f;
    for (int r = 0; r < 20; ++r)
      {
        check(cudaEventRecord(start, stream), "record");
        run();
        check(cudaEventRecord(stop, stream), "record");
        check(cudaEventSynchronize(stop), "synchronize");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        if (r >= 3 && ms < best)
          best = ms;
      }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return 1e3f * best / steps;
  }
} // namespace

int main()
{
  float *x = nullptr;
  check(cudaMalloc(&x, sizeof(float) << 22), "allocation");
  check(cudaMemset(x, 0, sizeof(float) << 22), "memset");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  int sms = 0, resident = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "attribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, all_steps, threads, 0), "occupancy");
  std::printf("# %d SMs, %d resident blocks of %d threads per SM; per step [us]\n", sms, resident, threads);
  std::printf("# elements blocks graph cooperative coop_graph\n");
  for (int n : {4096, 32768, 131072, 1 << 20, 1 << 22})
    for (int blocks : {16, 132, 264, 528})
      {
        if (blocks > sms * resident)
          continue;
        void       *args[] = {&x, &n};
        cudaGraph_t launches, cooperative;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capture");
        for (int s = 1; s <= steps; ++s)
          step_kernel<<<blocks, threads, 0, stream>>>(x, n, s);
        check(cudaStreamEndCapture(stream, &launches), "capture");
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capture");
        check(cudaLaunchCooperativeKernel((void *)all_steps, blocks, threads, args, 0, stream), "cooperative launch");
        check(cudaStreamEndCapture(stream, &cooperative), "capture");
        cudaGraphExec_t launches_exec, cooperative_exec;
        check(cudaGraphInstantiate(&launches_exec, launches, 0), "instantiate");
        check(cudaGraphInstantiate(&cooperative_exec, cooperative, 0), "instantiate");
        const float g  = per_step(stream, [&] { check(cudaGraphLaunch(launches_exec, stream), "graph launch"); });
        const float c  = per_step(stream, [&] {
          check(cudaLaunchCooperativeKernel((void *)all_steps, blocks, threads, args, 0, stream), "cooperative launch");
        });
        const float cg = per_step(stream, [&] { check(cudaGraphLaunch(cooperative_exec, stream), "graph launch"); });
        std::printf("%d %d %.2f %.2f %.2f\n", n, blocks, g, c, cg);
        cudaGraphExecDestroy(launches_exec);
        cudaGraphExecDestroy(cooperative_exec);
        cudaGraphDestroy(launches);
        cudaGraphDestroy(cooperative);
      }
  return 0;
}
