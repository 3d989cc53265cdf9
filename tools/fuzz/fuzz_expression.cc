// libFuzzer target for the expression parser (src/base/expression.cc): the first byte picks
// the dimension (2 or 3), the rest is the text of a Problem function as a user writes it.
//
// An ExpressionError is the expected answer to bad text (poisson_solver's exit code 2): its
// message must be one printable line that names a column. A parsed expression must evaluate,
// with its symbolic derivatives, without what AddressSanitizer and UndefinedBehaviorSanitizer
// report; one that says it is constant must give the same value at every point and zero
// derivatives (NaN aside); parsing its own text again must give the same values. Anything
// else (another exception, a failed check) is a finding and aborts. Built and run by
// scripts/fuzz.sh expression.
#include <tpmg/expression.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace
{
  using namespace tpmg;

  [[noreturn]] void finding(const std::string &what, const std::string &text)
  {
    std::fprintf(stderr, "\n==== fuzz_expression finding: %s\nexpression: '%s'\n====\n", what.c_str(), text.c_str());
    std::abort();
  }

  /// Equal, or both NaN.
  bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

  const double points[][3] = {{0, 0, 0}, {0.25, 0.5, 0.75}, {1, 1, 1}, {-0.3, 2.5, 0.1}};

  void check(const Expression &e, const std::string &text, int dim)
  {
    double first = 0;
    for (int p = 0; p < 4; ++p)
      {
        const double v = e(points[p][0], points[p][1], points[p][2]);
        if (p == 0)
          first = v;
        else if (e.is_constant() && !same(v, first))
          finding("an expression that says it is constant takes two values", text);
      }
    const Expression again(e.text(), dim);
    for (const auto &x : points)
      if (!same(again(x[0], x[1], x[2]), e(x[0], x[1], x[2])))
        finding("its own text parses to another function", text);
    for (int d = 0; d < dim; ++d)
      {
        Expression de;
        try
          {
            de = e.derivative(d);
          }
        catch (const ExpressionError &)
          {
            continue; // a derivative too long for the program: refused, with a message
          }
        for (const auto &x : points)
          {
            const double v = de(x[0], x[1], x[2]);
            if (e.is_constant() && !(v == 0 || std::isnan(v)))
              finding("a constant expression with a non-zero derivative", text);
          }
      }
  }
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  if (size < 1)
    return 0;
  const int         dim = 2 + (data[0] & 1);
  const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  try
    {
      const Expression e(text, dim);
      check(e, text, dim);
    }
  catch (const ExpressionError &err)
    {
      const std::string m = err.what();
      for (char c : m)
        if ((unsigned char)c < 0x20 || c == 0x7f)
          finding("an error message that is not one printable line: '" + m + "'", text);
      // (where a position is meaningful, the message names its column; the limits of the
      // compiled program are about the whole expression)
      if (m.rfind("column ", 0) != 0 && m.find("too long") == std::string::npos &&
          m.find("too many") == std::string::npos && m.find("too deeply") == std::string::npos)
        finding("an error message that names no column: '" + m + "'", text);
    }
  catch (const std::exception &err)
    {
      finding(std::string("an exception other than ExpressionError: ") + err.what(), text);
    }
  return 0;
}
