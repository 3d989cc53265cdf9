// Parser, simplifier, symbolic derivative and compiler of tpmg::Expression (muparser syntax).
//
// Precedence, lowest first, as muparser has it:  ?: (right to left)  ||  &&
// == != < > <= >=   + -   * /   unary - +   ^ (right to left, binds tighter than unary minus:
// -2^2 = -4, 2^-1 = 0.5).
#include <tpmg/expression.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

namespace tpmg
{
  namespace internal
  {
    using Op = ExpressionProgram::Op;

    struct ExpressionNode
    {
      Op                                                 op       = Op::constant;
      double                                             value    = 0; // constant
      int                                                variable = 0; // variable / integer power
      std::vector<std::shared_ptr<const ExpressionNode>> children;
    };
    using Node = std::shared_ptr<const ExpressionNode>;

    Node make_constant(double v)
    {
      auto n   = std::make_shared<ExpressionNode>();
      n->op    = Op::constant;
      n->value = v;
      return n;
    }

    Node make_variable(int d)
    {
      auto n      = std::make_shared<ExpressionNode>();
      n->op       = Op::variable;
      n->variable = d;
      return n;
    }

    bool is_constant_node(const Node &n, double v) { return n->op == Op::constant && n->value == v; }

    /// A node with the constants folded and the neutral elements of + - * / ^ removed.
    Node make(Op op, std::vector<Node> children, int int_arg = 0)
    {
      bool all_constant = true;
      for (const Node &c : children)
        all_constant = all_constant && c->op == Op::constant;
      auto n      = std::make_shared<ExpressionNode>();
      n->op       = op;
      n->variable = int_arg;
      n->children = std::move(children);
      if (all_constant)
        {
          ExpressionProgram p;
          // evaluate the node alone: its children are constants
          int ci = 0;
          for (const Node &c : n->children)
            {
              p.constants[ci]           = c->value;
              p.op[p.n_instructions]    = Op::constant;
              p.arg[p.n_instructions++] = std::uint8_t(ci++);
            }
          p.op[p.n_instructions]    = op;
          p.arg[p.n_instructions++] = std::uint8_t(int_arg);
          return make_constant(p(0, 0, 0));
        }
      const auto &c = n->children;
      switch (op)
        {
          case Op::add:
            if (is_constant_node(c[0], 0))
              return c[1];
            if (is_constant_node(c[1], 0))
              return c[0];
            break;
          case Op::subtract:
            if (is_constant_node(c[1], 0))
              return c[0];
            if (is_constant_node(c[0], 0))
              return make(Op::negate, {c[1]});
            break;
          case Op::multiply:
            if (is_constant_node(c[0], 0) || is_constant_node(c[1], 0))
              return make_constant(0);
            if (is_constant_node(c[0], 1))
              return c[1];
            if (is_constant_node(c[1], 1))
              return c[0];
            break;
          case Op::divide:
            if (is_constant_node(c[1], 1))
              return c[0];
            break;
          case Op::negate:
            if (c[0]->op == Op::negate)
              return c[0]->children[0];
            break;
          case Op::power:
            // small integer exponents by multiplication: exact, and faster than pow
            if (c[1]->op == Op::constant && c[1]->value >= 0 && c[1]->value <= 16 &&
                c[1]->value == std::floor(c[1]->value))
              {
                const int e = int(c[1]->value);
                if (e == 1)
                  return c[0];
                return make(Op::integer_power, {c[0]}, e);
              }
            break;
          case Op::integer_power:
            if (int_arg == 0)
              return make_constant(1);
            if (int_arg == 1)
              return c[0];
            break;
          default:
            break;
        }
      return n;
    }

    struct FunctionName
    {
      const char *name;
      Op          op;
      int         arguments; // -1: one or more (min, max, sum, avg)
    };

