#include <gtest/gtest.h>
#include <tpmg/fe_1d.h>
TEST(FE1D, Dummy) { EXPECT_EQ(tpmg::gauss_quadrature(2).size(), 2u); }
