// Expressions (expression.h): values against hand-computed ones and, where muparser is found
// at configure time (Debian's libmuparser-dev, which deal.II uses), against muparser itself on
// random expressions; errors; symbolic derivatives against finite differences.
#include <tpmg/expression.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#ifdef TPMG_TEST_MUPARSER
#include <muParser.h>
#endif

using namespace tpmg;

namespace
{
  double eval(const std::string &text, double x = 0.5, double y = 2, double z = 3)
  {
    return Expression(text, 3)(x, y, z);
  }

  std::string error_of(const std::string &text, int dim = 3)
  {
    try
      {
        Expression(text, dim);
      }
    catch (const ExpressionError &e)
      {
        return e.what();
      }
    return "";
  }
} // namespace

TEST(Expression, ValuesAndPrecedence)
{
  EXPECT_DOUBLE_EQ(eval("1 + x^2 - y*z + 3*x*y^2*z"), 1 + 0.25 - 6 + 3 * 0.5 * 4 * 3);
  EXPECT_DOUBLE_EQ(eval("-2^2"), -4);   // ^ binds tighter than unary minus, as in muparser
  EXPECT_DOUBLE_EQ(eval("2^3^2"), 512); // right to left
  EXPECT_DOUBLE_EQ(eval("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(eval("2*-x"), -1);
  EXPECT_DOUBLE_EQ(eval("4/2/2"), 1);
  EXPECT_DOUBLE_EQ(eval("2-1-1"), 0);
  EXPECT_DOUBLE_EQ(eval("x < y ? 1 : 2"), 1);
  EXPECT_DOUBLE_EQ(eval("0 ? 2 : 3 ? 4 : 5"), 4);
  EXPECT_DOUBLE_EQ(eval("1 || 0 && 0"), 1);
  EXPECT_DOUBLE_EQ(eval("log(100)"), std::log(100.0)); // natural, as muparser's
  EXPECT_DOUBLE_EQ(eval("log10(100)"), 2);
  EXPECT_DOUBLE_EQ(eval("min(3, x, y) + max(1, 2, z) + sum(1, 2, 3) + avg(1, 2, 3)"), 0.5 + 3 + 6 + 2);
  EXPECT_DOUBLE_EQ(eval("pi"), M_PI);
  EXPECT_DOUBLE_EQ(eval("_pi + _e + Pi"), 2 * M_PI + M_E);
  EXPECT_DOUBLE_EQ(eval("atan2(1, 2) + pow(2, 3) + if(x > 1, 5, 7)"), std::atan2(1.0, 2.0) + 8 + 7);
  EXPECT_DOUBLE_EQ(eval("rint(2.5) + floor(-1.5) + ceil(1.2) + int(-1.7) + sign(-3) + abs(-2)"), 3 - 2 + 2 - 2 - 1 + 2);
  // int() as deal.II 9.4's FunctionParser has it: the nearest integer, halves away from zero
  EXPECT_DOUBLE_EQ(eval("int(2.7)"), 3);
  EXPECT_DOUBLE_EQ(eval("int(2.3)"), 2);
  EXPECT_DOUBLE_EQ(eval("int(2.5)"), 3);
  EXPECT_DOUBLE_EQ(eval("int(-2.5)"), -3);
  EXPECT_DOUBLE_EQ(eval("1.5e2 + .5 + 2E-1"), 150.7);
  EXPECT_DOUBLE_EQ(eval("exp(x)*sin(2*y)*cos(z)"), std::exp(0.5) * std::sin(4.0) * std::cos(3.0));
  EXPECT_DOUBLE_EQ(eval("cot(x) + sec(x) + csc(x)"), 1 / std::tan(0.5) + 1 / std::cos(0.5) + 1 / std::sin(0.5));
  EXPECT_DOUBLE_EQ(Expression("x*y", 2)(3, 4), 12);
}

TEST(Expression, Simplification)
{
  EXPECT_TRUE(Expression().is_zero());
  EXPECT_TRUE(Expression("0", 3).is_zero());
  EXPECT_TRUE(Expression("2*0 + 0*x", 3).is_zero());
  EXPECT_FALSE(Expression("x", 3).is_zero());
  EXPECT_TRUE(Expression("2*pi + sin(1)", 3).is_constant());
  // folded constants take one instruction
  EXPECT_EQ(Expression("2*pi*3 + 1", 3).program().n_instructions, 1);
}

TEST(Expression, ErrorsNameTheColumn)
{
  EXPECT_EQ(error_of("x + w"), "column 5: unknown name 'w' (the variables are x, y, z; constants pi, _pi, _e)");
  EXPECT_EQ(error_of("x*z", 2), "column 3: 'z' is not a variable in 2D (the variables are x, y)");
  EXPECT_EQ(error_of("sin(x"), "column 6: expected ')' to close the arguments of 'sin' (end of expression)");
  EXPECT_EQ(error_of("1 +"), "column 4: expected a value (end of expression)");
  EXPECT_EQ(error_of("(1"), "column 3: expected ')' to close '(' (end of expression)");
  EXPECT_EQ(error_of("1)"), "column 2: unmatched ')'");
  EXPECT_EQ(error_of(""), "column 1: empty expression");
  EXPECT_EQ(error_of("  "), "column 3: empty expression");
  EXPECT_EQ(error_of("x y"), "column 3: unexpected 'y'");
  EXPECT_EQ(error_of("foo(x)"), "column 1: unknown function 'foo'");
  EXPECT_EQ(error_of("atan2(x)"), "column 1: 'atan2' takes 2 arguments, not 1");
  EXPECT_EQ(error_of("sin"), "column 1: function 'sin' needs its arguments in parentheses");
  EXPECT_EQ(error_of("1e"), "column 1: malformed number '1e'");
  EXPECT_EQ(error_of("1e999"), "column 1: number '1e999' out of range");
  EXPECT_EQ(error_of("3 % 2"), "column 3: unexpected '%'");
  // a control character is shown escaped: the message stays one printable line (found by
  // tools/fuzz/fuzz_expression.cc)
  EXPECT_EQ(error_of("x\x1d"), "column 2: unexpected byte \\x1d");
  EXPECT_EQ(error_of("sin(x\x01"), "column 6: expected ')' to close the arguments of 'sin', found byte \\x01");
  EXPECT_EQ(error_of("x ? 1"), "column 6: expected ':' after the first branch of '?' (end of expression)");
  std::string long_sum = "x";
  for (int i = 0; i < 80; ++i)
    long_sum += "+x";
  EXPECT_NE(error_of(long_sum).find("too long"), std::string::npos);
  std::string deep = "x";
  for (int i = 0; i < 30; ++i)
    deep = "x+(" + deep + ")";
  EXPECT_NE(error_of(deep).find("nested too deeply"), std::string::npos);
  // the parser's own recursion is bounded too
  EXPECT_NE(error_of(std::string(100000, '(') + "x").find("nested too deeply (more than 64 levels)"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(100000, '-') + "x").find("nested too deeply"), std::string::npos);
}

TEST(Expression, DerivativesMatchFiniteDifferences)
{
  const char *texts[] = {"1 + x^2 - y*z + 3*x*y^2*z",
                         "exp(x)*sin(2*y)*cos(z)",
                         "x^y + sqrt(z) / (1 + x^2)",
                         "atan2(y, x) + log(z) * tanh(x - y)",
                         "abs(x - 1) + asin(x/2) + acos(x/3) + atan(y)",
                         "erfc(x) + log2(y) + log10(z) + sinh(x)*cosh(y) + asinh(x) + acosh(y) + atanh(x/2)",
                         "x < 1 ? x^3 : -x",
                         "min(x, y)^2 + max(y, z)^2 + tan(x) + pow(x, 2.5)"};
  for (const char *t : texts)
    {
      const Expression u(t, 3);
      const double     p[3] = {0.5, 2.1, 2.9};
      for (int d = 0; d < 3; ++d)
        {
          const Expression du   = u.derivative(d);
          const double     h    = 1e-5;
          double           a[3] = {p[0], p[1], p[2]}, b[3] = {p[0], p[1], p[2]};
          a[d] += h;
          b[d] -= h;
          const double fd = (u(a[0], a[1], a[2]) - u(b[0], b[1], b[2])) / (2 * h);
          EXPECT_NEAR(du(p[0], p[1], p[2]), fd, 1e-7 * (1 + std::abs(fd))) << t << " d/d"
                                                                           << "xyz"[d];
        }
    }
  // derivatives of polynomials are exact
  EXPECT_DOUBLE_EQ(Expression("x^3*y", 2).derivative(0)(2, 5), 60);
}

#ifdef TPMG_TEST_MUPARSER
namespace
{
  /// A random expression of the grammar both parsers share.
  std::string random_expression(std::mt19937 &rng, int depth)
  {
    std::uniform_int_distribution<int> pick(0, depth > 0 ? 13 : 2);
    auto                               sub = [&] { return random_expression(rng, depth - 1); };
    switch (pick(rng))
      {
        case 0:
          return std::string(1, "xyz"[rng() % 3]);
        case 1:
          return std::to_string(int(rng() % 7)) + "." + std::to_string(int(rng() % 10));
        case 2:
          return "pi";
        case 3:
          return sub() + " + " + sub();
        case 4:
          return sub() + " - " + sub();
        case 5:
          return sub() + "*" + sub();
        case 6:
          return "(" + sub() + ")/(1.5 + " + sub() + "^2)";
        case 7:
          return "-(" + sub() + ")";
        case 8:
          return "(" + sub() + ")^" + std::to_string(int(rng() % 4));
        case 9:
          {
            const char *f[]  = {"sin", "cos", "exp", "atan", "tanh", "abs", "sqrt", "sign", "rint"};
            const char *name = f[rng() % 9];
            return std::string(name) + "(" + (std::string(name) == "exp" ? "0.1*" : "") + sub() + ")";
          }
        case 10:
          return sub() + " < " + sub() + " ? " + sub() + " : " + sub();
        case 11:
          return "min(" + sub() + ", " + sub() + ") + max(" + sub() + ", " + sub() + ")";
        case 12:
          return "(" + sub() + " >= " + sub() + " || " + sub() + " != " + sub() + ") && " + sub() + " <= 1";
        default:
          return "2^-" + std::string(1, "xyz"[rng() % 3]) + "^2";
      }
  }
} // namespace

TEST(Expression, AgreesWithMuparser)
{
  std::mt19937 rng(7);
  int          compared = 0, too_long = 0;
  for (int trial = 0; trial < 3000; ++trial)
    {
      const std::string text = random_expression(rng, 3);
      double            x = 0.3 + 0.1 * (trial % 7), y = -0.7 + 0.2 * (trial % 5), z = 1.1 - 0.3 * (trial % 3);
      mu::Parser        ref;
      ref.DefineVar("x", &x);
      ref.DefineVar("y", &y);
      ref.DefineVar("z", &z);
      ref.DefineConst("pi", M_PI);
      ref.SetExpr(text);
      double expected = 0;
      try
        {
          expected = ref.Eval();
        }
      catch (const mu::Parser::exception_type &e)
        {
          ADD_FAILURE() << "muparser rejects " << text << ": " << e.GetMsg();
          continue;
        }
      double actual = 0;
      try
        {
          actual = Expression(text, 3)(x, y, z);
        }
      catch (const ExpressionError &e) // more instructions than a program holds
        {
          EXPECT_NE(std::string(e.what()).find("too long"), std::string::npos) << text << ": " << e.what();
          ++too_long;
          continue;
        }
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(actual)) << text;
      else if (std::isinf(expected))
        EXPECT_EQ(actual, expected) << text;
      else
        EXPECT_NEAR(actual, expected, 1e-12 * (1 + std::abs(expected))) << text;
      ++compared;
    }
  EXPECT_EQ(compared + too_long, 3000);
  EXPECT_GT(compared, 2500);
}
#endif
