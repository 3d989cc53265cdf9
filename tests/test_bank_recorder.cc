// The CPU runner's bank-conflict recorder against hand-counted access patterns.
#include <tpmg/laplace_operator.h>

#include <gtest/gtest.h>

#include "reference.h"
#include <kernels/operators/laplace_cartesian.h>
#include <kernels/runtime/bank_probe_patterns.h>
#include <kernels/runtime/bank_recorder.h>

using namespace tpmg;

namespace
{
  // n threads; phase 0: thread t writes element t*stride of a shared array. It reads back
  // element ((t + shift) mod n)*stride in phase 1 (after a barrier) or, same_phase, in phase 0.
  template <typename T>
  struct StridedKernel
  {
    static constexpr int n_phases              = 2;
    static constexpr int max_threads_per_block = 64;
    struct Registers
    {};
    int  stride;
    T   *out;
    int  n          = 32;
    int  shift      = 0;
    bool same_phase = false;
    template <int phase, class Shared>
    void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto      s = sh.template array<T>(0);
      const int t = int(ctx.linear_thread());
      if (phase == 0)
        s[t * stride] = T(t + 1);
      if (phase == (same_phase ? 0 : 1))
        out[t] = s[(t + shift) % n * stride];
    }
  };

  template <typename T>
  BankConflictCounts strided(int stride, std::vector<T> &out)
  {
    out.assign(32, T(0));
    StridedKernel<T> k{stride, out.data()};
    LaunchShape      shape{Dim3{1, 1, 1}, Dim3{32, 1, 1}, std::size_t(32 * 33) * sizeof(T)};
    return record_bank_conflicts(k, shape, {Dim3{0, 0, 0}});
  }
} // namespace

TEST(BankRecorder, FloatPatterns)
{
  std::vector<float> out;
  // unit stride: 32 distinct banks, one wavefront per instruction
  auto c = strided<float>(1, out);
  EXPECT_EQ(c.instructions, 2u);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.conflicts(), 0u);
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(out[t], float(t + 1)); // and the kernel still computes
  // stride 32 floats: every thread hits bank 0, 32-way conflict in both the store and the load
  c = strided<float>(32, out);
  EXPECT_EQ(c.wavefronts, 64u);
  EXPECT_EQ(c.conflicts(), 62u);
  // stride 2: two threads per bank
  c = strided<float>(2, out);
  EXPECT_EQ(c.conflicts(), 2u);
  // padding the stride to 33 removes the conflict
  c = strided<float>(33, out);
  EXPECT_EQ(c.conflicts(), 0u);
  // stride 0: all threads access one word: a broadcast, no conflict
  c = strided<float>(0, out);
  EXPECT_EQ(c.wavefronts, 2u);
  EXPECT_EQ(c.conflicts(), 0u);
}

TEST(BankRecorder, DoublePatterns)
{
  std::vector<double> out;
  // unit stride doubles: 256 bytes per warp need two wavefronts, which is the ideal
  auto c = strided<double>(1, out);
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.ideal, 4u);
  EXPECT_EQ(c.conflicts(), 0u);
  // stride 16 doubles = 128 bytes: all threads in banks 0 and 1, 32 wavefronts each
  c = strided<double>(16, out);
  EXPECT_EQ(c.wavefronts, 64u);
  EXPECT_EQ(c.conflicts(), 60u);
  // stride 17 doubles: banks (34 t) mod 32 = 2t mod 32, each pair used twice: 2 wavefronts
  c = strided<double>(17, out);
  EXPECT_EQ(c.conflicts(), 0u);
}

namespace
{
  // One warp loads the doubles at offsets[lane] (one instruction).
  struct OffsetKernel
  {
    static constexpr int n_phases              = 1;
    static constexpr int max_threads_per_block = 32;
    struct Registers
    {};
    const int *offsets;
    double    *out;
    template <int phase, class Shared>
    void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      const int t = int(ctx.linear_thread());
      out[t]      = sh.template array<double>(0)[offsets[t]];
    }
  };

  std::size_t wavefronts_of(const std::vector<int> &offsets)
  {
    std::vector<double> out(32);
    OffsetKernel        k{offsets.data(), out.data()};
    LaunchShape         shape{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 2048 * sizeof(double)};
    return record_bank_conflicts(k, shape, {Dim3{0, 0, 0}}).wavefronts;
  }
} // namespace

