// Proof without a GPU that the `conflict_free` and `boundary` patch kernels have no shared-
// memory bank conflicts, for every kernel kind, degree and patches per block: here 2D in float
// (3D and double in the files beside); and the counts of `basic` and `linear_indexing` for
// comparison (printed).
#include "bank_conflict_patches.h"

using namespace tpmg;
using namespace tpmg::test_support;

TEST(BankConflicts, ConflictFreeKernelsHaveNoneFloat2D) { check_degrees<float, 2, 1, 10>("float"); }

TEST(BankConflicts, UnpaddedLayoutsDoConflictIn3D)
{
  // the padding is what removes them: without it (linear_indexing) 3D fibers do conflict
  const Counts li = fiber_counts<3, 3, float, KernelOptimization::linear_indexing>(2);
  EXPECT_GT(li.fused.conflicts(), 0u);
}

// The in-place cube of the fused linear_indexing kernel with its planes padded
// (FiberPatchKernel::cube_plane_stride): the plain cube needs 1.97 (float k = 7), 1.64 (float
// k = 6) and 1.66 (double k = 6) times the ideal wavefronts, the padded one 1.71, 1.51, 1.50.
TEST(BankConflicts, PaddedPatchCubeSpreadsTheFibers)
{
  auto ratio = [](const BankConflictCounts &c) { return double(c.wavefronts) / double(c.ideal); };
  EXPECT_LT(ratio(fiber_counts<3, 7, float, KernelOptimization::linear_indexing>(1).fused), 1.8);
  EXPECT_LT(ratio(fiber_counts<3, 6, float, KernelOptimization::linear_indexing>(1).fused), 1.57);
  EXPECT_LT(ratio(fiber_counts<3, 6, double, KernelOptimization::linear_indexing>(1).fused), 1.58);
}