    // muparser's built-in functions, and those deal.II's FunctionParser adds
    constexpr FunctionName function_names[] = {
      {"sin", Op::sine, 1},
      {"cos", Op::cosine, 1},
      {"tan", Op::tangent, 1},
      {"asin", Op::arc_sine, 1},
      {"acos", Op::arc_cosine, 1},
      {"atan", Op::arc_tangent, 1},
      {"sinh", Op::hyperbolic_sine, 1},
      {"cosh", Op::hyperbolic_cosine, 1},
      {"tanh", Op::hyperbolic_tangent, 1},
      {"asinh", Op::area_sine, 1},
      {"acosh", Op::area_cosine, 1},
      {"atanh", Op::area_tangent, 1},
      {"exp", Op::exponential, 1},
      {"log", Op::logarithm, 1},
      {"ln", Op::logarithm, 1},
      {"log2", Op::logarithm2, 1},
      {"log10", Op::logarithm10, 1},
      {"sqrt", Op::square_root, 1},
      {"abs", Op::absolute, 1},
      {"sign", Op::signum, 1},
      {"rint", Op::round_half_up, 1},
      {"floor", Op::floor_of, 1},
      {"ceil", Op::ceiling, 1},
      {"int", Op::round_nearest, 1},
      {"erfc", Op::erfc_of, 1},
      {"atan2", Op::arc_tangent2, 2},
      {"pow", Op::power, 2},
      {"if", Op::select, 3},
      {"min", Op::minimum, -1},
      {"max", Op::maximum, -1},
      {"sum", Op::add, -1},
      {"avg", Op::divide, -1}, // sum / count
      {"cot", Op::tangent, 1}, // 1 / tan
      {"sec", Op::cosine, 1},  // 1 / cos
      {"csc", Op::sine, 1},    // 1 / sin
    };

    class Parser
    {
    public:
      Parser(const std::string &text, int dim) : s_(text), dim_(dim) {}

      Node parse()
      {
        skip_space();
        if (pos_ == s_.size())
          fail("empty expression");
        Node n = ternary();
        skip_space();
        if (pos_ != s_.size())
          fail(s_[pos_] == ')' ? "unmatched ')'" : "unexpected " + shown(s_[pos_]));
        return n;
      }

    private:
      /// A character of the text as an error message shows it: quoted, or as \xHH where it is
      /// not printable ASCII (the message stays one printable line)
      static std::string shown(char c)
      {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f)
          return "'" + std::string(1, c) + "'";
        const char *hex = "0123456789abcdef";
        return std::string("byte \\x") + hex[u >> 4] + hex[u & 15];
      }
      [[noreturn]] void fail(const std::string &what) const { fail_at(pos_, what); }
      [[noreturn]] void fail_at(std::size_t p, const std::string &what) const
      {
        throw ExpressionError("column " + std::to_string(p + 1) + ": " + what);
      }

      void skip_space()
      {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t'))
          ++pos_;
      }
      bool accept(const char *token)
      {
        skip_space();
        const std::size_t n = std::char_traits<char>::length(token);
        if (s_.compare(pos_, n, token) != 0)
          return false;
        pos_ += n;
        return true;
      }
      void expect(char c, const std::string &context)
      {
        skip_space();
        if (pos_ >= s_.size() || s_[pos_] != c)
          fail("expected '" + std::string(1, c) + "' " + context +
               (pos_ >= s_.size() ? " (end of expression)" : ", found " + shown(s_[pos_])));
        ++pos_;
      }

      /// Bounds the recursion of the descent (a fuzzer's "((((…" must not exhaust the stack).
      struct Nesting
      {
        Parser &p;
        explicit Nesting(Parser &parser) : p(parser)
        {
          if (++p.depth_ > max_nesting)
            p.fail("the expression is nested too deeply (more than " + std::to_string(max_nesting) + " levels)");
        }
        ~Nesting() { --p.depth_; }
      };
      static constexpr int max_nesting = 64;

