// The BP kernels' shared-memory layouts under the bank recorder (kernels/runtime/bank_recorder.h):
// near the ideal wavefronts, no unordered accesses.
#include <tpmg/dispatch.h>

#include <gtest/gtest.h>

#include <kernels/operators/bp_operator.h>
#include <kernels/runtime/bank_recorder.h>

#include <iomanip>
#include <iostream>
#include <type_traits>

using namespace tpmg;

namespace
{
  // One block of the BP kernel (stored geometry) on a 4^dim mesh under the recorder.
  template <int dim, int k, typename Number, BakeOff kind, bool reaction = false>
  BankConflictCounts bp_counts()
  {
    using Kernel             = BPOperatorKernel<dim, k, Number, kind, GeometryMode::stored, reaction>;
    const index_t       nc   = 4;
    const index_t       n_nz = dim == 3 ? nc * k + 1 : 1;
    std::vector<Number> src((nc * k + 1) * (nc * k + 1) * n_nz, Number(1)), dst(src.size(), Number(0));
    std::vector<Number> geo(std::size_t(ipow<4, dim>()) * Kernel::n_entries * Kernel::points, Number(1));
    Kernel              kern;
    kern.src      = src.data();
    kern.dst      = dst.data();
    kern.geometry = geo.data();
    kern.vertices = nullptr;
    std::vector<Number> mass(std::size_t(ipow<4, dim>()) * Kernel::points, Number(1)); // c w|J|
    kern.reaction = mass.data();
    for (int d = 0; d < 3; ++d)
      {
        kern.cells[d] = d < dim ? nc : 1;
        kern.nodes[d] = d < dim ? nc * k + 1 : 1;
      }
    kern.n_cells     = ipow<4, dim>();
    kern.grid        = CellGrid(kern.cells, "test");
    kern.constrained = 0u;
    const std::vector<double> half(std::size_t(Kernel::nq) * Kernel::nq, 0.5);
    kern.constants.set_matrices(half.data(), half.data());
    for (int i = 0; i < Kernel::nq; ++i)
      {
        kern.constants.points[i]  = 0.5;
        kern.constants.weights[i] = 0.1;
      }
    return record_bank_conflicts(kern, kern.shape(), {Dim3{0, 0, 0}});
  }
} // namespace

// The padded BP layouts (BPFiberLayout3D, BPSharedLayout2D) stay near the ideal wavefronts
// where the table pads and there are 4 or more points per direction: at most 1.55x (a float
// warp needs 32 distinct banks, a double half-warp 16 distinct bank pairs, which the fixed
// thread-to-fiber map cannot give all three fiber directions within 25% more memory; 3D
// double nq = 4 reaches 1.0x for BP1, 1.27x for BP5); unpadded, 3D nq = 8 needs 3.8x (double)
// and 4.4x (float), 2D nq = 4, 8 3-4x. The reaction term's variants (float) too. All counts are
// printed.
TEST(BankConflicts, BPKernelsNearIdeal)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= 8; ++k)
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          if constexpr (kk <= 8)
            {
              // the kernel's own layout says whether it is padded and how many points it has
              auto check = [&](auto number, auto kind, const char *what, auto reaction) {
                using Number = decltype(number);
                using Kernel = BPOperatorKernel<dd, kk, Number, decltype(kind)::value>;
                const auto c = bp_counts<dd, kk, Number, decltype(kind)::value, decltype(reaction)::value>();
                EXPECT_GT(c.instructions, 0u);
                EXPECT_EQ(c.hazards, 0u) << what << " " << dd << "D k=" << kk;
                if (Kernel::nq >= 4 && Kernel::Layout::padded)
                  {
                    EXPECT_LE(double(c.wavefronts), 1.55 * double(c.ideal)) << what << " " << dd << "D k=" << kk;
                  }
                std::cout << std::setw(6) << what << " " << dd << "D k=" << std::setw(2) << kk << " wavefronts "
                          << std::setw(6) << c.wavefronts << " ideal " << std::setw(6) << c.ideal << "\n";
              };
              using Mass  = std::integral_constant<BakeOff, BakeOff::bp1>;
              using Gauss = std::integral_constant<BakeOff, BakeOff::bp3>;
              using GLL   = std::integral_constant<BakeOff, BakeOff::bp5>;
              using No    = std::false_type;
              using Yes   = std::true_type; // with the reaction term (its reads of the point values)
              check(double(), Mass(), "bp1 d", No());
              check(double(), Gauss(), "bp3 d", No());
              check(double(), GLL(), "bp5 d", No());
              check(float(), Mass(), "bp1 f", No());
              check(float(), Gauss(), "bp3 f", No());
              check(float(), GLL(), "bp5 f", No());
              check(float(), Gauss(), "bp3 f+c", Yes());
              check(float(), GLL(), "bp5 f+c", Yes());
            }
        });
      });
}
