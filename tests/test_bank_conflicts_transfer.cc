// The grid-transfer kernels' shared-memory layouts under the bank recorder
// (kernels/runtime/bank_recorder.h): near the ideal wavefronts, no unordered accesses.
#include <tpmg/dispatch.h>

#include <gtest/gtest.h>

#include <kernels/runtime/bank_recorder.h>
#include <kernels/transfer/transfer.h>
#include <src/multigrid/transfer_builders.h>

#include <iomanip>
#include <iostream>

using namespace tpmg;

namespace
{
  // One full block of a transfer kernel (prolongation or restriction) under the recorder, on
  // a coarse mesh with at least a block's worth of cells.
  template <int dim, int k, typename Number, bool restriction>
  BankConflictCounts transfer_counts()
  {
    Domain d;
    d.dim                      = dim;
    d.coarse_cells             = dim == 3 ? std::array<int, 3>{4, 4, 4} : std::array<int, 3>{12, 12, 1};
    const auto          levels = make_hierarchy(d, k, 1);
    std::vector<Number> fine(levels[1].n_dofs(), Number(1)), coarse(levels[0].n_dofs(), Number(1));
    auto kern = make_transfer_kernel<dim, k, Number, restriction>(levels[0], levels[1], prolongation_matrix_1d(k));
    kern.src  = restriction ? fine.data() : coarse.data();
    kern.dst  = restriction ? coarse.data() : fine.data();
    return record_bank_conflicts(kern, kern.shape(), {Dim3{0, 0, 0}});
  }
} // namespace

// The grid-transfer kernels (TransferLayout) stay within 1.6x the ideal wavefronts for every
// degree, dimension and precision (the search's best: padding cannot separate every line
// direction, as for the BP kernels); the counts are printed.
TEST(BankConflicts, TransferKernelsNearIdeal)
{
  for_each_solver_degree([](auto D, auto K) {
    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
    auto          check = [&](auto number, const char *what) {
      using Number         = decltype(number);
      BankConflictCounts c = transfer_counts<dd, kk, Number, false>();
      c += transfer_counts<dd, kk, Number, true>();
      EXPECT_GT(c.instructions, 0u);
      EXPECT_EQ(c.hazards, 0u) << what << " " << dd << "D k=" << kk;
      EXPECT_LE(double(c.wavefronts), 1.6 * double(c.ideal)) << what << " " << dd << "D k=" << kk;
      std::cout << std::setw(6) << what << " " << dd << "D k=" << std::setw(2) << kk << " transfer wavefronts "
                << std::setw(6) << c.wavefronts << " ideal " << std::setw(6) << c.ideal << "\n";
    };
    check(float(), "float");
    check(double(), "double");
  });
}