      Node ternary()
      {
        const Nesting nesting(*this);
        Node          c = logical_or();
        if (!accept("?"))
          return c;
        Node a = ternary();
        expect(':', "after the first branch of '?'");
        Node b = ternary();
        return make(Op::select, {c, a, b});
      }
      Node logical_or()
      {
        Node a = logical_and();
        while (accept("||"))
          a = make(Op::logical_or, {a, logical_and()});
        return a;
      }
      Node logical_and()
      {
        Node a = comparison();
        while (accept("&&"))
          a = make(Op::logical_and, {a, comparison()});
        return a;
      }
      Node comparison()
      {
        Node a = additive();
        for (;;)
          {
            Op op;
            if (accept("<="))
              op = Op::less_equal;
            else if (accept(">="))
              op = Op::greater_equal;
            else if (accept("=="))
              op = Op::equal;
            else if (accept("!="))
              op = Op::not_equal;
            else if (accept("<"))
              op = Op::less;
            else if (accept(">"))
              op = Op::greater;
            else
              return a;
            a = make(op, {a, additive()});
          }
      }
      Node additive()
      {
        Node a = multiplicative();
        for (;;)
          {
            if (accept("+"))
              a = make(Op::add, {a, multiplicative()});
            else if (accept("-"))
              a = make(Op::subtract, {a, multiplicative()});
            else
              return a;
          }
      }
      Node multiplicative()
      {
        Node a = unary();
        for (;;)
          {
            if (accept("*"))
              a = make(Op::multiply, {a, unary()});
            else if (accept("/"))
              a = make(Op::divide, {a, unary()});
            else
              return a;
          }
      }
      Node unary()
      {
        const Nesting nesting(*this);
        if (accept("-"))
          return make(Op::negate, {unary()});
        if (accept("+"))
          return unary();
        return power();
      }
      Node power()
      {
        Node base = primary();
        if (accept("^"))
          return make(Op::power, {base, unary()}); // right to left: 2^3^2 = 2^9
        return base;
      }

      Node primary()
      {
        skip_space();
        if (pos_ >= s_.size())
          fail("expected a value (end of expression)");
        const char c = s_[pos_];
        if (c == '(')
          {
            ++pos_;
            Node n = ternary();
            expect(')', "to close '('");
            return n;
          }
        if ((c >= '0' && c <= '9') || c == '.')
          return number();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
          return name();
        fail("unexpected " + shown(c));
      }

      Node number()
      {
        const std::size_t start  = pos_;
        auto              digits = [&] {
          const std::size_t p = pos_;
          while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
            ++pos_;
          return pos_ > p;
        };
        bool any = digits();
        if (pos_ < s_.size() && s_[pos_] == '.')
          {
            ++pos_;
            any = digits() || any;
          }
        if (!any)
          fail_at(start, "malformed number");
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E'))
          {
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'))
              ++pos_;
            if (!digits())
              fail_at(start, "malformed number '" + s_.substr(start, pos_ - start) + "'");
          }
        double     v = 0;
        const auto r = std::from_chars(s_.data() + start, s_.data() + pos_, v);
        if (r.ec != std::errc() || r.ptr != s_.data() + pos_ || !std::isfinite(v))
          fail_at(start, "number '" + s_.substr(start, pos_ - start) + "' out of range");
        return make_constant(v);
      }

      Node name()
      {
        const std::size_t start = pos_;
        while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
          ++pos_;
        const std::string id = s_.substr(start, pos_ - start);
        skip_space();
        if (pos_ < s_.size() && s_[pos_] == '(')
          return call(id, start);
        static const char *vars[] = {"x", "y", "z"};
        for (int d = 0; d < 3; ++d)
          if (id == vars[d])
            {
              if (d >= dim_)
                fail_at(start,
                        "'" + id + "' is not a variable in " + std::to_string(dim_) + "D (the variables are x, y)");
              return make_variable(d);
            }
        if (id == "pi" || id == "Pi" || id == "_pi")
          return make_constant(3.14159265358979323846);
        if (id == "_e")
          return make_constant(2.71828182845904523536);
        for (const FunctionName &f : function_names)
          if (id == f.name)
            fail_at(start, "function '" + id + "' needs its arguments in parentheses");
        fail_at(start, "unknown name '" + id + "' (the variables are x, y" + std::string(dim_ == 3 ? ", z" : "") +
                         "; constants pi, _pi, _e)");
      }

      Node call(const std::string &id, std::size_t start)
      {
        const FunctionName *f = nullptr;
        for (const FunctionName &g : function_names)
          if (id == g.name)
            f = &g;
        if (!f)
          fail_at(start, "unknown function '" + id + "'");
        ++pos_; // '('
        std::vector<Node> args;
        skip_space();
        if (pos_ < s_.size() && s_[pos_] == ')')
          fail("'" + id + "' needs an argument");
        args.push_back(ternary());
        while (accept(","))
          args.push_back(ternary());
        expect(')', "to close the arguments of '" + id + "'");
        if (f->arguments > 0 && int(args.size()) != f->arguments)
          fail_at(start, "'" + id + "' takes " + std::to_string(f->arguments) + " argument" +
                           (f->arguments > 1 ? "s" : "") + ", not " + std::to_string(args.size()));
        const std::string name(f->name);
        if (name == "cot" || name == "sec" || name == "csc")
          return make(Op::divide, {make_constant(1), make(f->op, {args[0]})});
        if (f->arguments < 0)
          {
            Node r = args[0];
            for (std::size_t i = 1; i < args.size(); ++i)
              r = make(name == "avg" ? Op::add : f->op, {r, args[i]});
            if (name == "avg")
              r = make(Op::divide, {r, make_constant(double(args.size()))});
            return r;
          }
        return make(f->op, std::move(args));
      }

