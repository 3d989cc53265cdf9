// Warp-level 8×8×4, 16×8×4 and 16×8×8 double tile products on the tensor cores (DMMA, sm_80 and
// later), the primitives of the `tensor_core` patch smoother (patch_smoother_mma.h).
//
// A warp multiplies an 8×4 tile A by a 4×8 tile B into an 8×8 tile C. Lane l holds
//   A(l/4, l%4),   B(l%4, l/4),   C(l/4, 2(l%4) + e), e = 0, 1
// (PTX ISA, "mma.m8n8k4 with .f64"). Device code only: the CPU runner computes the same
// entries as dot products (MmaPatchKernel), and the GPU tests compare the two.
#pragma once

#include <tpmg/config.h>

namespace tpmg
{
  /// Where a lane's fragment entries sit in the tiles.
  struct MmaLane
  {
    int         lane;
    TPMG_HD int a_row() const { return lane >> 2; } ///< A(a_row, a_col), C(a_row, c_col(e))
    TPMG_HD int a_col() const { return lane & 3; }  ///< the k index of A and B
    TPMG_HD int b_col() const { return lane >> 2; } ///< B(a_col, b_col)
    TPMG_HD int c_col(int e) const { return 2 * (lane & 3) + e; }
  };

#if TPMG_DEVICE_CODE
  /// c += a b on the warp's fragments; every lane of the warp must call it (converged).
  __device__ __forceinline__ void mma_8x8x4(double (&c)[2], double a, double b)
  {
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
        : "+d"(c[0]), "+d"(c[1])
        : "d"(a), "d"(b));
#else
    // no DMMA: the lane gathers its row of A and its two columns of B by shuffles
    const int lane = int(threadIdx.x & 31), row = lane >> 2, col = 2 * (lane & 3);
    for (int q = 0; q < 4; ++q)
      {
        const double aq = __shfl_sync(0xffffffffu, a, 4 * row + q);
        c[0] += aq * __shfl_sync(0xffffffffu, b, 4 * col + q);
        c[1] += aq * __shfl_sync(0xffffffffu, b, 4 * (col + 1) + q);
      }
#endif
  }

  /// The 16×8×4 product (sm_90, the shape the H100 runs at the full FP64 tensor rate; the 8×8×4 one
  /// measured at about half: docs/performance/smoother.md, "Tensor cores"): A is 16×4, lane l holds
  /// A(l/4, l%4) in a0 and A(l/4 + 8, l%4) in a1; B as above; C(l/4, 2(l%4) + e) in c0, c1 and
  /// C(l/4 + 8, ...) in c2, c3.
  __device__ __forceinline__ void mma_16x8x4(double &c0, double &c1, double &c2, double &c3, double a0, double a1,
                                             double b)
  {
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
        : "+d"(c0), "+d"(c1), "+d"(c2), "+d"(c3)
        : "d"(a0), "d"(a1), "d"(b));
#else
    double lo[2] = {c0, c1}, hi[2] = {c2, c3};
    mma_8x8x4(lo, a0, b);
    mma_8x8x4(hi, a1, b);
    c0 = lo[0], c1 = lo[1], c2 = hi[0], c3 = hi[1];
#endif
  }

  /// The 16×8×8 product (sm_90): two consecutive 16×8×4 k steps in one instruction, the first
  /// with A entries a0, a1 and B entry b0, the second with a2, a3 and b1.
  __device__ __forceinline__ void mma_16x8x8(double &c0, double &c1, double &c2, double &c3, double a0, double a1,
                                             double a2, double a3, double b0, double b1)
  {
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+d"(c0), "+d"(c1), "+d"(c2), "+d"(c3)
        : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
    mma_16x8x4(c0, c1, c2, c3, a0, a1, b0);
    mma_16x8x4(c0, c1, c2, c3, a2, a3, b1);
#endif
  }
#endif
} // namespace tpmg
