// Sums in double-double arithmetic (an unevaluated sum hi + lo of two doubles, about 106 bits):
// the reductions of the vector operations accumulate so, which makes their result, rounded to
// double at the end, independent of the order of the terms except in the rarest cases (the
// exact sum within about n 2^-106 of a rounding boundary). So a dot product does not depend on
// how the vector is split over threads, blocks or MPI ranks, and a distributed run reproduces the
// one-rank run bit for bit where the kernels are deterministic (the CPU runner on one thread).
// On the GPU, nvcc may fuse a term's product into the first addition (an FMA adds the exact
// product): the sum is then of slightly different terms, the same on every rank and thread, and
// no less accurate.
#pragma once

#include <tpmg/config.h>

namespace tpmg
{
  struct DoubleDouble
  {
    double hi = 0, lo = 0;

    /// a + b = s + e exactly (Knuth's TwoSum, any magnitudes)
    static TPMG_HD TPMG_FORCEINLINE DoubleDouble two_sum(double a, double b)
    {
      const double s = a + b, bb = s - a;
      return {s, (a - (s - bb)) + (b - bb)};
    }
    /// a + b = s + e exactly where |a| >= |b| (or a = 0)
    static TPMG_HD TPMG_FORCEINLINE DoubleDouble fast_two_sum(double a, double b)
    {
      const double s = a + b;
      return {s, b - (s - a)};
    }

    TPMG_HD TPMG_FORCEINLINE DoubleDouble operator+(double x) const
    {
      const DoubleDouble s = two_sum(hi, x);
      return fast_two_sum(s.hi, s.lo + lo);
    }
    TPMG_HD TPMG_FORCEINLINE DoubleDouble operator+(const DoubleDouble &o) const
    {
      const DoubleDouble s = two_sum(hi, o.hi);
      return fast_two_sum(s.hi, s.lo + (lo + o.lo));
    }
    /// the sum rounded to double
    TPMG_HD TPMG_FORCEINLINE double value() const { return hi + lo; }
  };

  /// The reduction operator of DoubleDouble sums (CUB).
  struct DoubleDoublePlus
  {
    TPMG_HD TPMG_FORCEINLINE DoubleDouble operator()(const DoubleDouble &a, const DoubleDouble &b) const
    {
      return a + b;
    }
  };
} // namespace tpmg
