// Functions of the coordinates given as text, in the syntax of muparser (which deal.II's
// FunctionParser uses): "1 + x^2 - y*z", "exp(x)*sin(2*y)*cos(z)", "x < 0.5 ? 1 : 0".
// docs/interface.md, "Expressions", lists the operators, functions and constants.
//
// An expression is parsed once on the host into a tree, simplified (constants folded), and
// compiled into a short postfix program (ExpressionProgram) that both backends run: the same
// instructions evaluate it in the CPU loops and in the GPU kernels, so the two give the same
// values up to the last bits of the math library. The tree also gives the exact partial
// derivatives (symbolic differentiation), which the H1 error of a user's exact solution needs.
#pragma once

#include <tpmg/config.h>
#include <tpmg/expression_program.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace tpmg
{
  /// A malformed expression: the message names the position ("column 7: unknown variable 'w'").
  class ExpressionError : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  namespace internal
  {
    struct ExpressionNode;
  }

  /// A parsed expression in the variables x, y (and z in 3D).
  class Expression
  {
  public:
    /// The zero function.
    Expression();
    /// Parses `text` with the variables of `dim` dimensions (x, y; x, y, z); throws
    /// ExpressionError with the column of the first problem.
    Expression(const std::string &text, int dim);

    /// The text it was parsed from ("0" for the zero function).
    const std::string &text() const { return text_; }
    int                dim() const { return dim_; }
    /// Whether it is the constant 0 after simplification (e.g. "0", "x - x" is not detected).
    bool is_zero() const;
    /// Whether it does not depend on the coordinates.
    bool is_constant() const;

    /// The compiled program (evaluation on either backend).
    const ExpressionProgram &program() const { return program_; }
    double                   operator()(double x, double y, double z = 0) const { return program_(x, y, z); }

    /// ∂/∂x_d of the expression, exact (symbolic). Throws ExpressionError if the derivative's
    /// program does not fit ExpressionProgram.
    Expression derivative(int d) const;

    /// The same function seen periodically along the directions d with period[d] > 0: a point
    /// outside [lower[d], lower[d] + period[d]) takes the value at its image inside (a periodic
    /// box's ghost cells beyond a face see the function of the other end). Derivatives keep it.
    Expression periodic(const double (&lower)[3], const double (&period)[3]) const;

  private:
    void compile();

    std::string                                     text_;
    int                                             dim_ = 3;
    std::shared_ptr<const internal::ExpressionNode> root_;
    ExpressionProgram                               program_;
  };
} // namespace tpmg
