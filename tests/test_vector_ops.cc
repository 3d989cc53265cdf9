// The multi-vector update (one pass for several axpys) and y = a x against the single
// operations, and GMRES keeping its Krylov basis orthogonal on an ill-conditioned system.
#include <tpmg/options.h>
#include <tpmg/solvers.h>
#include <tpmg/vector_ops.h>

#include <kernels/linear_algebra/vector_kernels.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace tpmg;

namespace
{
  template <typename N>
  Vector<N> random_vector(index_t n, unsigned seed)
  {
    std::mt19937                     gen(seed);
    std::uniform_real_distribution<> u(-1, 1);
    std::vector<N>                   h(n);
    for (auto &v : h)
      v = N(u(gen));
    Vector<N> x(n, Backend::cpu);
    x.from_host(h);
    return x;
  }

  template <typename N>
  void check_multi_ops(double tol)
  {
    const index_t          n = 1001;
    const Vector<N>        x = random_vector<N>(n, 1);
    std::vector<Vector<N>> v;
    for (int c = 0; c < 19; ++c)
      v.push_back(random_vector<N>(n, 10 + c));
    // none, within one pass, a full pass, and several passes of 8 vectors
    for (int count : {0, 1, 7, 8, 9, 17, 19})
      {
        std::vector<double> a(count);
        for (int c = 0; c < count; ++c)
          a[c] = 0.25 * (c + 1) - 2.0;
        Vector<N> y = random_vector<N>(n, 2), ref = random_vector<N>(n, 2);
        multi_axpy(a.data(), v, count, y);
        for (int c = 0; c < count; ++c)
          axpy(N(a[c]), v[c], ref);
        const auto yh = y.to_host(), rh = ref.to_host();
        for (index_t i = 0; i < n; ++i)
          ASSERT_NEAR(yh[i], rh[i], tol * (count + 1)) << count << " " << i;
      }
    // w += a x fused with the next dot product (with v, and with w itself)
    for (bool with_v : {true, false})
      {
        Vector<N>       w = random_vector<N>(n, 3), ref = random_vector<N>(n, 3);
        const Vector<N> u = random_vector<N>(n, 4);
        const double    d = axpy_dot(N(-0.75), x, w, with_v ? &u : nullptr);
        axpy(N(-0.75), x, ref);
        const double dref = with_v ? dot(ref, u) : dot(ref, ref);
        EXPECT_NEAR(d, dref, 1e-12 * std::fabs(dref) + 1e-12) << with_v;
        const auto wh = w.to_host(), rh = ref.to_host();
        for (index_t i = 0; i < n; ++i)
          ASSERT_EQ(wh[i], rh[i]) << "w updated once, as axpy does: " << i;
      }
    // all inner products of a pass in one (multi_dot), and the last projection with the norm
    for (int count : {0, 1, 7, 8, 9, 17, 19})
      {
        std::vector<double> d(std::size_t(count) + 1, -1.0), a(static_cast<std::size_t>(count));
        multi_dot(v, count, x, d.data());
        for (int c = 0; c < count; ++c)
          {
            const double ref = dot(x, v[std::size_t(c)]);
            EXPECT_NEAR(d[std::size_t(c)], ref, 1e-12 * std::fabs(ref) + 1e-12) << count << " " << c;
            a[std::size_t(c)] = 0.5 - 0.125 * c;
          }
        EXPECT_EQ(d[std::size_t(count)], -1.0) << "written beyond count";
        Vector<N>    y = random_vector<N>(n, 5), ref = random_vector<N>(n, 5);
        const double norm = multi_axpy_norm(a.data(), v, count, y);
        multi_axpy(a.data(), v, count, ref);
        EXPECT_NEAR(norm, norm_l2(ref), 1e-12 * norm_l2(ref)) << count;
        const auto yh = y.to_host(), rh = ref.to_host();
        for (index_t i = 0; i < n; ++i)
          ASSERT_EQ(yh[i], rh[i]) << "the same update as multi_axpy: " << count << " " << i;
      }
    Vector<N> y(n, Backend::cpu);
    equ(N(-3), x, y);
    const auto yh = y.to_host(), xh = x.to_host();
    for (index_t i = 0; i < n; ++i)
      ASSERT_EQ(yh[i], N(-3) * xh[i]);
  }

  /// diag(d) with d spread geometrically over [1, range]
  class Diagonal : public LinearOperator<double>
  {
  public:
    explicit Diagonal(index_t n, double range = 1e6) : d_(n)
    {
      for (index_t i = 0; i < n; ++i)
        d_[i] = std::pow(range, double(i) / double(n - 1));
    }
    void vmult(Vector<double> &dst, const Vector<double> &src) const override
    {
      dst.reinit(src.size(), Backend::cpu, false);
      const double *s = src.data();
      double       *o = dst.data();
      for (index_t i = 0; i < size(); ++i)
        o[i] = d_[i] * s[i];
    }
    index_t size() const override { return index_t(d_.size()); }

