// The 16-bit floating-point formats a V-cycle could store its vectors in, as roundings of a
// float: IEEE binary16 (`half`: 10 fraction bits, exponents -14..15, subnormals down to 2^-24,
// largest 65504) and bfloat16 (7 fraction bits, float's exponent range). Each rounds to the
// nearest representable value, ties to even, and overflows to infinity, as the CUDA conversions
// __float2half_rn and __float2bfloat16_rn do; NaN stays NaN.
//
// The build switch TPMG_EMULATE_16BIT_STORAGE (src/multigrid/storage16_emulation.h) applies them to the
// V-cycle's vectors on the CPU backend, which measures what 16-bit storage does to the
// iterations (docs/performance/solve.md, "16-bit storage: what the iterations say").
#pragma once

#include <cmath>

namespace tpmg
{
  enum class Storage16
  {
    half,
    bfloat16
  };

  namespace internal
  {
    /// v rounded to `fraction_bits` bits after the leading one, the exponent at least
    /// `min_exponent` (below it the quantum stays 2^(min_exponent - fraction_bits): subnormals),
    /// ties to even; values beyond `largest` after rounding become infinite.
    inline float round_to_format(float v, int fraction_bits, int min_exponent, float largest)
    {
      if (!std::isfinite(v) || v == 0.0f)
        return v;
      int e = 0;
      std::frexp(v, &e); // |v| = m 2^e, m in [0.5, 1): the leading bit is 2^(e - 1)
      const int lead = e - 1 < min_exponent ? min_exponent : e - 1;
      // v in units of the last kept bit is exact (a power-of-two scaling), and nearbyint rounds
      // ties to even in the default rounding mode; scaling by ldexp keeps the quantum itself
      // (2^-133 for bfloat16's subnormals) out of float, where flush-to-zero would lose it
      const float r = std::ldexp(std::nearbyint(std::ldexp(v, fraction_bits - lead)), lead - fraction_bits);
      return std::fabs(r) > largest ? std::copysign(INFINITY, v) : r;
    }
  } // namespace internal

  /// v rounded to the nearest binary16 value (as a float).
  inline float round_to_half(float v) { return internal::round_to_format(v, 10, -14, 65504.0f); }
  /// v rounded to the nearest bfloat16 value (as a float).
  inline float round_to_bfloat16(float v) { return internal::round_to_format(v, 7, -126, 3.3895314e38f); }
  inline float round_to(Storage16 format, float v)
  {
    return format == Storage16::half ? round_to_half(v) : round_to_bfloat16(v);
  }
} // namespace tpmg
