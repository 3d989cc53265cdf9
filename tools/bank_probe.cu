// Probe of the shared-memory bank rule for 8-byte accesses (the rule kernels/runtime/bank_recorder.h
// assumes): one warp loads doubles at given word offsets; Nsight Compute counts the wavefronts
// per load instruction. The host prints what two models predict for each pattern:
//   warp:      the 32 lanes together, wavefronts = most distinct 4-byte words in one bank
//   half-warp: lanes 0-15 and 16-31 served separately, each as above, and added
// Run (built as target bank_probe, or: nvcc -arch=sm_90 -o bank_probe bank_probe.cu) under
//      ncu --metrics
// l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum
// ./bank_probe
#include <kernels/runtime/bank_probe_patterns.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

constexpr int repeats = 64;

__global__ void probe(const int *offsets, double *out)
{
  __shared__ double s[2048];
  for (int i = threadIdx.x; i < 2048; i += 32)
    s[i] = i;
  __syncwarp();
  volatile double *v   = s;
  const int        off = offsets[threadIdx.x];
  double           acc = 0;
  for (int r = 0; r < repeats; ++r)
    acc += v[off];
  out[threadIdx.x] = acc;
}

static int model(const std::vector<int> &off, int group)
{
  int total = 0;
  for (int g0 = 0; g0 < 32; g0 += group)
    {
      std::set<int> words;
      for (int l = g0; l < g0 + group; ++l)
        words.insert({2 * off[l], 2 * off[l] + 1});
      int per_bank[32] = {};
      for (int w : words)
        ++per_bank[w % 32];
      total += *std::max_element(per_bank, per_bank + 32);
    }
  return total;
}

int main()
{
  const std::vector<std::vector<int>> patterns = tpmg::bank_probe_patterns();
  int                                *d_off;
  double                             *d_out;
  cudaMalloc(&d_off, 32 * sizeof(int));
  cudaMalloc(&d_out, 32 * sizeof(double));
  for (std::size_t p = 0; p < patterns.size(); ++p)
    {
      cudaMemcpy(d_off, patterns[p].data(), 32 * sizeof(int), cudaMemcpyHostToDevice);
      probe<<<1, 32>>>(d_off, d_out);
      cudaDeviceSynchronize();
      std::printf("pattern %zu: predicted wavefronts per load: warp model %d, half-warp model %d\n", p,
                  model(patterns[p], 32), model(patterns[p], 16));
    }
  return cudaGetLastError() != cudaSuccess;
}