  private:
    std::vector<double> d_;
  };

  /// M = s I (a damped Richardson step for defect correction)
  struct Scaled
  {
    double s;
    void   vmult(Vector<double> &z, const Vector<double> &r) const
    {
      z.reinit(r.size(), r.backend(), false);
      equ(s, r, z);
    }
  };

  struct Identity
  {
    void vmult(Vector<double> &z, const Vector<double> &r) const
    {
      z.reinit(r.size(), r.backend(), false);
      z.copy_from(r);
    }
  };
} // namespace

// sum and add against the entries on the host: Σ x_i in double, and y_i + c in every entry
TEST(VectorOps, SumAndAddConstant)
{
  Vector<float>            x   = random_vector<float>(1001, 3);
  const std::vector<float> h   = x.to_host();
  double                   ref = 0;
  for (float v : h)
    ref += double(v);
  EXPECT_NEAR(sum(x), ref, 1e-12 * std::fabs(ref) + 1e-12);
  add(0.5f, x);
  const std::vector<float> after     = x.to_host();
  double                   ref_after = 0;
  for (std::size_t i = 0; i < h.size(); ++i)
    {
      ASSERT_EQ(after[i], h[i] + 0.5f) << i;
      ref_after += double(after[i]);
    }
  EXPECT_NEAR(sum(x), ref_after, 1e-12 * std::fabs(ref_after));
}

TEST(VectorOps, MultiAxpyAndEquEqualTheSingleOperations)
{
  check_multi_ops<double>(1e-13);
  check_multi_ops<float>(1e-5);
}

// Unpreconditioned GMRES on diag(1 .. 1e6), 300 unknowns, without restart (270 iterations):
// the residual GMRES reports (from its Hessenberg matrix) is the true one only while the basis
// stays orthogonal. Classical Gram-Schmidt in one pass fails here (no convergence within 300
// iterations, true residual 1.5e-8 where 2.3e-9 is reported); modified Gram-Schmidt and
// classical Gram-Schmidt applied twice (Solver/Orthogonalization) hold.
TEST(VectorOps, GmresResidualIsTheTrueResidual)
{
  const index_t  n = 300;
  const Diagonal A(n);
  const Identity M;
  for (Orthogonalization o : {Orthogonalization::modified, Orthogonalization::classical})
    for (bool left : {false, true})
      {
        SCOPED_TRACE(to_string(o));
        const Vector<double> b = random_vector<double>(n, 7);
        Vector<double>       x(n, Backend::cpu);
        SolverControl        control;
        control.relative_tolerance = 1e-10;
        control.max_iterations     = n;
        control.restart            = n;
        control.orthogonalization  = o;
        const SolveStats s         = gmres(A, M, b, x, control, left, nullptr);
        ASSERT_TRUE(s.converged) << s.failure;
        EXPECT_GT(s.iterations, 20); // the test needs a long Krylov basis
        Vector<double> r(n, Backend::cpu);
        A.vmult(r, x);
        sadd(-1.0, 1.0, b, r);
        const double true_relative = norm_l2(r) / norm_l2(b);
        EXPECT_LT(true_relative, 2e-10) << (left ? "left" : "right");
        EXPECT_NEAR(true_relative, s.relative_residual(), 1e-10) << (left ? "left" : "right");
      }
}

// Restarted GMRES: the basis holds the restart length m of vectors (the (m+1)-th of a cycle is
// never written), so every cycle must still end on the residual it reports. Short cycles on
// diag(1 .. 100), both sides, with the iteration limit inside a cycle as well.
TEST(VectorOps, RestartedGmresEndsEachCycleOnItsReportedResidual)
{
  const index_t        n = 200;
  const Diagonal       A(n, 100.0);
  const Identity       M;
  const Vector<double> b = random_vector<double>(n, 3);
  for (Orthogonalization o : {Orthogonalization::modified, Orthogonalization::classical})
    for (bool left : {false, true})
      for (int m : {1, 2, 3, 5})
        {
          SCOPED_TRACE(to_string(o));
          Vector<double> x(n, Backend::cpu);
          SolverControl  control;
          control.relative_tolerance = 1e-10;
          control.max_iterations     = 3000;
          control.restart            = m;
          control.orthogonalization  = o;
          const SolveStats s         = gmres(A, M, b, x, control, left, nullptr);
          ASSERT_TRUE(s.converged) << s.failure << " m = " << m;
          Vector<double> r(n, Backend::cpu);
          A.vmult(r, x);
          sadd(-1.0, 1.0, b, r);
          const double true_relative = norm_l2(r) / norm_l2(b);
          EXPECT_LT(true_relative, 1.01e-10) << "m = " << m << (left ? " left" : " right");
          EXPECT_NEAR(true_relative, s.relative_residual(), 1e-12) << "m = " << m;

          // stopped by the iteration limit in the middle of a cycle: x is the cycle's update so far
          Vector<double> x2(n, Backend::cpu);
          control.max_iterations = 2 * m + 1;
          const SolveStats s2    = gmres(A, M, b, x2, control, left, nullptr);
          EXPECT_FALSE(s2.converged);
          EXPECT_EQ(s2.iterations, 2 * m + 1);
          A.vmult(r, x2);
          sadd(-1.0, 1.0, b, r);
          EXPECT_NEAR(norm_l2(r) / norm_l2(b), s2.relative_residual(), 1e-9 * (1 + s2.relative_residual()))
            << "m = " << m;
        }
}