      const std::string &s_;
      int                dim_;
      std::size_t        pos_   = 0;
      int                depth_ = 0;
    };

    /// ∂n/∂x_d.
    Node differentiate(const Node &n, int d)
    {
      const auto &c   = n->children;
      auto        dc  = [&](int i) { return differentiate(c[std::size_t(i)], d); };
      auto        mul = [](Node a, Node b) { return make(Op::multiply, {a, b}); };
      auto        div = [](Node a, Node b) { return make(Op::divide, {a, b}); };
      auto        fn  = [](Op op, Node a) { return make(op, {a}); };
      auto        sq  = [](Node a) { return make(Op::integer_power, {a}, 2); };
      auto        one = make_constant(1);
      switch (n->op)
        {
          case Op::constant:
            return make_constant(0);
          case Op::variable:
            return make_constant(n->variable == d ? 1 : 0);
          case Op::negate:
            return fn(Op::negate, dc(0));
          case Op::add:
            return make(Op::add, {dc(0), dc(1)});
          case Op::subtract:
            return make(Op::subtract, {dc(0), dc(1)});
          case Op::multiply:
            return make(Op::add, {mul(dc(0), c[1]), mul(c[0], dc(1))});
          case Op::divide: // (a' b - a b') / b^2
            return div(make(Op::subtract, {mul(dc(0), c[1]), mul(c[0], dc(1))}), sq(c[1]));
          case Op::integer_power: // e a^(e-1) a'
            return mul(mul(make_constant(n->variable), make(Op::integer_power, {c[0]}, n->variable - 1)), dc(0));
          case Op::power:
            {
              // a^b (b' ln a + b a'/a); with a constant exponent b a^(b-1) a' (defined for a <= 0)
              const Node db = dc(1);
              if (db->op == Op::constant && db->value == 0)
                return mul(mul(c[1], make(Op::power, {c[0], make(Op::subtract, {c[1], one})})), dc(0));
              return mul(n, make(Op::add, {mul(db, fn(Op::logarithm, c[0])), div(mul(c[1], dc(0)), c[0])}));
            }
          case Op::select:
            return make(Op::select, {c[0], dc(1), dc(2)});
          case Op::minimum: // the derivative of the branch taken
            return make(Op::select, {make(Op::less, {c[1], c[0]}), dc(1), dc(0)});
          case Op::maximum:
            return make(Op::select, {make(Op::less, {c[0], c[1]}), dc(1), dc(0)});
          case Op::arc_tangent2: // atan2(a, b): (b a' - a b') / (a^2 + b^2)
            return div(make(Op::subtract, {mul(c[1], dc(0)), mul(c[0], dc(1))}), make(Op::add, {sq(c[0]), sq(c[1])}));
          case Op::sine:
            return mul(fn(Op::cosine, c[0]), dc(0));
          case Op::cosine:
            return mul(fn(Op::negate, fn(Op::sine, c[0])), dc(0));
          case Op::tangent: // (1 + tan^2) a'
            return mul(make(Op::add, {one, sq(n)}), dc(0));
          case Op::arc_sine:
            return div(dc(0), fn(Op::square_root, make(Op::subtract, {one, sq(c[0])})));
          case Op::arc_cosine:
            return fn(Op::negate, div(dc(0), fn(Op::square_root, make(Op::subtract, {one, sq(c[0])}))));
          case Op::arc_tangent:
            return div(dc(0), make(Op::add, {one, sq(c[0])}));
          case Op::hyperbolic_sine:
            return mul(fn(Op::hyperbolic_cosine, c[0]), dc(0));
          case Op::hyperbolic_cosine:
            return mul(fn(Op::hyperbolic_sine, c[0]), dc(0));
          case Op::hyperbolic_tangent:
            return mul(make(Op::subtract, {one, sq(n)}), dc(0));
          case Op::area_sine:
            return div(dc(0), fn(Op::square_root, make(Op::add, {sq(c[0]), one})));
          case Op::area_cosine:
            return div(dc(0), fn(Op::square_root, make(Op::subtract, {sq(c[0]), one})));
          case Op::area_tangent:
            return div(dc(0), make(Op::subtract, {one, sq(c[0])}));
          case Op::exponential:
            return mul(n, dc(0));
          case Op::logarithm:
            return div(dc(0), c[0]);
          case Op::logarithm2:
            return div(dc(0), mul(c[0], make_constant(std::log(2.0))));
          case Op::logarithm10:
            return div(dc(0), mul(c[0], make_constant(std::log(10.0))));
          case Op::square_root:
            return div(dc(0), mul(make_constant(2), n));
          case Op::absolute:
            return mul(fn(Op::signum, c[0]), dc(0));
          case Op::erfc_of: // -2/√π exp(-a^2) a'
            return mul(mul(make_constant(-1.12837916709551257390), fn(Op::exponential, fn(Op::negate, sq(c[0])))),
                       dc(0));
          default: // comparisons, logic, sign, rounding: piecewise constant
            return make_constant(0);
        }
    }

