// The access patterns of tools/bank_probe.cu (one warp loads the doubles at
// offsets[lane]), shared with the recorder's test, which checks the wavefronts Nsight Compute
// measured for them on the H100.
#pragma once

#include <vector>

namespace tpmg
{
  inline std::vector<std::vector<int>> bank_probe_patterns()
  {
    std::vector<std::vector<int>> p(6, std::vector<int>(32));
    for (int l = 0; l < 32; ++l)
      {
        const int a = l % 4, b = (l / 4) % 4, c = l / 16, h = l % 16;
        p[0][l] = l;                           // contiguous
        p[1][l] = (h < 8 ? h : h + 8) + 8 * c; // the half-warps interleaved by 8 doubles
        p[2][l] = h;                           // both half-warps the same 16 doubles
        p[3][l] = 4 * a + 18 * b + 73 * c;     // BP x fibers at nq = 4, the old layout table
        p[4][l] = 4 * a + 19 * b + 76 * c;     // the same with sz = 19
        p[5][l] = 16 * c + 2 * h;              // stride 2 doubles
      }
    return p;
  }
} // namespace tpmg