namespace
{
  /// A, counting its applications
  class Counted : public LinearOperator<double>
  {
  public:
    explicit Counted(const LinearOperator<double> &A) : A_(A) {}
    void vmult(Vector<double> &dst, const Vector<double> &src) const override
    {
      ++applications;
      A_.vmult(dst, src);
    }
    index_t     size() const override { return A_.size(); }
    mutable int applications = 0;

  private:
    const LinearOperator<double> &A_;
  };
} // namespace

// With x = 0 on entry and SolverControl::zero_initial_guess, every solver takes b as its first
// residual without applying A: the same iterates and residuals, one application fewer.
TEST(VectorOps, ZeroInitialGuessSavesTheFirstOperatorApplication)
{
  const index_t        n = 120;
  const Diagonal       D(n, 10.0);
  const Identity       M;
  const Vector<double> b     = random_vector<double>(n, 5);
  auto                 solve = [&](int solver, bool zero_guess, std::vector<double> &xh) {
    Counted        A(D);
    Vector<double> x(n, Backend::cpu);
    SolverControl  control;
    control.relative_tolerance = 1e-10;
    control.max_iterations     = 500;
    control.restart            = 7; // restarts too
    control.zero_initial_guess = zero_guess;
    const SolveStats s         = solver == 0   ? gmres(A, M, b, x, control, false, nullptr)
                                                 : solver == 1 ? gmres(A, M, b, x, control, true, nullptr)
                                                 : solver == 2 ? cg(A, M, b, x, control, nullptr)
                                                               : defect_correction(A, Scaled{2.0 / 11.0}, b, x, control, nullptr);
    EXPECT_TRUE(s.converged) << s.failure;
    xh = x.to_host();
    return std::make_pair(s, A.applications);
  };
  for (int solver = 0; solver < 4; ++solver)
    {
      std::vector<double> x0, x1;
      const auto [s0, a0] = solve(solver, false, x0);
      const auto [s1, a1] = solve(solver, true, x1);
      EXPECT_EQ(a1, a0 - 1) << "solver " << solver;
      ASSERT_EQ(s1.history.size(), s0.history.size()) << "solver " << solver;
      for (std::size_t i = 0; i < s0.history.size(); ++i)
        EXPECT_NEAR(s1.history[i], s0.history[i], 1e-13 * s0.history[0]) << "solver " << solver << " it " << i;
      for (index_t i = 0; i < n; ++i)
        EXPECT_NEAR(x1[i], x0[i], 1e-12) << "solver " << solver;
    }
}

namespace
{
  /// M = I, with one entry made `bad` (NaN or infinity) from the `after`-th application on.
  struct Poisoned
  {
    double      bad;
    int         after;
    mutable int applications = 0;
    void        vmult(Vector<double> &z, const Vector<double> &r) const
    {
      z.reinit(r.size(), r.backend(), false);
      z.copy_from(r);
      if (++applications > after)
        {
          std::vector<double> h = z.to_host();
          h[h.size() / 2]       = bad;
          z.from_host(h);
        }
    }
  };
} // namespace

