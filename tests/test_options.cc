// The option tables of tpmg/options.h and the smoother configuration they resolve to.
#include <tpmg/options.h>
#include <tpmg/parameters.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/solver_parameters.h>

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

using namespace tpmg;

namespace
{
  /// Every value of E has one name, no two share it, and the name reads back as the value.
  template <typename E>
  void expect_table_round_trips()
  {
    std::set<std::string> seen;
    for (const auto &[value, name] : EnumNames<E>::table)
      {
        EXPECT_FALSE(name.empty());
        EXPECT_TRUE(seen.insert(std::string(name)).second) << "duplicate name " << name;
        EXPECT_EQ(std::string(to_string(value)), std::string(name));
        ASSERT_TRUE(from_string<E>(name).has_value()) << name;
        EXPECT_EQ(*from_string<E>(name), value) << name;
      }
    EXPECT_FALSE(from_string<E>("no such value").has_value());
    EXPECT_EQ(names_of<E>().size(), EnumNames<E>::table.size());
  }
} // namespace

TEST(Options, EveryTableRoundTrips)
{
  expect_table_round_trips<Backend>();
  expect_table_round_trips<DeviceChoice>();
  expect_table_round_trips<Precision>();
  expect_table_round_trips<SolverType>();
  expect_table_round_trips<PreconditioningSide>();
  expect_table_round_trips<Conventions>();
  expect_table_round_trips<PostSmoothingOrder>();
  expect_table_round_trips<ColorOrder>();
  expect_table_round_trips<SmootherType>();
  expect_table_round_trips<SmootherKernel>();
  expect_table_round_trips<KernelOptimization>();
  expect_table_round_trips<LocalSolver>();
  expect_table_round_trips<ThreadStructure>();
  expect_table_round_trips<FittedPatchKernel>();
  expect_table_round_trips<FittedPatchLaunch>();
  expect_table_round_trips<LevelOperatorType>();
  expect_table_round_trips<BakeOff>();
  expect_table_round_trips<GeometryMode>();
  expect_table_round_trips<Deformation>();
  expect_table_round_trips<RightHandSide>();
}

TEST(Options, NamesOfASubsetKeepTheTableOrder)
{
  EXPECT_EQ(names_of<GeometryMode>({GeometryMode::on_the_fly, GeometryMode::stored}),
            (std::vector<std::string>{"stored", "on_the_fly"}));
}

// The parameter file offers exactly the table's names: every name of KernelOptimization is
// accepted, and what the file reads back is that value.
TEST(Options, ParameterFileUsesTheTables)
{
  for (const auto &[value, name] : EnumNames<KernelOptimization>::table)
    {
      ParameterHandler prm;
      declare_parameters(prm);
      prm.parse_string("set Dimension = 3\nsubsection Multigrid\n  set Kernel optimization = " + std::string(name) +
                         "\nend\n",
                       "test.prm");
      EXPECT_EQ(read_parameters(prm).patch.optimization, value) << name;
    }
  std::ostringstream printed;
  ParameterHandler   prm;
  declare_parameters(prm);
  prm.print(printed);
  for (const std::string &name : names_of<LevelOperatorType>())
    EXPECT_NE(printed.str().find(name), std::string::npos) << name;
}

// resolve_smoother: the family of kernels, and the refusals of check_smoother_settings.
TEST(Options, ResolveSmoother)
{
  PatchSmootherSettings s;
  s.optimization = KernelOptimization::basic;
  EXPECT_EQ(resolve_smoother(s, 3, 4, Precision::fp32).family, PatchKernelFamily::basic);
  EXPECT_FALSE(resolve_smoother(s, 3, 4, Precision::fp32).automatic);
  s.optimization                = KernelOptimization::linear_indexing;
  const SmootherConfiguration c = resolve_smoother(s, 3, 4, Precision::fp32);
  EXPECT_EQ(c.family, PatchKernelFamily::fiber);
  EXPECT_GE(c.patches_per_block, 1);
  EXPECT_LE(c.patches_per_block, c.max_patches_per_block);
  EXPECT_EQ(resolve_smoother(s, 3, 1, Precision::fp32).family, PatchKernelFamily::tile);
  s.kernel = SmootherKernel::separate; // the tile kernel is the fused one
  EXPECT_EQ(resolve_smoother(s, 3, 1, Precision::fp32).family, PatchKernelFamily::fiber);
  s.kernel       = SmootherKernel::fused;
  s.optimization = KernelOptimization::tensor_core;
  EXPECT_EQ(resolve_smoother(s, 3, 5, Precision::fp64).family, PatchKernelFamily::tensor_core);
  EXPECT_EQ(resolve_smoother(s, 3, 5, Precision::fp64).patches_per_block, 1);
  // refusals name the setting at fault
  auto refusal = [](PatchSmootherSettings t, int dim) {
    const auto e = check_smoother_settings(t, dim, 3, Precision::fp32);
    return e ? e->setting : SmootherSetting::kernel;
  };
  EXPECT_EQ(refusal(s, 2), SmootherSetting::optimization); // tensor_core in 2D
  EXPECT_THROW(resolve_smoother(s, 2, 3, Precision::fp32), std::invalid_argument);
  PatchSmootherSettings t;
  t.patches_per_block = 3;
  EXPECT_EQ(refusal(t, 3), SmootherSetting::patches_per_block);
  t                  = {};
  t.optimization     = KernelOptimization::conflict_free;
  t.thread_structure = ThreadStructure::dof;
  EXPECT_EQ(refusal(t, 3), SmootherSetting::thread_structure);
  t              = {};
  t.optimization = KernelOptimization::reduced_residual;
  t.local_solver = LocalSolver::inverse_matrix;
  EXPECT_EQ(refusal(t, 3), SmootherSetting::local_solver);
  EXPECT_FALSE(check_smoother_settings({}, 3, 8, Precision::fp64).has_value());
}

