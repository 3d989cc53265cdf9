// The compiled form of an expression (tpmg/expression.h): a short postfix program over x, y, z
// that the CPU loops and the GPU kernels run alike. A fixed-size object with no pointers, so it
// travels by value into kernels; includes nothing of the host side.
#pragma once

#include <tpmg/config.h>

#include <cmath>
#include <cstdint>

namespace tpmg
{
  /// The instructions of a compiled expression, a fixed-size object that travels by value into
  /// kernels (their parameters live in constant memory, read by every thread alike).
  struct ExpressionProgram
  {
    enum Op : std::uint8_t
    {
      constant, // push constants[arg]
      variable, // push x, y or z (arg = 0, 1, 2)
      negate,
      add,
      subtract,
      multiply,
      divide,
      power,         // a^b
      integer_power, // a^arg, arg in [0, 16]: repeated multiplication
      less,
      greater,
      less_equal,
      greater_equal,
      equal,
      not_equal,
      logical_and,
      logical_or,
      select, // c ? a : b (both evaluated; expressions have no side effects)
      minimum,
      maximum,
      arc_tangent2,
      // functions of one argument
      sine,
      cosine,
      tangent,
      arc_sine,
      arc_cosine,
      arc_tangent,
      hyperbolic_sine,
      hyperbolic_cosine,
      hyperbolic_tangent,
      area_sine,
      area_cosine,
      area_tangent,
      exponential,
      logarithm,
      logarithm2,
      logarithm10,
      square_root,
      absolute,
      signum,
      round_half_up, // muparser's rint: floor(a + 0.5)
      floor_of,
      ceiling,
      round_nearest, // deal.II's int(): the nearest integer, halves away from zero
      erfc_of,
    };

    static constexpr int max_instructions = 128;
    static constexpr int max_constants    = 32;
    static constexpr int max_stack        = 24;

    std::uint8_t op[max_instructions]     = {};
    std::uint8_t arg[max_instructions]    = {};
    double       constants[max_constants] = {};
    int          n_instructions           = 0;
    /// A periodic box (Expression::periodic): along direction d with period[d] > 0 a coordinate
    /// outside [lower[d], lower[d] + period[d]) is taken from the other end (the function seen
    /// from the ghost cells beyond a periodic face is the function there).
    double period[3] = {0, 0, 0}, lower[3] = {0, 0, 0};

    TPMG_HD double wrap(int d, double x) const
    {
      const double t = x - lower[d];
      return period[d] > 0 && (t < 0 || t >= period[d]) ? x - period[d] * ::floor(t / period[d]) : x;
    }

    /// The value at (x, y, z); in 2D z is ignored.
    TPMG_HD TPMG_NOINLINE double operator()(double x, double y, double z) const
    {
      x = wrap(0, x);
      y = wrap(1, y);
      z = wrap(2, z);
      double s[max_stack];
      int    top = -1;
      for (int i = 0; i < n_instructions; ++i)
        {
          const int a = arg[i];
          switch (op[i])
            {
              case constant:
                s[++top] = constants[a];
                break;
              case variable:
                s[++top] = a == 0 ? x : a == 1 ? y : z;
                break;
              case negate:
                s[top] = -s[top];
                break;
              case integer_power:
                {
                  const double b = s[top];
                  double       r = 1;
                  for (int e = 0; e < a; ++e)
                    r *= b;
                  s[top] = r;
                }
                break;
              case select:
                top -= 2;
                s[top] = s[top] != 0 ? s[top + 1] : s[top + 2];
                break;
              default:
                if (op[i] < sine)
                  {
                    --top;
                    s[top] = binary(op[i], s[top], s[top + 1]);
                  }
                else
                  s[top] = unary(op[i], s[top]);
            }
        }
      return s[0];
    }

    TPMG_HD static double binary(int o, double a, double b)
    {
      switch (o)
        {
          case add:
            return a + b;
          case subtract:
            return a - b;
          case multiply:
            return a * b;
          case divide:
            return a / b;
          case power:
            return ::pow(a, b);
          case less:
            return a < b;
          case greater:
            return a > b;
          case less_equal:
            return a <= b;
          case greater_equal:
            return a >= b;
          case equal:
            return a == b;
          case not_equal:
            return a != b;
          case logical_and:
            return (a != 0) && (b != 0);
          case logical_or:
            return (a != 0) || (b != 0);
          case minimum: // as std::min and muparser: a NaN first argument is kept
            return b < a ? b : a;
          case maximum:
            return a < b ? b : a;
          default: // arc_tangent2
            return ::atan2(a, b);
        }
    }

    TPMG_HD static double unary(int o, double a)
    {
      switch (o)
        {
          case sine:
            return ::sin(a);
          case cosine:
            return ::cos(a);
          case tangent:
            return ::tan(a);
          case arc_sine:
            return ::asin(a);
          case arc_cosine:
            return ::acos(a);
          case arc_tangent:
            return ::atan(a);
          case hyperbolic_sine:
            return ::sinh(a);
          case hyperbolic_cosine:
            return ::cosh(a);
          case hyperbolic_tangent:
            return ::tanh(a);
          case area_sine:
            return ::asinh(a);
          case area_cosine:
            return ::acosh(a);
          case area_tangent:
            return ::atanh(a);
          case exponential:
            return ::exp(a);
          case logarithm:
            return ::log(a);
          case logarithm2:
            return ::log2(a);
          case logarithm10:
            return ::log10(a);
          case square_root:
            return ::sqrt(a);
          case absolute:
            return ::fabs(a);
          case signum:
            return a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
          case round_half_up:
            return ::floor(a + 0.5);
          case floor_of:
            return ::floor(a);
          case ceiling:
            return ::ceil(a);
          case round_nearest:
            return ::round(a);
          default: // erfc_of
            return ::erfc(a);
        }
    }
  };
} // namespace tpmg