// A preconditioner that returns NaN or infinity fails the solve with a message saying so: it
// never ends as converged (GMRES's Givens rotation of a non-finite column would give a residual
// of 0).
TEST(VectorOps, NonFinitePreconditionerOutputFailsEverySolver)
{
  const index_t        n = 60;
  const Diagonal       A(n, 100.0);
  const Vector<double> b = random_vector<double>(n, 11);
  for (double bad : {std::nan(""), HUGE_VAL})
    for (int after : {0, 2})
      for (int solver = 0; solver < 4; ++solver)
        {
          SCOPED_TRACE("solver " + std::to_string(solver) + ", bad " + std::to_string(bad) + " after " +
                       std::to_string(after));
          const Poisoned M{bad, after};
          Vector<double> x(n, Backend::cpu);
          SolverControl  control;
          control.relative_tolerance = 1e-10;
          control.max_iterations     = 100;
          control.restart            = 30;
          const SolveStats s         = solver == 0   ? gmres(A, M, b, x, control, false, nullptr)
                                       : solver == 1 ? gmres(A, M, b, x, control, true, nullptr)
                                       : solver == 2 ? cg(A, M, b, x, control, nullptr)
                                                     : defect_correction(A, M, b, x, control, nullptr);
          EXPECT_FALSE(s.converged);
          EXPECT_NE(s.failure.find(non_finite_failure), std::string::npos) << s.failure;
        }
}

// modified_gram_schmidt, whose coefficients stay where the vectors are, equals the projections
// done one at a time with dot and axpy_dot (the host holding each coefficient), bit for bit.
TEST(VectorOps, ModifiedGramSchmidtEqualsItsStepsBitForBit)
{
  const index_t n = 5003;
  for (int j : {0, 1, 4})
    {
      std::vector<Vector<double>> v;
      for (int i = 0; i <= j; ++i)
        v.push_back(random_vector<double>(n, 30 + unsigned(i)));
      Vector<double>      w0 = random_vector<double>(n, 7), w1 = random_vector<double>(n, 7), slots;
      std::vector<double> h0(std::size_t(j) + 2), h1(std::size_t(j) + 2);
      double              next = dot(w0, v[0]);
      for (int i = 0; i <= j; ++i)
        {
          h0[std::size_t(i)] = next;
          next = axpy_dot(-h0[std::size_t(i)], v[std::size_t(i)], w0, i < j ? &v[std::size_t(i) + 1] : nullptr);
        }
      h0[std::size_t(j) + 1] = std::sqrt(next);
      modified_gram_schmidt(v, j, w1, h1.data(), slots);
      EXPECT_EQ(h1, h0) << j;
      EXPECT_EQ(w1.to_host(), w0.to_host()) << j;
      EXPECT_GT(std::fabs(h0[0]), 1.0); // (the vectors are not orthogonal: the test projects)
    }
}

// The owned-node test of a distributed reduction (vector_kernels::OwnedNodes): the coordinates by
// multiply-high (parts below 2^31 nodes) equal those by division, at every index of small parts
// and near the ends of large ones.
TEST(VectorOps, OwnedNodesByMultiplyHighEqualTheDivisions)
{
  const index_t shapes[][3] = {{1, 1, 1},       {1, 7, 5},         {7, 1, 5},         {13, 11, 1},      {6, 10, 9},
                               {385, 385, 198}, {40000, 40000, 1}, {46341, 46340, 1}, {3, 65536, 10922}};
  for (const auto &n : shapes)
    for (bool planes : {false, true}) // (owning whole planes: one index range)
      {
        vector_kernels::OwnedNodes slow;
        for (int d = 0; d < 3; ++d)
          {
            const bool whole = planes && d < 2;
            slow.nodes[d]    = n[d];
            slow.begin[d]    = whole ? 0 : n[d] / 3;
            slow.end[d]      = whole ? n[d] : n[d] - n[d] / 4;
          }
        vector_kernels::OwnedNodes fast = slow;
        fast.divide_fast();
        ASSERT_EQ(fast.mode, planes || (n[0] == 1 && n[1] == 1) ? 1 : 2);
        const index_t        total = n[0] * n[1] * n[2];
        std::vector<index_t> at;
        if (total <= 100000)
          for (index_t i = 0; i < total; ++i)
            at.push_back(i);
        else
          {
            std::mt19937_64 random(7);
            for (int s = 0; s < 200000; ++s)
              at.push_back(index_t(random() % std::uint64_t(total)));
            for (index_t i = std::max<index_t>(0, total - 5000); i < total; ++i)
              at.push_back(i);
          }
        index_t owned = 0;
        for (index_t i : at)
          {
            ASSERT_EQ(fast(i), slow(i)) << n[0] << " x " << n[1] << " x " << n[2] << ", index " << i;
            owned += slow(i);
          }
        EXPECT_GT(owned, 0);
      }
  vector_kernels::OwnedNodes huge; // (2^31 nodes or more: the divisions stay)
  huge.nodes[0] = huge.nodes[1] = 2048;
  huge.nodes[2]                 = 512;
  huge.end[0] = huge.end[1] = huge.end[2] = 100;
  huge.divide_fast();
  EXPECT_EQ(huge.mode, 0);
}