// `automatic` (the default) takes the measured fastest optimization the other settings allow.
TEST(Options, AutomaticOptimization)
{
  using O = KernelOptimization;
  PatchSmootherSettings s;
  EXPECT_EQ(s.optimization, O::automatic);
  for (Precision p : {Precision::fp32, Precision::fp64})
    {
      for (int k = 2; k <= 8; ++k)
        {
          const SmootherConfiguration c = resolve_smoother(s, 3, k, p, Backend::cuda);
          EXPECT_EQ(c.settings.optimization, O::linear_indexing) << k;
          EXPECT_TRUE(c.automatic);
          EXPECT_EQ(c.optimization_name(), "linear_indexing (automatic)");
          // the CPU runner's fastest: the basic kernels
          EXPECT_EQ(resolve_smoother(s, 3, k, p, Backend::cpu).settings.optimization, O::basic) << k;
        }
      for (Backend b : {Backend::cpu, Backend::cuda})
        {
          EXPECT_EQ(resolve_smoother(s, 3, 1, p, b).settings.optimization, O::reduced_residual);
          EXPECT_EQ(resolve_smoother(s, 3, 1, p, b).family, PatchKernelFamily::tile);
        }
      EXPECT_EQ(resolve_smoother(s, 2, 1, p, Backend::cuda).settings.optimization, O::linear_indexing);
    }
  // patches per block ask for the optimized kernels, also on the CPU
  PatchSmootherSettings sp;
  sp.patches_per_block = 2;
  EXPECT_EQ(chosen_optimization(sp, Backend::cpu, 3, 3, Precision::fp32), O::linear_indexing);
  PatchSmootherSettings t;
  t.kernel = SmootherKernel::separate;
  EXPECT_EQ(chosen_optimization(t, Backend::cuda, 3, 2, Precision::fp32), O::reduced_residual);
  EXPECT_EQ(chosen_optimization(t, Backend::cuda, 3, 3, Precision::fp32), O::linear_indexing);
  t.kernel = SmootherKernel::global; // boundary does not combine with global
  EXPECT_EQ(chosen_optimization(t, Backend::cuda, 3, 1, Precision::fp32), O::linear_indexing);
  // what exists only in the basic kernels keeps them
  t.thread_structure = ThreadStructure::dof;
  EXPECT_EQ(chosen_optimization(t, Backend::cuda, 3, 4, Precision::fp32), O::basic);
  t.thread_structure = ThreadStructure::automatic;
  t.local_solver     = LocalSolver::inverse_matrix;
  EXPECT_EQ(chosen_optimization(t, Backend::cuda, 3, 4, Precision::fp32), O::basic);
  EXPECT_EQ(resolve_smoother(t, 3, 4, Precision::fp32).optimization_name(), "basic, thread per column (automatic)");
}

// The fitted patch kernel `automatic` stands for: the FP64 tile products where they measured
// faster (GPU, 3D, float, k = 4 and 6..8), the scalar kernel everywhere else; explicit choices
// kept; the tensor kernels refused above degree 8 with the reason.
TEST(Options, AutomaticFittedPatchKernel)
{
  using F = FittedPatchKernel;
  for (int k = 1; k <= 10; ++k)
    {
      const bool faster = k == 4 || (k >= 6 && k <= 8);
      EXPECT_EQ(resolve_fitted_patch_kernel(F::automatic, Backend::cuda, 3, k, Precision::fp32),
                faster ? F::tensor_fp64 : F::scalar)
        << "k = " << k;
      EXPECT_EQ(resolve_fitted_patch_kernel(F::automatic, Backend::cpu, 3, k, Precision::fp32), F::scalar);
      EXPECT_EQ(resolve_fitted_patch_kernel(F::automatic, Backend::cuda, 2, k, Precision::fp32), F::scalar);
      EXPECT_EQ(resolve_fitted_patch_kernel(F::automatic, Backend::cuda, 3, k, Precision::fp64), F::scalar);
      for (F f : {F::scalar, F::tensor_fp64, F::tensor_tf32})
        EXPECT_EQ(resolve_fitted_patch_kernel(f, Backend::cpu, 2, k, Precision::fp64), f);
      EXPECT_EQ(fitted_patch_kernel_problem(F::tensor_tf32, k).empty(), k <= fitted_tensor_max_degree);
      EXPECT_EQ(fitted_patch_kernel_problem(F::tensor_fp64, k).empty(), k <= fitted_tensor_max_degree);
      EXPECT_TRUE(fitted_patch_kernel_problem(F::scalar, k).empty());
      EXPECT_TRUE(fitted_patch_kernel_problem(F::automatic, k).empty());
    }
  EXPECT_NE(fitted_patch_kernel_problem(F::tensor_fp64, 9).find("choose scalar or automatic"), std::string::npos);
}
