// Outer solvers in double precision (docs/method.md, "Cycles and outer solvers"): flexible right-preconditioned GMRES,
// left-preconditioned GMRES, preconditioned CG, and the defect-correction loop used by the
// V-cycle iteration and full multigrid. The preconditioner is any object with
//   void vmult(Vector<double> &z, const Vector<double> &r)   // z = M^{-1} r
// (MixedPrecisionPreconditioner converts to and from the V-cycle's precision).
#pragma once

#include <tpmg/linear_operator.h>
#include <tpmg/timers.h>
#include <tpmg/vector.h>
#include <tpmg/vector_ops.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace tpmg
{
  /// The double vectors the outer solvers work in, kept between solves where
  /// SolverControl::workspace points here: each is made like the right-hand side on first use
  /// (contents undefined: every solver writes a vector before it reads it) and kept while the
  /// size and backend stay, so that repeated solves allocate and clear nothing (a GMRES basis
  /// of the Table 7 size is 6 GB a vector: its allocation and zero fill would cost as much as
  /// an iteration's vector work).
  struct SolverWorkspace
  {
    std::vector<Vector<double>> basis;          ///< GMRES: V
    std::vector<Vector<double>> preconditioned; ///< GMRES (right preconditioning): Z
    Vector<double>              r, w, p, q;     ///< residual and work vectors
    /// GMRES's modified Gram-Schmidt coefficients where the vectors are (modified_gram_schmidt)
    Vector<double> coefficients;
    /// Values of `coefficients` for a restart length: a double-double sum per projection and the
    /// norm (at most restart + 1 of them), and one spare.
    static index_t coefficient_values(int restart) { return 2 * (index_t(std::max(1, restart)) + 2); }

    /// v made like `like` (size, backend, layout), reused where it has the size already.
    static Vector<double> &prepare(Vector<double> &v, const Vector<double> &like)
    {
      if (v.size() != like.size() || v.backend() != like.backend())
        v.reinit_like(like, false);
      else
        v.set_layout(like.layout_ptr());
      return v;
    }
    /// Vector j of `set`, grown on demand.
    static Vector<double> &at(std::vector<Vector<double>> &set, int j, const Vector<double> &like)
    {
      while (int(set.size()) <= j)
        set.emplace_back();
      return prepare(set[std::size_t(j)], like);
    }
    /// Makes now every vector a solve of `solver` uses on vectors like `like` (gmres: the basis
    /// of `restart` vectors, and as many preconditioned ones with right preconditioning), so
    /// that the solves allocate nothing.
    void reserve(const Vector<double> &like, SolverType solver, int restart, bool right_preconditioning)
    {
      prepare(r, like);
      prepare(w, like);
      if (solver == SolverType::gmres)
        {
          for (int j = 0; j < std::max(1, restart); ++j)
            {
              at(basis, j, like);
              if (right_preconditioning)
                at(preconditioned, j, like);
            }
          if (coefficients.size() < coefficient_values(restart) || coefficients.backend() != like.backend())
            coefficients.reinit(coefficient_values(restart), like.backend(), false);
        }
      if (solver == SolverType::cg)
        {
          prepare(p, like);
          prepare(q, like);
        }
    }
  };

  /// When a solver stops and what it reports on the way.
  struct SolverControl
  {
    double relative_tolerance = 1e-9;
    int    max_iterations     = 100;
    int    restart            = 30; ///< GMRES basis size
    /// GMRES's Gram-Schmidt (options.h): modified, or classical twice with batched reductions.
    Orthogonalization orthogonalization = Orthogonalization::modified;
    /// x = 0 on entry (the caller guarantees it): the first residual is b, computed without an
    /// operator application (one fine-level operator and two vector passes per solve).
    bool zero_initial_guess = false;
    /// Called after every iteration with (iteration, residual norm, relative residual).
    std::function<void(int, double, double)> monitor;
    /// Vectors kept between solves (null: each solve makes its own).
    SolverWorkspace *workspace = nullptr;
  };

  /// How a solve went: iterations, convergence, the residual history.
  struct SolveStats
  {
    int                 iterations       = 0;
    bool                converged        = false;
    double              initial_residual = 0, final_residual = 0;
    std::vector<double> history; ///< residual norm after each iteration, [0] initial
    std::string         failure; ///< why the solve stopped without converging, if it did
    double relative_residual() const { return initial_residual > 0 ? final_residual / initial_residual : 0.0; }
    /// Geometric mean reduction per iteration.
    double average_reduction() const
    {
      return iterations > 0 && initial_residual > 0 ? std::pow(final_residual / initial_residual, 1.0 / iterations)
                                                    : 0.0;
    }
  };

  /// Wraps a preconditioner in precision Number (e.g. a float V-cycle) for double vectors.
  template <typename Number, class Precond>
  class MixedPrecisionPreconditioner
  {
  public:
    MixedPrecisionPreconditioner(const Precond &p, Backend backend, Timers *timers)
      : p_(p), backend_(backend), timers_(timers)
    {}
    void vmult(Vector<double> &z, const Vector<double> &r) const
    {
      if constexpr (std::is_same_v<Number, double>)
        p_.vmult(z, r);
      else
        {
          {
            const auto t = time_scope(timers_, outer_level, Component::conversion);
            r_.reinit_like(r, false);
            convert(r, r_);
          }
          p_.vmult(z_, r_);
          const auto t = time_scope(timers_, outer_level, Component::conversion);
          z.reinit_like(r, false);
          convert(z_, z);
        }
      if (constants_ > 0)
        {
          const auto t = time_scope(timers_, outer_level, Component::outer_vector);
          add(-sum(z) / double(constants_), z);
        }
    }

    /// For an outer operator whose null space is the constant vector (no Dirichlet face): each
    /// result has its mean removed, so that the iterates gather no constant that rounding could
    /// let grow. n: the number of values (over all ranks); 0 turns it off.
    void remove_constants(index_t n) { constants_ = n; }

  private:
    const Precond         &p_;
    Backend                backend_;
    Timers                *timers_;
    index_t                constants_ = 0;
    mutable Vector<Number> r_, z_;
  };

  /// What a solve's failure says when a value became NaN or infinite (SolveStats::failure).
  inline constexpr const char *non_finite_failure = "NaN or overflow in the solve";

  namespace internal
  {
    inline bool check_residual(SolveStats &s, double res, int it)
    {
      if (!std::isfinite(res))
        {
          std::ostringstream m;
          m << "the residual is " << res << " at iteration " << it << " (" << non_finite_failure << ")";
          s.failure = m.str();
          return false;
        }
      if (s.initial_residual > 0 && res > 1e8 * s.initial_residual)
        {
          std::ostringstream m;
          m << "the solve diverged: residual " << res << " at iteration " << it << " vs initial " << s.initial_residual;
          s.failure = m.str();
          return false;
        }
      return true;
    }

    /// An iteration ended with residual `res`: counted, kept in the history and passed to the
    /// monitor (relative to `reference`); false, with s.failure set, where the solve must stop
    /// (check_residual).
    inline bool record_iteration(SolveStats &s, const SolverControl &control, double res, double reference)
    {
      ++s.iterations;
      s.final_residual = res;
      s.history.push_back(res);
      if (control.monitor)
        control.monitor(s.iterations, res, res / reference);
      return check_residual(s, res, s.iterations);
    }

    /// Residual r = b - A x in double; returns ‖r‖.
    inline double residual(const LinearOperator<double> &A, const Vector<double> &b, const Vector<double> &x,
                           Vector<double> &r, Timers *timers)
    {
      {
        const auto t = time_scope(timers, outer_level, Component::outer_matvec);
        A.vmult(r, x);
      }
      const auto t = time_scope(timers, outer_level, Component::outer_vector);
      sadd(-1.0, 1.0, b, r);
      return norm_l2(r);
    }

    /// The first residual r = b - A x of a solve; b copied when x = 0 on entry.
    inline double first_residual(const LinearOperator<double> &A, const Vector<double> &b, const Vector<double> &x,
                                 Vector<double> &r, const SolverControl &control, Timers *timers)
    {
      if (!control.zero_initial_guess)
        return residual(A, b, x, r, timers);
      const auto t = time_scope(timers, outer_level, Component::outer_vector);
      r.copy_from(b);
      return norm_l2(r);
    }

    /// Arnoldi step of GMRES: w orthogonalized against v_0..v_j, the coefficients into
    /// h[0..j], ‖w‖ into h[j + 1] (w itself is not scaled).
    inline void orthogonalize(const std::vector<Vector<double>> &V, int j, Vector<double> &w,
                              Orthogonalization orthogonalization, double *h, Vector<double> &coefficients)
    {
      if (orthogonalization == Orthogonalization::classical)
        {
          // Classical Gram-Schmidt, twice (the second pass, DGKS's, is due with the multigrid
          // preconditioner: w = A M⁻¹ v_j lies mostly in the span of the basis). Each pass
          // takes all inner products in one reduction over the ranks (multi_dot), the second
          // projection also ‖w‖: three reductions per iteration, whatever j.
          std::vector<double> c(std::size_t(j) + 1), minus(std::size_t(j) + 1);
          multi_dot(V, j + 1, w, c.data());
          for (int i = 0; i <= j; ++i)
            {
              h[i]                  = c[std::size_t(i)];
              minus[std::size_t(i)] = -c[std::size_t(i)];
            }
          multi_axpy(minus.data(), V, j + 1, w);
          multi_dot(V, j + 1, w, c.data());
          for (int i = 0; i <= j; ++i)
            {
              h[i] += c[std::size_t(i)];
              minus[std::size_t(i)] = -c[std::size_t(i)];
            }
          h[j + 1] = multi_axpy_norm(minus.data(), V, j + 1, w);
          return;
        }
      // Modified Gram-Schmidt. (Classical Gram-Schmidt with a second, DGKS pass measured slower
      // on the H100: more vector passes; docs/performance/solve.md.) Each axpy is fused with the
      // dot product after it (axpy_dot), the last one with ‖w‖²: 4j + 7 vector passes instead of
      // 5j + 8, the same arithmetic; j + 2 reductions, over the ranks where the level is split,
      // else with one wait on the host for all of them.
      modified_gram_schmidt(V, j, w, h, coefficients);
    }
  } // namespace internal

  /// GMRES with right (flexible: the preconditioned vectors are stored) or left
  /// preconditioning. Stops when ‖r‖ <= tol ‖r_0‖ (right: true residual; left: the
  /// preconditioned one).
  template <class Precond>
  SolveStats gmres(const LinearOperator<double> &A, const Precond &M, const Vector<double> &b, Vector<double> &x,
                   const SolverControl &control, bool left_preconditioning, Timers *timers)
  {
    SolveStats                   s;
    const int                    m = std::max(1, control.restart);
    SolverWorkspace              own;
    SolverWorkspace             &ws = control.workspace ? *control.workspace : own;
    Vector<double>              &r = SolverWorkspace::prepare(ws.r, b), &w = SolverWorkspace::prepare(ws.w, b);
    std::vector<Vector<double>> &V = ws.basis, &Z = ws.preconditioned; // grown on demand, at most m each
    auto                         basis = [&](std::vector<Vector<double>> &B, int j) -> Vector<double>                         &{
      return SolverWorkspace::at(B, j, b);
    };
    std::vector<double> H(std::size_t(m + 1) * m), cs(m), sn(m), g(m + 1);
    auto                h = [&](int i, int j) -> double                &{ return H[std::size_t(j) * (m + 1) + i]; };

    // initial (preconditioned) residual; r0 is what the first basis vector is made of: r, or
    // b itself for a zero initial guess with right preconditioning (no copy)
    const Vector<double> *r0             = &r;
    auto                  outer_residual = [&](bool first) {
      r0 = &r;
      if (first && control.zero_initial_guess)
        {
          if (!left_preconditioning)
            {
              r0           = &b;
              const auto t = time_scope(timers, outer_level, Component::outer_vector);
              return norm_l2(b);
            }
          M.vmult(r, b);
          const auto t = time_scope(timers, outer_level, Component::outer_vector);
          return norm_l2(r);
        }
      double res = internal::residual(A, b, x, r, timers);
      if (left_preconditioning)
        {
          M.vmult(w, r);
          const auto t = time_scope(timers, outer_level, Component::outer_vector);
          r.copy_from(w);
          res = norm_l2(r);
        }
      return res;
    };
    double beta        = outer_residual(true);
    s.initial_residual = beta;
    s.final_residual   = beta;
    s.history.push_back(beta);
    if (!internal::check_residual(s, beta, 0))
      return s;
    const double target = control.relative_tolerance * beta;
    if (beta == 0.0)
      {
        s.converged = true;
        return s;
      }
    while (s.iterations < control.max_iterations)
      {
        {
          const auto t = time_scope(timers, outer_level, Component::outer_vector);
          equ(1.0 / beta, *r0, basis(V, 0));
        }
        std::fill(g.begin(), g.end(), 0.0);
        g[0]  = beta;
        int j = 0;
        for (; j < m && s.iterations < control.max_iterations; ++j)
          {
            // w = A M^{-1} v_j (right) or M^{-1} A v_j (left)
            if (left_preconditioning)
              {
                {
                  const auto t = time_scope(timers, outer_level, Component::outer_matvec);
                  A.vmult(r, V[j]);
                }
                M.vmult(w, r);
              }
            else
              {
                Vector<double> &z = basis(Z, j);
                M.vmult(z, V[j]);
                const auto t = time_scope(timers, outer_level, Component::outer_matvec);
                A.vmult(w, z);
              }
            {
              const auto t = time_scope(timers, outer_level, Component::outer_vector);
              internal::orthogonalize(V, j, w, control.orthogonalization, &h(0, j), ws.coefficients); // column j of H
            }
            const double h_next = h(j + 1, j); // v_{j+1} = w / h_next, written below if needed
            // Givens rotations
            for (int i = 0; i < j; ++i)
              {
                const double t0 = cs[i] * h(i, j) + sn[i] * h(i + 1, j);
                h(i + 1, j)     = -sn[i] * h(i, j) + cs[i] * h(i + 1, j);
                h(i, j)         = t0;
              }
            const double denom = std::hypot(h(j, j), h(j + 1, j));
            cs[j]              = denom > 0 ? h(j, j) / denom : 1.0;
            sn[j]              = denom > 0 ? h(j + 1, j) / denom : 0.0;
            h(j, j)            = denom;
            h(j + 1, j)        = 0;
            g[j + 1]           = -sn[j] * g[j];
            g[j]               = cs[j] * g[j];
            // A NaN or infinity in w (from the operator or the preconditioner) makes the column
            // and denom non-finite, and the rotation above would then report a residual of 0:
            // the non-finite denom is passed on instead, so that the iteration fails.
            const double res = std::isfinite(denom) ? std::fabs(g[j + 1]) : denom;
            if (!internal::record_iteration(s, control, res, s.initial_residual))
              return s;
            if (res <= target || denom == 0.0)
              {
                ++j;
                break;
              }
            // The last vector of a cycle and of a converged solve is never used: not written
            // (one pass each, and the basis holds m vectors, not m + 1).
            if (j + 1 < m && s.iterations < control.max_iterations && h_next > 0)
              {
                const auto t = time_scope(timers, outer_level, Component::outer_vector);
                equ(1.0 / h_next, w, basis(V, j + 1));
              }
          }
        // x += (Z or V) y with H y = g
        std::vector<double> y(j);
        for (int i = j - 1; i >= 0; --i)
          {
            double v = g[i];
            for (int l = i + 1; l < j; ++l)
              v -= h(i, l) * y[l];
            y[i] = v / h(i, i);
          }
        {
          const auto t = time_scope(timers, outer_level, Component::outer_vector);
          multi_axpy(y.data(), left_preconditioning ? V : Z, j, x);
        }
        if (s.final_residual <= target)
          {
            s.converged = true;
            break;
          }
        beta = outer_residual(false); // restart
        if (!internal::check_residual(s, beta, s.iterations))
          return s;
      }
    if (!s.converged && s.failure.empty())
      s.failure = "no convergence within " + std::to_string(control.max_iterations) + " iterations";
    return s;
  }

  /// Preconditioned conjugate gradients (M must be symmetric positive definite).
  template <class Precond>
  SolveStats cg(const LinearOperator<double> &A, const Precond &M, const Vector<double> &b, Vector<double> &x,
                const SolverControl &control, Timers *timers)
  {
    SolveStats       s;
    SolverWorkspace  own;
    SolverWorkspace &ws = control.workspace ? *control.workspace : own;
    Vector<double>  &r = SolverWorkspace::prepare(ws.r, b), &z = SolverWorkspace::prepare(ws.w, b),
                   &p = SolverWorkspace::prepare(ws.p, b), &q = SolverWorkspace::prepare(ws.q, b);
    double res         = internal::first_residual(A, b, x, r, control, timers);
    s.initial_residual = s.final_residual = res;
    s.history.push_back(res);
    if (!internal::check_residual(s, res, 0))
      return s;
    if (res == 0.0)
      {
        s.converged = true;
        return s;
      }
    const double target = control.relative_tolerance * res;
    M.vmult(z, r);
    double rz;
    {
      const auto t = time_scope(timers, outer_level, Component::outer_vector);
      p.copy_from(z);
      rz = dot(r, z);
    }
    while (s.iterations < control.max_iterations)
      {
        {
          const auto t = time_scope(timers, outer_level, Component::outer_matvec);
          A.vmult(q, p);
        }
        {
          const auto   t     = time_scope(timers, outer_level, Component::outer_vector);
          const double alpha = rz / dot(p, q);
          axpy(alpha, p, x);
          res = std::sqrt(axpy_dot(-alpha, q, r)); // r -= alpha q and ‖r‖ in one pass
        }
        if (!internal::record_iteration(s, control, res, s.initial_residual))
          return s;
        if (res <= target)
          {
            s.converged = true;
            return s;
          }
        M.vmult(z, r);
        const auto   t      = time_scope(timers, outer_level, Component::outer_vector);
        const double rz_new = dot(r, z);
        sadd(rz_new / rz, 1.0, z, p); // p = z + β p
        rz = rz_new;
      }
    s.failure = "no convergence within " + std::to_string(control.max_iterations) + " iterations";
    return s;
  }

  /// Defect correction x <- x + M^{-1}(b - A x) until ‖b - A x‖ <= tol ‖b‖ (Algorithm 2's
  /// while loop when M is one V-cycle). The relative residual refers to ‖b‖, so that a good
  /// starting x (full multigrid) counts.
  template <class Precond>
  SolveStats defect_correction(const LinearOperator<double> &A, const Precond &M, const Vector<double> &b,
                               Vector<double> &x, const SolverControl &control, Timers *timers)
  {
    SolveStats       s;
    SolverWorkspace  own;
    SolverWorkspace &ws = control.workspace ? *control.workspace : own;
    Vector<double>  &r = SolverWorkspace::prepare(ws.r, b), &c = SolverWorkspace::prepare(ws.w, b);
    const double     bnorm = norm_l2(b);
    double           res   = internal::first_residual(A, b, x, r, control, timers);
    s.initial_residual     = bnorm;
    s.final_residual       = res;
    s.history.push_back(res);
    if (!internal::check_residual(s, res, 0))
      return s;
    const double target = control.relative_tolerance * bnorm;
    while (res > target && s.iterations < control.max_iterations)
      {
        M.vmult(c, r);
        {
          const auto t = time_scope(timers, outer_level, Component::outer_vector);
          axpy(1.0, c, x);
        }
        res = internal::residual(A, b, x, r, timers);
        if (!internal::record_iteration(s, control, res, bnorm))
          return s;
      }
    s.converged = res <= target;
    if (!s.converged)
      s.failure = "no convergence within " + std::to_string(control.max_iterations) + " iterations";
    return s;
  }
} // namespace tpmg
