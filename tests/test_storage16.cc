// The 16-bit roundings of tpmg/storage16.h against references built from the formats' bit
// patterns: every binary16 value, and random floats over the whole float range.
#include <tpmg/storage16.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace tpmg;

namespace
{
  /// The binary16 value of a bit pattern (sign, 5 exponent bits, 10 fraction bits).
  double half_value(std::uint16_t bits)
  {
    const int    sign = bits >> 15, exponent = (bits >> 10) & 31, fraction = bits & 1023;
    const double s = sign ? -1.0 : 1.0;
    if (exponent == 31)
      return fraction ? NAN : s * INFINITY;
    if (exponent == 0)
      return s * std::ldexp(double(fraction), -24);
    return s * std::ldexp(double(1024 + fraction), exponent - 25);
  }

  float bits_to_float(std::uint32_t b)
  {
    float v;
    std::memcpy(&v, &b, 4);
    return v;
  }

  /// Random floats: every exponent, both signs, and the halfway points of the 16-bit formats.
  std::vector<float> test_floats()
  {
    std::mt19937                                 rng(7);
    std::uniform_int_distribution<std::uint32_t> bits;
    std::vector<float>                           v;
    for (int i = 0; i < 200000; ++i)
      {
        const float f = bits_to_float(bits(rng));
        if (std::isfinite(f))
          v.push_back(f);
      }
    // halfway between neighbours of both formats (ties) and near the overflow thresholds
    for (int i = 0; i < 20000; ++i)
      {
        const std::uint32_t b = bits(rng) & 0x7FFFE000u; // 10 fraction bits, the 11th set below
        for (float f : {bits_to_float(b | 0x1000u), bits_to_float((b & 0x7FFF0000u) | 0x8000u)}) // bfloat16 tie
          if (std::isfinite(f))
            v.push_back(f);
      }
    for (float f : {65504.0f, 65519.0f, 65520.0f, 65535.0f, 6.0e-8f, 2.98e-8f, 2.9802322e-8f, 1e-30f, 3.3895314e38f,
                    3.3961775e38f, 3.4e38f, 1.0e-40f, 3 * 0x1p-25f /* a subnormal tie: to 2^-23 */})
      {
        v.push_back(f);
        v.push_back(-f);
      }
    return v;
  }
} // namespace

// Each of the 63,488 finite binary16 values is its own rounding.
TEST(Storage16, EveryHalfValueRoundsToItself)
{
  for (unsigned b = 0; b < 65536; ++b)
    {
      const double h = half_value(std::uint16_t(b));
      if (!std::isfinite(h))
        continue;
      ASSERT_EQ(double(round_to_half(float(h))), h) << "bits " << b;
    }
}

// round_to_half against the nearest value in the sorted table of all binary16 values (ties to
// the even bit pattern; from 65520 on, infinity).
TEST(Storage16, HalfRoundsToTheNearestValueTiesToEven)
{
  std::vector<std::pair<double, unsigned>> table; // non-negative finite values and their bits
  for (unsigned b = 0; b < 0x7C00; ++b)
    table.emplace_back(half_value(std::uint16_t(b)), b);
  for (float f : test_floats())
    {
      const double a = std::fabs(double(f));
      double       expected;
      if (a >= 65520.0)
        expected = INFINITY;
      else
        {
          auto hi = std::lower_bound(table.begin(), table.end(), std::make_pair(a, 0u));
          if (hi == table.end()) // between 65504 and 65520
            expected = table.back().first;
          else if (hi->first == a)
            expected = a;
          else
            {
              const auto   lo = hi - 1;
              const double dl = a - lo->first, dh = hi->first - a;
              expected = dl < dh ? lo->first : dh < dl ? hi->first : (lo->second % 2 == 0 ? lo : hi)->first;
            }
        }
      ASSERT_EQ(double(round_to_half(f)), std::copysign(expected, double(f))) << f;
    }
  EXPECT_TRUE(std::isnan(round_to_half(NAN)));
  EXPECT_EQ(round_to_half(INFINITY), INFINITY);
}

// round_to_bfloat16 against rounding the float's bit pattern to its upper 16 bits, ties to even
// (the classic bias trick; overflow to infinity follows from the carry into the exponent).
TEST(Storage16, BfloatRoundsTheUpperSixteenBitsTiesToEven)
{
  for (float f : test_floats())
    {
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      const std::uint32_t r = (b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u;
      const float         e = bits_to_float(r);
      ASSERT_EQ(round_to_bfloat16(f), e) << f;
    }
  EXPECT_TRUE(std::isnan(round_to_bfloat16(NAN)));
  EXPECT_EQ(round_to(Storage16::bfloat16, 1.0f + 1.0f / 256), 1.0f); // a tie, to the even 1.0
  EXPECT_EQ(round_to(Storage16::half, 1.0f + 1.0f / 2048), 1.0f);
  EXPECT_EQ(round_to_half(3 * 0x1p-25f), 0x1p-23f); // between the subnormals 2^-24 (odd) and 2^-23
}
