// The same solve on 1, 2 and 4 OpenMP threads, with other work competing for the cores, gives
// the same bits: residual histories, iteration counts and errors (kernels/runtime/cell_launch.h:
// the cell kernels add into shared nodes colour by colour on the CPU).
#include <tpmg/poisson.h>

#include "cpu_solve.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

using namespace tpmg;

namespace
{
  /// Threads that keep the cores busy while it lives, so that the solver's threads are
  /// descheduled at random points.
  class Load
  {
  public:
    explicit Load(unsigned n)
    {
      for (unsigned i = 0; i < n; ++i)
        threads_.emplace_back([this] {
          volatile double x = 1;
          while (!stop_.load(std::memory_order_relaxed))
            for (int j = 0; j < 10000; ++j)
              x = x * 1.0000001 + 1e-9;
        });
    }
    ~Load()
    {
      stop_ = true;
      for (std::thread &t : threads_)
        t.join();
    }

  private:
    std::atomic<bool>        stop_{false};
    std::vector<std::thread> threads_;
  };

  SolverParameters base(int dim, int k, int level)
  {
    SolverParameters p = test_support::cpu_parameters(dim, k, level);
    // a few iterations are enough to compare the bits (and keep the test short)
    p.relative_tolerance = 1e-5;
    return p;
  }

  bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

  /// Solves p on 1, 2 and 4 threads and requires one result.
  void expect_same_bits_on_any_thread_count(const SolverParameters &p, const std::string &what)
  {
#ifdef _OPENMP
    const int              saved = omp_get_max_threads();
    const Load             load(1);
    std::vector<RunResult> r;
    for (int threads : {1, 2, 4})
      {
        omp_set_num_threads(threads);
        r.push_back(test_support::solve(p));
      }
    omp_set_num_threads(saved);
    ASSERT_TRUE(r[0].converged) << what << ": " << r[0].failure;
    for (std::size_t t = 1; t < r.size(); ++t)
      {
        const int threads = 1 << t;
        EXPECT_EQ(r[t].iterations, r[0].iterations) << what << ", " << threads << " threads";
        ASSERT_EQ(r[t].history.size(), r[0].history.size()) << what << ", " << threads << " threads";
        for (std::size_t i = 0; i < r[0].history.size(); ++i)
          EXPECT_TRUE(same_bits(r[t].history[i], r[0].history[i]))
            << what << ", " << threads << " threads, step " << i << ": " << r[t].history[i] << " against "
            << r[0].history[i];
        ASSERT_TRUE(r[t].l2_error && r[0].l2_error);
        EXPECT_TRUE(same_bits(*r[t].l2_error, *r[0].l2_error))
          << what << ", " << threads << " threads: L2 error " << *r[t].l2_error << " against " << *r[0].l2_error;
      }
#else
    GTEST_FAIL() << what << ": the library is built without OpenMP, so there are no threads to compare";
#endif
  }
} // namespace

TEST(Threads, EverySmootherKernelGivesTheSameBitsOnAnyThreadCount)
{
  // 3D k = 2 level 4 (4,096 cells, 35,937 nodes): the cell kernels' launches are above the
  // size that runs on the calling thread (config.h, host_parallel_threshold)
  for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
    {
      SolverParameters p = base(3, 2, 4);
      p.patch.kernel     = kern;
      expect_same_bits_on_any_thread_count(p, std::string("3D k = 2, smoother kernel ") + to_string(kern));
    }
  SolverParameters p = base(3, 2, 4);
  p.smoother         = SmootherType::chebyshev_jacobi;
  expect_same_bits_on_any_thread_count(p, "3D k = 2, Chebyshev-Jacobi");
}

TEST(Threads, EverySolverGivesTheSameBitsOnAnyThreadCount)
{
  for (SolverType s : {SolverType::gmres, SolverType::cg, SolverType::fmg, SolverType::vcycle})
    {
      SolverParameters p = base(2, 3, 6);
      p.solver           = s;
      if (s == SolverType::cg)
        p.post_smoothing = PostSmoothingOrder::reverse;
      expect_same_bits_on_any_thread_count(p, std::string("2D k = 3, solver ") + to_string(s));
    }
}

TEST(Threads, BakeOffOperatorsOnDeformedMeshesGiveTheSameBitsOnAnyThreadCount)
{
  // the fitted patches in a Chebyshev polynomial, the BP5 level operators and the deformed
  // right-hand side in 3D; BP3 in 2D
  SolverParameters p      = base(3, 2, 3);
  p.level_operator        = LevelOperatorType::bp5;
  p.deformation.type      = Deformation::sine;
  p.deformation.amplitude = 0.1;
  expect_same_bits_on_any_thread_count(p, "3D k = 2 sine mesh, bp5");
  SolverParameters q      = base(2, 3, 5);
  q.level_operator        = LevelOperatorType::bp3;
  q.deformation.type      = Deformation::sine;
  q.deformation.amplitude = 0.1;
  expect_same_bits_on_any_thread_count(q, "2D k = 3 sine mesh, bp3");
}

TEST(Threads, NeumannFacesAndPureNeumannGiveTheSameBitsOnAnyThreadCount)
{
  // u = cos(pi x) cos(pi y) cos(pi z) on the unit cube has zero flux on every face: faces x- and y+
  // Neumann (the natural operator kernel, the face patches, the natural transfers), then every
  // face Neumann (the compatible right-hand side, the preconditioner's mean removal, the
  // pseudo-inverse coarse solve, the shift to u's mean), with either smoother
  const std::string u = "cos(pi*x)*cos(pi*y)*cos(pi*z)";
  for (bool pure : {false, true})
    for (SmootherType smoother : {SmootherType::vertex_patch, SmootherType::chebyshev_jacobi})
      {
        SolverParameters p = base(3, 2, 4);
        p.rhs              = RightHandSide::function;
        p.rhs_function     = "3*pi^2*" + u;
        p.exact_solution   = u;
        p.smoother         = smoother;
        if (pure)
          p.boundary.type.fill(BoundaryType::neumann);
        else
          {
            p.boundary.type[0] = p.boundary.type[3] = BoundaryType::neumann;
            p.boundary_values                       = u;
          }
        expect_same_bits_on_any_thread_count(p, std::string("3D k = 2, ") + (pure ? "every face" : "faces x-, y+") +
                                                  " Neumann, " + to_string(smoother));
      }
}

TEST(Threads, RobinFacesGiveTheSameBitsOnAnyThreadCount)
{
  // faces x- and y+ Robin with α varying along them (the face kernel's colours, the Robin
  // patches' face term, the lifting on the Robin faces' edges), either smoother
  const std::string u = "cos(pi*x)*cos(pi*y)*cos(pi*z)";
  for (SmootherType smoother : {SmootherType::vertex_patch, SmootherType::chebyshev_jacobi})
    {
      SolverParameters p = base(3, 2, 4);
      p.rhs              = RightHandSide::function;
      p.rhs_function     = "3*pi^2*" + u;
      p.exact_solution   = u;
      p.boundary_values  = u;
      p.smoother         = smoother;
      p.boundary.type[0] = p.boundary.type[3] = BoundaryType::robin;
      p.robin_coefficient                     = "1 + x + y*z";
      p.boundary_flux                         = "(1 + x + y*z)*" + u; // du/dn = 0 on both faces
      expect_same_bits_on_any_thread_count(p, std::string("3D k = 2, faces x-, y+ Robin, ") + to_string(smoother));
    }
}
