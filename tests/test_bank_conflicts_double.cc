// The same proof as test_bank_conflicts_float.cc for the patch kernels in double.
#include "bank_conflict_patches.h"

using namespace tpmg;
using namespace tpmg::test_support;

TEST(BankConflicts, ConflictFreeKernelsHaveNoneDouble) { check_all<double>("double"); }
