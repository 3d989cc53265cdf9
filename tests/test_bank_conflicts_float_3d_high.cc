// The same proof as test_bank_conflicts_float.cc for the patch kernels in float, 3D, k = 6..8.
#include "bank_conflict_patches.h"

using namespace tpmg;
using namespace tpmg::test_support;

TEST(BankConflicts, ConflictFreeKernelsHaveNoneFloat3DHighDegrees) { check_degrees<float, 3, 6, 8>("float"); }