    /// Appends the postfix program of n; returns the stack depth it needs.
    int emit(const Node &n, ExpressionProgram &p, int &n_constants)
    {
      int depth = 0, i = 0;
      for (const Node &c : n->children)
        depth = std::max(depth, i++ + emit(c, p, n_constants));
      if (p.n_instructions >= ExpressionProgram::max_instructions)
        throw ExpressionError("the expression is too long (more than " +
                              std::to_string(ExpressionProgram::max_instructions) + " operations)");
      std::uint8_t arg = std::uint8_t(n->variable);
      if (n->op == Op::constant)
        {
          int k = 0;
          while (k < n_constants && p.constants[k] != n->value)
            ++k;
          if (k == n_constants)
            {
              if (n_constants == ExpressionProgram::max_constants)
                throw ExpressionError("the expression has too many different numbers (more than " +
                                      std::to_string(ExpressionProgram::max_constants) + ")");
              p.constants[n_constants++] = n->value;
            }
          arg = std::uint8_t(k);
        }
      p.op[p.n_instructions]    = n->op;
      p.arg[p.n_instructions++] = arg;
      return std::max(depth, 1);
    }
  } // namespace internal

  Expression::Expression() : text_("0"), root_(internal::make_constant(0)) { compile(); }

  Expression::Expression(const std::string &text, int dim) : text_(text), dim_(dim)
  {
    if (dim != 2 && dim != 3)
      throw ExpressionError("expressions are functions of 2 or 3 coordinates, not " + std::to_string(dim));
    root_ = internal::Parser(text, dim).parse();
    compile();
  }

  void Expression::compile()
  {
    program_        = ExpressionProgram{};
    int n_constants = 0;
    if (internal::emit(root_, program_, n_constants) > ExpressionProgram::max_stack)
      throw ExpressionError("the expression is nested too deeply (more than " +
                            std::to_string(ExpressionProgram::max_stack) + " pending values)");
  }

  bool Expression::is_zero() const { return internal::is_constant_node(root_, 0); }
  bool Expression::is_constant() const { return root_->op == internal::Op::constant; }

  Expression Expression::derivative(int d) const
  {
    Expression e;
    e.text_ = "d/d" + std::string(1, "xyz"[d]) + " (" + text_ + ")";
    e.dim_  = dim_;
    e.root_ = internal::differentiate(root_, d);
    e.compile();
    for (int r = 0; r < 3; ++r)
      {
        e.program_.period[r] = program_.period[r];
        e.program_.lower[r]  = program_.lower[r];
      }
    return e;
  }

  Expression Expression::periodic(const double (&lower)[3], const double (&period)[3]) const
  {
    Expression e = *this;
    for (int d = 0; d < 3; ++d)
      {
        if (!(period[d] >= 0) || !std::isfinite(period[d]))
          throw std::invalid_argument("Expression::periodic: period " + std::to_string(period[d]));
        e.program_.period[d] = period[d];
        e.program_.lower[d]  = lower[d];
      }
    return e;
  }
} // namespace tpmg
