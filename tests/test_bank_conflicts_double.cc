// The same proof as test_bank_conflicts_float.cc for the patch kernels in double, 2D.
#include "bank_conflict_patches.h"

using namespace tpmg;
using namespace tpmg::test_support;

TEST(BankConflicts, ConflictFreeKernelsHaveNoneDouble2D) { check_degrees<double, 2, 1, 10>("double"); }
