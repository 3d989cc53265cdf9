// The same proof as test_bank_conflicts_float.cc for the patch kernels in double, 3D, k = 6..8.
#include "bank_conflict_patches.h"

using namespace tpmg;
using namespace tpmg::test_support;

TEST(BankConflicts, ConflictFreeKernelsHaveNoneDouble3DHighDegrees) { check_degrees<double, 3, 6, 8>("double"); }
