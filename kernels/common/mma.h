// Warp-level 8×8×4, 16×8×4 and 16×8×8 double tile products on the tensor cores (DMMA, sm_80 and
// later), the primitives of the `tensor_core` patch smoother (patch_mma.h), and the 16×8×8 TF32
// product with float sums of the fitted patch solves (patch_fitted_mma.h).
//
// A warp multiplies an 8×4 tile A by a 4×8 tile B into an 8×8 tile C. Lane l holds
//   A(l/4, l%4),   B(l%4, l/4),   C(l/4, 2(l%4) + e), e = 0, 1
// (PTX ISA, "mma.m8n8k4 with .f64"). Device code only: the CPU runner computes the same
// entries as dot products (MmaPatchKernel), and the GPU tests compare the two.
#pragma once

#include <tpmg/config.h>

#include <cstdint>
#include <cstring>

namespace tpmg
{
  /// The contraction stride of a shared tensor of `fibers` fibers of Numbers (fiber n at n,
  /// contraction index j at n + S j) from which tile products load their B fragments: the least
  /// S >= fibers with S ≡ g/4 (mod g), g the Numbers of one shared-memory wavefront, so that 4
  /// contraction indices × g/4 consecutive fibers (a fragment in one wavefront) hit distinct banks.
  template <typename Number>
  constexpr int fragment_stride(int fibers)
  {
    constexpr int g = 128 / int(sizeof(Number));
    return fibers + ((g / 4 - fibers % g) % g + g) % g;
  }

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

  /// A float rounded to TF32 (10 mantissa bits, to nearest with ties away from zero: what
  /// cvt.rna.tf32.f32 does), as a float: the CPU runner's model of the tensor cores' operands.
  inline TPMG_HD float round_to_tf32(float v)
  {
#if TPMG_DEVICE_CODE
    std::uint32_t u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(v));
    return __uint_as_float(u);
#else
    std::uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    if ((u & 0x7f800000u) != 0x7f800000u) // (infinities and NaNs stay)
      u = (u + 0x1000u) & ~0x1fffu;
    std::memcpy(&v, &u, sizeof v);
    return v;
#endif
  }

#if TPMG_DEVICE_CODE
  /// The 16×8×8 TF32 product with float sums (sm_80 and later), c += a b: lane l holds A(l/4, l%4),
  /// A(l/4 + 8, l%4), A(l/4, l%4 + 4), A(l/4 + 8, l%4 + 4) in a0..a3, B(l%4, l/4) and B(l%4 + 4, l/4)
  /// in b0, b1 (operands rounded by round_to_tf32), C as in mma_16x8x8: the lane layout of the
  /// double product.
  __device__ __forceinline__ void mma_16x8x8_tf32(float (&c)[4], const float (&a)[4], float b0, float b1)
  {
#if __CUDA_ARCH__ >= 800
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
          "r"(__float_as_uint(a[3])), "r"(__float_as_uint(b0)), "r"(__float_as_uint(b1)));
#else
    // no TF32 products: the lane gathers its rows of A and its columns of B by shuffles
    const int lane = int(threadIdx.x & 31), row = lane >> 2, col = 2 * (lane & 3);
    for (int q = 0; q < 8; ++q)
      {
        const int   src = 4 * row + (q & 3), h = q < 4 ? 0 : 2;
        const float a0 = __shfl_sync(0xffffffffu, a[h], src), a1 = __shfl_sync(0xffffffffu, a[h + 1], src);
        for (int e = 0; e < 2; ++e)
          {
            const float b = __shfl_sync(0xffffffffu, q < 4 ? b0 : b1, 4 * (col + e) + (q & 3));
            c[e] += a0 * b;
            c[2 + e] += a1 * b;
          }
      }
#endif
  }
#endif
} // namespace tpmg