// 8-byte accesses are served per half-warp: the patterns of tools/bank_probe.cu, whose wavefronts
// per load Nsight Compute measured on the H100 (docs/performance/method.md, "Ceilings"). A rule
// over the whole warp would give 2, 2, 1, 2, 2, 3.
TEST(BankRecorder, DoubleAccessesAreServedPerHalfWarpAsMeasured)
{
  const std::size_t                   measured[6] = {2, 4, 2, 4, 2, 4};
  const std::vector<std::vector<int>> patterns    = bank_probe_patterns();
  for (int p = 0; p < 6; ++p)
    EXPECT_EQ(wavefronts_of(patterns[p]), measured[p]) << "pattern " << p;
}

TEST(BankRecorder, RecordedRunOfARealKernelComputesTheSameResult)
{
  Domain d;
  d.dim          = 3;
  auto       lev = make_hierarchy(d, 3, 1).back();
  const auto x   = test::random_vector(lev, 3);
  const auto A   = test::assemble_laplace(lev);
  const auto ref = test::to_std(A * test::to_eigen(x));

  using Kernel = CartesianLaplaceKernel<3, 3, double>;
  std::vector<double> dst(lev.n_dofs(), 0.0);
  Kernel              k;
  const auto          coef = kronecker_scaling(lev).direction;
  const auto          m    = element_matrices_1d(3);
  k.src                    = x.data();
  k.dst                    = dst.data();
  for (int e = 0; e < 3; ++e)
    {
      k.cells[e] = lev.cells[e];
      k.nodes[e] = lev.nodes(e);
      k.coef[e]  = coef[e];
    }
  k.n_cells               = lev.n_cells();
  k.grid                  = CellGrid(k.cells, "test");
  k.mass                  = make_small_matrix<double, 4, 4>(m.mass);
  k.stiffness             = make_small_matrix<double, 4, 4>(m.stiffness);
  const auto        shape = k.shape();
  std::vector<Dim3> blocks;
  for (unsigned b = 0; b < shape.grid.x; ++b)
    blocks.push_back(Dim3{b, 0, 0});
  const auto counts = record_bank_conflicts(k, shape, blocks);
  EXPECT_GT(counts.instructions, 0u);
  double err = 0, nrm = 0;
  for (index_t g = 0; g < lev.n_dofs(); ++g)
    if (!test::is_boundary(lev, g))
      {
        err += (dst[g] - ref[g]) * (dst[g] - ref[g]);
        nrm += ref[g] * ref[g];
      }
  EXPECT_LT(std::sqrt(err / nrm), 1e-13);
}

namespace
{
  // hazards of StridedKernel on two warps, unit stride
  std::size_t exchange_hazards(bool same_phase, int shift)
  {
    std::vector<float>   out(64, -1.0f);
    StridedKernel<float> k{1, out.data(), 64, shift, same_phase};
    LaunchShape          shape{Dim3{1, 1, 1}, Dim3{64, 1, 1}, 64 * sizeof(float)};
    return record_bank_conflicts(k, shape, {Dim3{0, 0, 0}}).hazards;
  }
} // namespace

// The recorder's check of the barriers: another thread's word only after a barrier.
TEST(BankRecorder, CountsAccessesNoBarrierOrders)
{
  EXPECT_EQ(exchange_hazards(false, 32), 0u); // the other warp's word, after the barrier
  EXPECT_EQ(exchange_hazards(false, 1), 0u);
  EXPECT_EQ(exchange_hazards(true, 0), 0u);   // the thread's own word
  EXPECT_EQ(exchange_hazards(true, 1), 64u);  // the neighbour's: 63 before it wrote, thread 63 after
  EXPECT_EQ(exchange_hazards(true, 32), 64u); // the other warp's
}
