// GPU runs of every kernel against the CPU runner's results (label "gpu": needs a CUDA device).
#include <tpmg/bp_operator.h>
#include <tpmg/chebyshev_smoother.h>
#include <tpmg/device.h>
#include <tpmg/dispatch.h>
#include <tpmg/fitted_patch_solver.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/poisson.h>
#include <tpmg/problem.h>
#include <tpmg/transfer.h>
#include <tpmg/vector_ops.h>

#include <gtest/gtest.h>

#include <kernels/operators/bp_operator.h>
#include <kernels/operators/laplace_cartesian.h>
#include <kernels/smoothers/patch_fiber.h>
#include <kernels/smoothers/patch_mma.h>
#include <src/discretization/level_mesh.h>
#include <src/multigrid/fast_diagonalization.h>

#include <array>
#include <cmath>
#include <iostream>
#include <random>
#include <sstream>

using namespace tpmg;

namespace
{
  template <typename T>
  std::vector<T> random_interior(const CartesianLevel &lev, unsigned seed)
  {
    std::mt19937                      gen(seed);
    std::uniform_real_distribution<T> dist(-1, 1);
    std::vector<T>                    v(lev.n_dofs(), T(0));
    for (index_t l = 0; l < lev.nodes(2); ++l)
      for (index_t j = 0; j < lev.nodes(1); ++j)
        for (index_t i = 0; i < lev.nodes(0); ++i)
          if (!lev.on_boundary(i, j, l))
            v[lev.dof_index(i, j, l)] = dist(gen);
    return v;
  }

  template <typename T>
  double rel_diff(const std::vector<T> &a, const std::vector<T> &b)
  {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      {
        num += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
        den += double(b[i]) * double(b[i]);
      }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }

  template <typename T>
  double tolerance()
  {
    return std::is_same_v<T, double> ? 1e-12 : 1e-5;
  }

  CartesianLevel level_of(int dim, int k, int level, std::array<int, 3> n0 = {1, 1, 1})
  {
    Domain d;
    d.dim          = dim;
    d.upper        = {1.0, 1.25, 0.75};
    d.coarse_cells = n0;
    return make_hierarchy(d, k, level).back();
  }

  // Applies `f(backend, vectors...)` on both backends to the same host data and compares.
  template <typename T, class F>
  void compare_backends(const CartesianLevel &lev, const std::vector<std::vector<T>> &inputs, F f,
                        const std::string &what, double tol = tolerance<T>())
  {
    std::vector<T> out[2];
    for (Backend b : {Backend::cpu, Backend::cuda})
      {
        std::vector<Vector<T>> v;
        for (const auto &h : inputs)
          {
            v.emplace_back(lev.n_dofs(), b);
            v.back().from_host(h);
          }
        f(b, v);
        out[b == Backend::cuda] = v[0].to_host();
      }
    EXPECT_LT(rel_diff(out[1], out[0]), tol) << what;
    EXPECT_GT(std::sqrt(std::inner_product(out[0].begin(), out[0].end(), out[0].begin(), 0.0)), 0.0) << what;
  }
  /// run_poisson of p on the CPU (entry 0) and on the GPU (entry 1).
  std::array<RunResult, 2> solve_on_both(SolverParameters p)
  {
    std::array<RunResult, 2> r;
    for (DeviceChoice dev : {DeviceChoice::cpu, DeviceChoice::cuda})
      {
        p.device = dev;
        std::ostringstream log;
        r[dev == DeviceChoice::cuda] = run_poisson(p, log);
      }
    return r;
  }
} // namespace

TEST(Gpu, DeviceIsPresent)
{
  ASSERT_TRUE(cuda_device_available());
  const DeviceInfo info = cuda_device_info();
  RecordProperty("device", info.name);
  std::cout << "device: " << info.name << ", " << info.multiprocessors << " SMs, " << info.free_bytes / (1 << 20)
            << " MiB free\n";
}

/// The Robin faces of a case and their coefficient (none by default).
struct RobinCase
{
  unsigned    faces = 0;
  std::string alpha = "0";
};

/// `dirichlet`: the level's Dirichlet faces (the others' nodes are unknowns: the `natural` kernel);
/// `robin`: its Robin faces (with their diagonal too)
/// `constants`: a and c of −∇·(a ∇u) + c u (with its diagonal too)
template <typename T>
void laplace_case(int dim, int k, unsigned dirichlet = all_faces, const RobinCase &robin = {},
                  const ConstantCoefficients &constants = {})
{
  dispatch_dim(dim, [&](auto D) {
    dispatch_degree(k, [&](auto K) {
      constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
      auto          lev   = level_of(dd, kk, dd == 3 ? (kk <= 3 ? 3 : 2) : 4, {2, 1, 3});
      lev.dirichlet_faces = dirichlet;
      lev.robin_faces     = robin.faces;
      auto op_on          = [&](Backend b) {
        return CartesianLaplaceOperator<dd, kk, T>(lev, b, make_robin_faces<T>(lev, robin.alpha, b), constants);
      };
      const std::string with = constants.laplacian() ? "" : " with a and c";
      if (robin.faces != 0 || !constants.laplacian())
        compare_backends<T>(
          lev, {std::vector<T>(lev.n_dofs())}, [&](Backend b, std::vector<Vector<T>> &v) { op_on(b).diagonal(v[0]); },
          "laplace diagonal" + with + (robin.faces != 0 ? " with Robin faces " : " ") + std::to_string(dd) +
            "D k=" + std::to_string(kk));
      compare_backends<T>(
        lev, {std::vector<T>(lev.n_dofs()), random_interior<T>(lev, 1)},
        [&](Backend b, std::vector<Vector<T>> &v) {
          const auto op = op_on(b);
          op.vmult(v[0], v[1]);
        },
        "laplace" + with + " " + std::to_string(dd) + "D k=" + std::to_string(kk));
      // the residual b - A x (fused from k = 2; the CPU test covers boundary values)
      compare_backends<T>(
        lev, {std::vector<T>(lev.n_dofs()), random_interior<T>(lev, 2), random_interior<T>(lev, 3)},
        [&](Backend b, std::vector<Vector<T>> &v) {
          const auto op = op_on(b);
          op.residual(v[0], v[2], v[1]);
        },
        "laplace residual" + with + " " + std::to_string(dd) + "D k=" + std::to_string(kk));
    });
  });
}

TEST(Gpu, LaplaceOperatorEqualsCpu)
{
  for (int k = 1; k <= 10; ++k)
    for (int dim : {2, 3})
      {
        laplace_case<double>(dim, k);
        laplace_case<float>(dim, k);
      }
}

/// `dirichlet`: the level's Dirichlet faces (the patches on the others: BoundaryPatchKernel);
/// `robin`: its Robin faces
template <typename T>
void smoother_case(int dim, int k, SmootherKernel kern, LocalSolver ls,
                   KernelOptimization opt = KernelOptimization::basic, ThreadStructure ts = ThreadStructure::column,
                   bool lumped_mass = false, unsigned dirichlet = all_faces, const RobinCase &robin = {},
                   const ConstantCoefficients &constants = {})
{
  dispatch_dim(dim, [&](auto D) {
    dispatch_degree(k, [&](auto K) {
      constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
      if constexpr (VertexPatchSmoother<dd, kk, T>::supported())
        {
          auto lev            = level_of(dd, kk, dd == 3 ? (kk <= 4 ? 3 : 2) : 4, {1, 2, 1});
          lev.dirichlet_faces = dirichlet;
          lev.robin_faces     = robin.faces;
          PatchSmootherSettings s;
          s.kernel           = kern;
          s.local_solver     = ls;
          s.optimization     = opt;
          s.thread_structure = opt == KernelOptimization::basic ? ts : ThreadStructure::automatic;
          compare_backends<T>(
            lev, {random_interior<T>(lev, 2), random_interior<T>(lev, 3)},
            [&](Backend b, std::vector<Vector<T>> &v) {
              const auto                          alpha = make_robin_faces<T>(lev, robin.alpha, b);
              CartesianLaplaceOperator<dd, kk, T> op(lev, b, alpha, constants);
              VertexPatchSmoother<dd, kk, T>      sm(lev, b, s, &op,
                                                     PatchProblem{lumped_mass, ColorOrder::standard, constants}, alpha);
              sm.smooth(v[0], v[1]);
              sm.smooth(v[0], v[1], true);
              Vector<T> z(lev.n_dofs(), b); // a sweep from zero, told so
              sm.smooth(z, v[1], false, true);
              sadd(T(1), T(1), z, v[0]);
            },
            "smoother " + std::to_string(dd) + "D k=" + std::to_string(kk) + " " + std::to_string(int(kern)) + "/" +
              std::to_string(int(ls)) + "/" + std::to_string(int(opt)) + "/threads " +
              std::to_string(int(s.thread_structure)) + (lumped_mass ? " lumped" : "") +
              (dirichlet != all_faces ? " Neumann faces" : "") + (robin.faces != 0 ? " Robin faces" : "") +
              (constants.laplacian() ? "" : " with a and c"));
        }
    });
  });
}

TEST(Gpu, PatchSmootherEqualsCpu)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 10 : 8); ++k)
      for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
        {
          for (ThreadStructure ts : {ThreadStructure::column, ThreadStructure::dof})
            {
              smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::basic, ts);
              smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::basic, ts);
              if (kern != SmootherKernel::separate && (dim == 2 || k <= 4))
                {
                  smoother_case<double>(dim, k, kern, LocalSolver::inverse_matrix, KernelOptimization::basic, ts);
                  smoother_case<float>(dim, k, kern, LocalSolver::inverse_matrix, KernelOptimization::basic, ts);
                }
            }
          for (KernelOptimization opt : {KernelOptimization::linear_indexing, KernelOptimization::conflict_free,
                                         KernelOptimization::reduced_residual})
            if (!(opt == KernelOptimization::reduced_residual && kern == SmootherKernel::global))
              {
                smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, opt);
                smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, opt);
                // the lumped-mass instantiations (bp5), whose zero mass entries are skipped at
                // compile time
                if (kern != SmootherKernel::global)
                  {
                    smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, opt, ThreadStructure::column,
                                          true);
                    smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, opt, ThreadStructure::column,
                                         true);
                  }
              }
          // the tensor-core tile products against the CPU's dot products (3D fused only)
          if (dim == 3 && kern == SmootherKernel::fused)
            {
              smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::tensor_core);
              smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::tensor_core);
            }
        }
}

// Constant a and c (a = 2.5, c = 40): the Kronecker-form operator, its residual and diagonal, and
// every smoother kernel family with shifted eigenvalue sums and the mass term in its residual
TEST(Gpu, ConstantCoefficientKernelsEqualCpu)
{
  const ConstantCoefficients ac{2.5, 40}, a_only{2.5, 0};
  using O = KernelOptimization;
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, 4, 7})
      {
        laplace_case<double>(dim, k, all_faces, {}, ac);
        laplace_case<float>(dim, k, all_faces, {}, ac);
        for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::separate, SmootherKernel::fused})
          {
            smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, O::basic, ThreadStructure::column,
                                 false, all_faces, {}, ac);
            smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, O::basic, ThreadStructure::dof,
                                  false, all_faces, {}, ac);
            for (O opt : {O::linear_indexing, O::conflict_free, O::reduced_residual})
              if (!(opt == O::reduced_residual && kern == SmootherKernel::global))
                {
                  const ConstantCoefficients &with = opt == O::conflict_free ? a_only : ac; // (no mass term)
                  smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, opt, ThreadStructure::column,
                                       false, all_faces, {}, with);
                  smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, opt, ThreadStructure::column,
                                        kern != SmootherKernel::global, all_faces, {}, with);
                }
          }
        if (dim == 3 && k <= 3)
          smoother_case<double>(dim, k, SmootherKernel::fused, LocalSolver::inverse_matrix, O::basic,
                                ThreadStructure::column, false, all_faces, {}, ac);
        // Neumann and Robin faces: the truncated patches' mass term and shifted sums
        const unsigned  dirichlet = all_faces & ~(1u | 8u | 32u);
        const RobinCase robin{1u | 8u, dim == 3 ? "1 + x^2 + y*z" : "1 + x^2 + y"};
        laplace_case<double>(dim, k, dirichlet, robin, ac);
        for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::fused})
          {
            smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, O::automatic,
                                  ThreadStructure::automatic, false, dirichlet, robin, ac);
            smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, O::basic, ThreadStructure::column,
                                 false, dirichlet, {}, ac);
          }
      }
}

// Registers and resident blocks of the kernels whose speed depended on them (docs/performance/):
// a change of launch bounds or of a shared-memory plan that loses them fails here, not only
// in a benchmark. The limits sit between the measured state and the regressions seen.
namespace
{
  template <class Kernel>
  KernelResources resources_of(const char *name, const Kernel &kernel)
  {
    const KernelResources r = kernel_resources_on_device<Kernel>(kernel.shape());
    std::cout << "  " << name << ": " << r.registers << " registers, " << r.local_bytes << " local bytes, "
              << r.resident_blocks << " blocks of " << kernel.shape().block.size() << " threads per SM\n";
    return r;
  }

  /// the 3D fused linear_indexing kernel of degree k with P patches per block: at least
  /// `min_blocks` per SM, at most `max_local` bytes of spills and `max_registers` registers
  template <int k, typename Number>
  void expect_fiber_resources(int P, int min_blocks, unsigned max_local, int max_registers = 255)
  {
    const std::string name =
      "fused linear_indexing 3D k = " + std::to_string(k) + " " + (std::is_same_v<Number, float> ? "float" : "double");
    FiberPatchKernel<3, k, Number, PatchKernelKind::fused, KernelOptimization::linear_indexing> kern{};
    kern.set_patches_per_block(P);
    const KernelResources r = resources_of(name.c_str(), kern);
    EXPECT_GE(r.resident_blocks, min_blocks) << name;
    EXPECT_LE(r.local_bytes, max_local) << name;
    EXPECT_LE(r.registers, max_registers) << name;
  }

  template <class Kernel>
  void expect_bp_launch_bounds_hold(const char *name)
  {
    const KernelResources r = resources_of(name, Kernel{});
    EXPECT_LE(r.registers, Kernel::register_cap) << name;
    EXPECT_GE(r.resident_blocks, Kernel::min_blocks_per_sm) << name;
  }
} // namespace

TEST(Gpu, KernelsKeepTheirRegistersAndResidentBlocks)
{
  // Cartesian operator: at most 74 registers; a "one block per SM is enough" launch bound had
  // given it 204 at k = 8 (docs/performance/operator.md, "Launch bounds")
  auto operator_case = [](const char *name, auto kernel) {
    const KernelResources r = resources_of(name, kernel);
    EXPECT_LE(r.registers, 96) << name;
    EXPECT_EQ(r.local_bytes, 0u) << name;
  };
  operator_case("operator 3D k = 2 float", CartesianLaplaceKernel<3, 2, float>{});
  operator_case("operator 3D k = 7 float", CartesianLaplaceKernel<3, 7, float>{});
  operator_case("operator 3D k = 8 float", CartesianLaplaceKernel<3, 8, float>{});
  operator_case("operator 3D k = 3 double", CartesianLaplaceKernel<3, 3, double>{});
  operator_case("operator 3D k = 8 double", CartesianLaplaceKernel<3, 8, double>{});

  // in-place fiber smoothers (docs/performance/smoother.md, "In place"): two blocks per SM where
  // the separate tensors fitted one (double k = 8); no spills, except double k = 8 at its
  // 96-register bound: with the 1D data at compile time it spills 136 bytes and is still 17%
  // faster than uncapped with one block ("Resident blocks")
  expect_fiber_resources<8, double>(1, 2, 192, 96);
  // tensor_core 3D k = 7 double: two blocks of 8 warps per SM (launch bounds by shared memory;
  // unbounded it took 138 registers and one block), no spills
  const KernelResources tc = resources_of("tensor_core 3D k = 7 double", MmaPatchKernel<7, double>{});
  EXPECT_GE(tc.resident_blocks, 2);
  EXPECT_EQ(tc.local_bytes, 0u);
  // k = 7: the blocks the launch bounds ask for (docs/performance/smoother.md, "Resident
  // blocks"): double 3 of one patch at 80 registers (no spills with the table of inverse
  // eigenvalue sums; 16-64 bytes without)
  expect_fiber_resources<7, double>(1, 3, 64);
  // float k = 7: 3 blocks of two patches, 40 registers, 4 bytes of spills
  expect_fiber_resources<7, float>(2, 3, 8);
  // float k = 6: 8 blocks of one patch at 40 registers (56 registers and 6 blocks without the
  // bound), float k = 4 (four patches per block) at 32
  expect_fiber_resources<6, float>(1, 8, 0);
  expect_fiber_resources<4, float>(4, 1, 0, 32);
  // float k = 8 in place: at least the two blocks of one big patch its launch bounds ask for,
  // like double (it gets three, at 56 registers)
  expect_fiber_resources<8, float>(1, 2, 0);

  // BP kernels on the fly: the register cap and the resident blocks their launch bounds ask for
  expect_bp_launch_bounds_hold<BPOperatorKernel<3, 2, double, BakeOff::bp5, GeometryMode::on_the_fly>>(
    "BP5 on the fly k = 2 double");
  expect_bp_launch_bounds_hold<BPOperatorKernel<3, 4, double, BakeOff::bp3, GeometryMode::on_the_fly>>(
    "BP3 on the fly k = 4 double");
  expect_bp_launch_bounds_hold<BPOperatorKernel<3, 8, double, BakeOff::bp1, GeometryMode::on_the_fly>>(
    "BP1 on the fly k = 8 double");
}

// More patches per block than a block's shared memory holds (3D k = 6 double, conflict_free,
// two patches: more than the H100's 227 KiB) is refused with a message, not a failed launch.
TEST(Gpu, TooMuchSharedMemoryPerBlockIsRefused)
{
  const auto            lev = level_of(3, 6, 1, {2, 2, 2});
  PatchSmootherSettings s;
  s.kernel            = SmootherKernel::fused;
  s.optimization      = KernelOptimization::conflict_free;
  s.patches_per_block = 2;
  CartesianLaplaceOperator<3, 6, double> op(lev, Backend::cuda);
  VertexPatchSmoother<3, 6, double>      sm(lev, Backend::cuda, s, &op);
  Vector<double>                         x(lev.n_dofs(), Backend::cuda), b(lev.n_dofs(), Backend::cuda);
  try
    {
      sm.smooth(x, b);
      FAIL() << "no error";
    }
  catch (const std::invalid_argument &e)
    {
      EXPECT_NE(std::string(e.what()).find("KiB of shared memory"), std::string::npos) << e.what();
    }
}

/// Prolongation and restriction between the two finest levels on a 1 x 2 (x 1) coarse mesh with
/// the Dirichlet faces `dirichlet`, GPU against CPU.
template <int dd, int kk>
void transfer_case(unsigned dirichlet)
{
  Domain d;
  d.dim              = dd;
  d.coarse_cells     = {1, 2, 1};
  d.dirichlet_faces  = dirichlet;
  const auto  levels = make_hierarchy(d, kk, dd == 3 ? 2 : 4);
  const auto &c = levels[levels.size() - 2], &f = levels.back();
  for (int restrict_dir = 0; restrict_dir < 2; ++restrict_dir)
    {
      std::vector<double> out[2];
      for (Backend b : {Backend::cpu, Backend::cuda})
        {
          Transfer<dd, kk, double> t(c, f, b);
          Vector<double>           vc(c.n_dofs(), b), vf(f.n_dofs(), b);
          if (restrict_dir)
            {
              vf.from_host(random_interior<double>(f, 4));
              t.restrict_to(vc, vf);
              out[b == Backend::cuda] = vc.to_host();
            }
          else
            {
              vc.from_host(random_interior<double>(c, 5));
              t.prolongate_add(vf, vc);
              out[b == Backend::cuda] = vf.to_host();
            }
        }
      EXPECT_LT(rel_diff(out[1], out[0]), 1e-13)
        << dd << "D k=" << kk << " restrict=" << restrict_dir << " Dirichlet faces " << dirichlet;
    }
}

TEST(Gpu, TransferEqualsCpu)
{
  for_each_solver_degree([](auto D, auto K) { transfer_case<decltype(D)::value, decltype(K)::value>(all_faces); });
}

TEST(Gpu, VectorOperationsEqualCpu)
{
  const auto          lev = level_of(3, 2, 4);
  const auto          x = random_interior<double>(lev, 6), y = random_interior<double>(lev, 7);
  double              dots[2], sums[2];
  std::vector<double> ax[2];
  for (Backend b : {Backend::cpu, Backend::cuda})
    {
      Vector<double> vx(lev.n_dofs(), b), vy(lev.n_dofs(), b);
      vx.from_host(x);
      vy.from_host(y);
      dots[b == Backend::cuda] = dot(vx, vy);
      sums[b == Backend::cuda] = sum(vx);
      add(0.25, vy);
      axpy(0.5, vx, vy);
      sadd(2.0, -1.0, vx, vy);
      Vector<float> f(lev.n_dofs(), b);
      convert(vy, f);
      convert(f, vy);
      ax[b == Backend::cuda] = vy.to_host();
      EXPECT_EQ(count_non_finite(vy), 0);
    }
  EXPECT_NEAR(dots[1], dots[0], 1e-12 * std::fabs(dots[0]));
  EXPECT_NEAR(sums[1], sums[0], 1e-12 * std::fabs(sums[0]));
  EXPECT_LT(rel_diff(ax[1], ax[0]), 1e-15);
}

// A reduction is one launch whose last block adds the blocks' sums (cuda_forall.cuh,
// accurate_sums): one block, a ragged last block, a grid-stride loop; repeated, the same bits
// (the block counter starts from zero again), and the CPU's sum
TEST(Gpu, ReductionsInOneLaunchRepeatAndEqualCpu)
{
  std::mt19937                     gen(3);
  std::uniform_real_distribution<> u(-1, 1);
  for (index_t n : {index_t(1), index_t(256), index_t(257), index_t(70001), index_t(3000017)})
    {
      std::vector<double> x(n), y(n);
      for (index_t i = 0; i < n; ++i)
        {
          x[i] = u(gen);
          y[i] = u(gen);
        }
      double d[2][3];
      for (Backend b : {Backend::cpu, Backend::cuda})
        {
          Vector<double> vx(n, b), vy(n, b);
          vx.from_host(x);
          vy.from_host(y);
          for (int r = 0; r < 3; ++r)
            d[b == Backend::cuda][r] = r == 1 ? sum(vx) : dot(vx, vy);
        }
      EXPECT_EQ(d[1][2], d[1][0]) << n;
      for (int r = 0; r < 3; ++r)
        EXPECT_NEAR(d[1][r], d[0][r], 1e-13 * (1 + std::fabs(d[0][r]))) << n << " " << r;
    }
}

// GMRES's modified Gram-Schmidt on the GPU with its coefficients in device memory, each read by
// the next kernel (one wait on the host): the same bits as the projections one at a time on the
// GPU, and the CPU's coefficients and vector within rounding
TEST(Gpu, ModifiedGramSchmidtInDeviceMemoryEqualsItsStepsAndCpu)
{
  std::mt19937                     gen(5);
  std::uniform_real_distribution<> u(-1, 1);
  const int                        j = 5;
  for (index_t n : {index_t(100), index_t(70001), index_t(1000003)})
    {
      std::vector<std::vector<double>> vh(j + 1, std::vector<double>(n));
      std::vector<double>              wh(n);
      for (auto &x : vh)
        for (auto &e : x)
          e = u(gen);
      for (auto &e : wh)
        e = u(gen);
      std::vector<double> h[3], wr[3];
      for (int run = 0; run < 3; ++run) // GPU in device memory, GPU one at a time, CPU
        {
          const Backend               b = run < 2 ? Backend::cuda : Backend::cpu;
          std::vector<Vector<double>> v;
          for (auto &x : vh)
            {
              v.emplace_back(n, b);
              v.back().from_host(x);
            }
          Vector<double> w(n, b), slots;
          w.from_host(wh);
          h[run].assign(j + 2, 0.0);
          if (run == 1)
            {
              double next = dot(w, v[0]);
              for (int i = 0; i <= j; ++i)
                {
                  h[run][std::size_t(i)] = next;
                  next =
                    axpy_dot(-h[run][std::size_t(i)], v[std::size_t(i)], w, i < j ? &v[std::size_t(i) + 1] : nullptr);
                }
              h[run][j + 1] = std::sqrt(next);
            }
          else
            modified_gram_schmidt(v, j, w, h[run].data(), slots);
          wr[run] = w.to_host();
        }
      EXPECT_EQ(h[0], h[1]) << n;
      EXPECT_EQ(wr[0], wr[1]) << n;
      for (int i = 0; i < j + 2; ++i)
        EXPECT_NEAR(h[0][std::size_t(i)], h[2][std::size_t(i)], 1e-12 * (1 + std::fabs(h[2][std::size_t(i)]))) << n;
      EXPECT_LT(rel_diff(wr[0], wr[2]), 1e-13) << n;
    }
}

TEST(Gpu, ChebyshevEqualsCpu)
{
  const auto lev = level_of(3, 3, 3);
  compare_backends<double>(
    lev, {random_interior<double>(lev, 8), random_interior<double>(lev, 9)},
    [&](Backend b, std::vector<Vector<double>> &v) {
      CartesianLaplaceOperator<3, 3, double> op(lev, b);
      Vector<double>                         diag;
      laplace_diagonal(lev, b, false, diag);
      ChebyshevSmoother<double> sm(op, std::move(diag), ChebyshevSettings{}, b);
      sm.smooth(v[0], v[1]);
    },
    "chebyshev", 1e-10);
}

TEST(Gpu, RhsAndErrorsEqualCpu)
{
  const auto lev = level_of(3, 4, 3);
  ErrorNorms e[2];
  for (Backend b : {Backend::cpu, Backend::cuda})
    {
      Vector<double> u;
      interpolate_exact_solution(lev, b, u);
      e[b == Backend::cuda] = compute_errors<3, 4>(lev, u);
    }
  EXPECT_NEAR(e[1].l2, e[0].l2, 1e-10 * e[0].l2);
  EXPECT_NEAR(e[1].h1_semi, e[0].h1_semi, 1e-10 * e[0].h1_semi);
  compare_backends<double>(
    lev, {std::vector<double>(lev.n_dofs())},
    [&](Backend b, std::vector<Vector<double>> &v) { assemble_rhs(lev, RightHandSide::manufactured, b, v[0]); }, "rhs");
}

TEST(Gpu, WholeSolveMatchesCpu)
{
  for (auto [dim, k, level] : {std::tuple{2, 3, 6}, std::tuple{3, 2, 4}, std::tuple{3, 5, 3}})
    for (Precision prec : {Precision::fp32, Precision::fp64})
      for (SolverType st : {SolverType::gmres, SolverType::fmg})
        {
          SolverParameters p;
          p.dim                            = dim;
          p.degree                         = k;
          p.refinement_level               = level;
          p.precision                      = prec;
          p.solver                         = st;
          p.verbose                        = false;
          const std::array<RunResult, 2> r = solve_on_both(p);
          ASSERT_TRUE(r[1].converged) << r[1].failure;
          EXPECT_EQ(r[1].iterations, r[0].iterations) << dim << "D k=" << k;
          EXPECT_NEAR(*r[1].l2_error / *r[0].l2_error, 1.0, 1e-3);
          EXPECT_EQ(r[1].backend, "cuda");
        }
}

TEST(Gpu, FastDiagonalizationCoarseSolveEqualsCpu)
{
  // the coarse solve by fast diagonalization on both backends (x in the first vector, b in the
  // second), then whole solves whose coarse level it is
  for (auto [dim, k, level, neumann] :
       {std::tuple{2, 3, 4, false}, std::tuple{3, 1, 4, false}, std::tuple{3, 3, 3, false}, std::tuple{3, 7, 2, false},
        std::tuple{3, 2, 3, true}, std::tuple{2, 4, 3, true}})
    {
      CartesianLevel lev = level_of(dim, k, level, {2, 1, 1});
      if (neumann) // (the upper x and the lower y face)
        {
          Domain d;
          d.dim             = dim;
          d.upper           = {1.0, 1.25, 0.75};
          d.coarse_cells    = {2, 1, 1};
          d.dirichlet_faces = all_faces & ~(1u << 1) & ~(1u << 2);
          lev               = make_hierarchy(d, k, level).back();
        }
      const std::string what = std::to_string(dim) + "D k=" + std::to_string(k) + " " + lev.describe();
      auto              run  = [&](auto zero) {
        using T = decltype(zero);
        compare_backends<T>(
          lev, {std::vector<T>(std::size_t(lev.n_dofs()), T(0)), random_interior<T>(lev, 11)},
          [&](Backend b, std::vector<Vector<T>> &v) {
            LevelFastDiagonalization<T>(lev, ConstantCoefficients{1.5, 2.0}, b).solve(v[0], v[1]);
          },
          what);
      };
      run(0.0f);
      run(0.0);
    }
  for (auto [dim, k, level] : {std::tuple{2, 3, 6}, std::tuple{3, 3, 4}, std::tuple{3, 1, 5}})
    {
      SolverParameters p;
      p.dim                            = dim;
      p.degree                         = k;
      p.refinement_level               = level;
      p.verbose                        = false;
      const std::array<RunResult, 2> r = solve_on_both(p);
      ASSERT_TRUE(r[1].converged) << r[1].failure;
      EXPECT_EQ(r[1].coarse_solver, "fast diagonalization (exact)");
      EXPECT_EQ(r[1].coarsest_level, r[0].coarsest_level);
      EXPECT_EQ(r[1].iterations, r[0].iterations) << dim << "D k=" << k;
      EXPECT_NEAR(*r[1].l2_error / *r[0].l2_error, 1.0, 1e-3);
    }
}

TEST(Gpu, BPOperatorsEqualCpu)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= 8; ++k)
      for (BakeOff bp : {BakeOff::bp1, BakeOff::bp3, BakeOff::bp5})
        for (GeometryMode mode : {GeometryMode::stored, GeometryMode::on_the_fly, GeometryMode::polynomial})
          if (mode != GeometryMode::polynomial || bp == BakeOff::bp1)
            dispatch_dim(dim, [&](auto D) {
              dispatch_degree<8>(k, [&](auto K) {
                constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
                Domain        d;
                d.dim                         = dd;
                d.coarse_cells                = {6, 2, 2};
                const auto                lev = make_hierarchy(d, kk, dd == 3 && kk > 4 ? 0 : 1).back();
                const DeformationSettings def{Deformation::kershaw, 0.4};
                compare_backends<double>(
                  lev, {std::vector<double>(lev.n_dofs()), random_interior<double>(lev, 11)},
                  [&](Backend b, std::vector<Vector<double>> &v) {
                    BPOperator<dd, kk, double> op(lev, b, bp, def, true, mode);
                    op.vmult(v[0], v[1]);
                  },
                  "BP" + std::to_string(int(bp)) + " " + std::to_string(dd) + "D k=" + std::to_string(kk) +
                    (mode == GeometryMode::stored       ? " stored"
                     : mode == GeometryMode::on_the_fly ? " on the fly"
                                                        : " polynomial"));
                if (bp != BakeOff::bp1 && mode == GeometryMode::stored)
                  compare_backends<double>(
                    lev, {std::vector<double>(lev.n_dofs())},
                    [&](Backend b, std::vector<Vector<double>> &v) {
                      BPOperator<dd, kk, double> op(lev, b, bp, def, true, mode);
                      ASSERT_TRUE(op.diagonal(v[0]));
                    },
                    "diagonal BP" + std::to_string(int(bp)) + " " + std::to_string(dd) + "D k=" + std::to_string(kk));
                compare_backends<float>(
                  lev, {std::vector<float>(lev.n_dofs()), random_interior<float>(lev, 12)},
                  [&](Backend b, std::vector<Vector<float>> &v) {
                    BPOperator<dd, kk, float> op(lev, b, bp, def, false, mode);
                    op.vmult(v[0], v[1]);
                  },
                  "BP float " + std::to_string(dd) + "D k=" + std::to_string(kk));
              });
            });
}

// The stored geometric factors computed on the device (what the BP operators store there) against
// the same loop on the CPU: sine, Kershaw and an exact polar map, mass and Laplacian, with a
// coefficient, 2D and 3D (device and host transcendentals may differ in the last bits)
TEST(Gpu, GeometricFactorsAtPointsEqualCpu)
{
  for (int dim : {2, 3})
    {
      Domain dom;
      dom.dim                  = dim;
      dom.coarse_cells         = {6, 2, 2};
      const CartesianLevel lev = make_hierarchy(dom, 4, 1).back();
      DeformationSettings  polar;
      polar.type = Deformation::function;
      polar.map =
        make_deformation_map(dim == 3 ? "(1 + x)*cos(y); (1 + x)*sin(y); z" : "(1 + x)*cos(y); (1 + x)*sin(y)", dim);
      const Coefficient a = make_coefficient("1 + x*x + 0.5*sin(3*y)", dim);
      for (const DeformationSettings &s :
           {DeformationSettings{Deformation::sine, 0.15}, DeformationSettings{Deformation::kershaw, 0.3}, polar})
        for (GeometricFactorKind kind : {GeometricFactorKind::mass, GeometricFactorKind::laplace})
          for (const Coefficient &c : {Coefficient{}, a})
            {
              Vector<double> cpu, gpu;
              geometric_factors_at_points(lev, s, gauss_quadrature(6), kind, c, Backend::cpu, cpu);
              geometric_factors_at_points(lev, s, gauss_quadrature(6), kind, c, Backend::cuda, gpu);
              const std::vector<double> h = cpu.to_host(), g = gpu.to_host();
              ASSERT_EQ(h.size(), g.size());
              double scale = 0, diff = 0;
              for (std::size_t i = 0; i < h.size(); ++i)
                {
                  scale = std::max(scale, std::fabs(h[i]));
                  diff  = std::max(diff, std::fabs(h[i] - g[i]));
                }
              EXPECT_LE(diff, 1e-13 * scale)
                << dim << "D deformation " << int(s.type) << " kind " << int(kind) << (c ? " coefficient" : "");
            }
    }
}

// Neumann faces (x-, y+, z-) on the Kershaw mesh and Robin faces (x-, y+) with a coefficient on
// the box: bp3 and bp5 with the nodes of those faces as unknowns, their diagonals
TEST(Gpu, BPOperatorsWithNeumannAndRobinFacesEqualCpu)
{
  for (int dim : {2, 3})
    for (int k : {1, 2, 4, 7})
      for (BakeOff bp : {BakeOff::bp3, BakeOff::bp5})
        dispatch_dim(dim, [&](auto D) {
          dispatch_degree<8>(k, [&](auto K) {
            constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
            Domain        d;
            d.dim                         = dd;
            d.coarse_cells                = {6, 2, 2};
            d.dirichlet_faces             = all_faces & ~(1u | 8u | 16u);
            const auto                lev = make_hierarchy(d, kk, dd == 3 && kk > 4 ? 0 : 1).back();
            const DeformationSettings def{Deformation::kershaw, 0.4};
            auto                      rl = lev;
            rl.robin_faces               = 1u | 8u;
            const Coefficients coefficients(Expression("1 + x*y", dd), Expression("3", dd));
            const std::string  what = "BP" + std::to_string(int(bp)) + " " + std::to_string(dd) +
                                     "D k=" + std::to_string(kk) + " with Neumann/Robin faces";
            compare_backends<double>(
              lev,
              {std::vector<double>(lev.n_dofs()), std::vector<double>(lev.n_dofs()), random_interior<double>(lev, 11)},
              [&](Backend b, std::vector<Vector<double>> &v) {
                BPOperator<dd, kk, double> neumann(lev, b, bp, def);
                neumann.vmult(v[0], v[2]);
                BPOperator<dd, kk, double> robin(rl, b, bp, {}, true, GeometryMode::stored, coefficients,
                                                 make_robin_faces<double>(rl, "1 + x^2", b));
                Vector<double>             y, diag;
                robin.vmult(y, v[2]);
                ASSERT_TRUE(robin.diagonal(diag));
                sadd(1.0, 1.0, y, v[0]);
                v[1].copy_from(diag);
              },
              what);
          });
        });
}

TEST(Gpu, TooLargeProblemIsRefusedBeforeAllocation)
{
  SolverParameters p;
  p.dim              = 3;
  p.degree           = 8;
  p.refinement_level = 9; // 4097^3 = 69 G DoFs
  p.device           = DeviceChoice::cuda;
  p.verbose          = false;
  std::ostringstream log;
  try
    {
      run_poisson(p, log);
      FAIL() << "no OutOfMemoryError";
    }
  catch (const OutOfMemoryError &e)
    {
      EXPECT_NE(std::string(e.what()).find("GiB free"), std::string::npos) << e.what();
    }
}

TEST(Gpu, AxpyDotUpdatesOnceAndEqualsCpu)
{
  // the fused axpy + dot product of GMRES's Gram-Schmidt: w must be updated exactly once by
  // the reduction (a second transform of an item would add a x twice)
  const index_t                    n = 3'000'017; // several CUB tiles and a ragged end
  std::mt19937                     gen(5);
  std::uniform_real_distribution<> u(-1, 1);
  std::vector<double>              x(n), w(n), v(n);
  for (index_t i = 0; i < n; ++i)
    {
      x[i] = u(gen);
      w[i] = u(gen);
      v[i] = u(gen);
    }
  for (bool with_v : {true, false})
    {
      double              d[2];
      std::vector<double> wout[2];
      for (Backend b : {Backend::cpu, Backend::cuda})
        {
          Vector<double> xb(n, b), wb(n, b), vb(n, b);
          xb.from_host(x);
          wb.from_host(w);
          vb.from_host(v);
          d[b == Backend::cuda]    = axpy_dot(-0.5, xb, wb, with_v ? &vb : nullptr);
          wout[b == Backend::cuda] = wb.to_host();
        }
      EXPECT_NEAR(d[1], d[0], 1e-12 * std::fabs(d[0]));
      for (index_t i = 0; i < n; ++i)
        ASSERT_EQ(wout[1][i], wout[0][i]) << i;
    }
}

TEST(Gpu, MultiDotAndProjectionEqualCpu)
{
  // classical Gram-Schmidt's batched inner products (up to 8 double-double sums per pass) and the
  // last projection with the norm: the GPU's sums equal the CPU's, the update bit for bit
  const index_t                    n = 1'000'003;
  std::mt19937                     gen(9);
  std::uniform_real_distribution<> u(-1, 1);
  std::vector<std::vector<double>> v(11, std::vector<double>(n));
  std::vector<double>              w(n);
  for (auto &vc : v)
    for (double &e : vc)
      e = u(gen);
  for (double &e : w)
    e = u(gen);
  const double        a[11] = {0.5, -0.25, 1, 2, -3, 0.125, 0.75, -1.5, 0.3, -0.7, 0.9};
  double              dots[2][11], norms[2];
  std::vector<double> wout[2];
  for (Backend b : {Backend::cpu, Backend::cuda})
    {
      std::vector<Vector<double>> vb;
      for (const auto &vc : v)
        {
          vb.emplace_back(n, b);
          vb.back().from_host(vc);
        }
      Vector<double> wb(n, b);
      wb.from_host(w);
      multi_dot(vb, 11, wb, dots[b == Backend::cuda]);
      norms[b == Backend::cuda] = multi_axpy_norm(a, vb, 11, wb);
      wout[b == Backend::cuda]  = wb.to_host();
    }
  for (int c = 0; c < 11; ++c)
    EXPECT_NEAR(dots[1][c], dots[0][c], 1e-13 * std::fabs(dots[0][c]) + 1e-13) << c;
  EXPECT_NEAR(norms[1], norms[0], 1e-13 * norms[0]);
  for (index_t i = 0; i < n; ++i)
    ASSERT_NEAR(wout[1][i], wout[0][i], 1e-14 * (1 + std::fabs(wout[0][i]))) << i;
}

/// The natural transfer kernels, the diagonal and the flux integrals on a level with the
/// Dirichlet faces `dirichlet`, GPU against CPU.
template <int dd, int kk>
void neumann_case(unsigned dirichlet)
{
  transfer_case<dd, kk>(dirichlet);
  Domain d;
  d.dim             = dd;
  d.coarse_cells    = {1, 2, 1};
  d.dirichlet_faces = dirichlet;
  const auto f      = make_hierarchy(d, kk, dd == 3 ? 2 : 4).back();
  compare_backends<double>(
    f, {std::vector<double>(f.n_dofs())},
    [&](Backend b, std::vector<Vector<double>> &v) { laplace_diagonal(f, b, false, v[0]); }, "diagonal, Neumann faces",
    1e-14);
  ProblemFunctions problem;
  problem.rhs           = Expression("1 + x*y", dd);
  problem.boundary_flux = Expression("sin(3*x) + y", dd);
  compare_backends<double>(
    f, {std::vector<double>(f.n_dofs())},
    [&](Backend b, std::vector<Vector<double>> &v) {
      assemble_rhs(f, {}, problem, LevelOperatorType::cartesian, b, v[0]);
    },
    "rhs with flux integrals", 1e-13);
}

// Neumann faces (x-, y+, z+): the natural operator kernel, its diagonal, the natural transfer
// kernels (the coarse cells past the upper faces), the flux integrals, the vertex-patch smoother
// with the patches on the faces, and a whole solve
TEST(Gpu, NeumannFacesEqualCpu)
{
  const unsigned dirichlet = all_faces & ~(1u | 8u | 32u);
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, 5, 7})
      {
        laplace_case<double>(dim, k, dirichlet);
        laplace_case<float>(dim, k, dirichlet);
        for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::fused})
          {
            smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::automatic,
                                  ThreadStructure::automatic, false, dirichlet);
            smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::automatic,
                                 ThreadStructure::automatic, k % 2 == 0, dirichlet);
          }
        dispatch_dim(dim, [&](auto D) {
          dispatch_degree(k, [&](auto K) {
            constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
            if constexpr (dd == 2 || kk <= 8) // (3D transfers exist for k <= 8)
              neumann_case<dd, kk>(dirichlet);
          });
        });
      }
  SolverParameters p;
  p.dim                            = 3;
  p.degree                         = 3;
  p.refinement_level               = 2;
  p.coarse_cells                   = {2, 2, 1};
  p.rhs                            = RightHandSide::function;
  p.rhs_function                   = "4*exp(x)*sin(2*y)*cos(z)";
  p.boundary_values                = "exp(x)*sin(2*y)*cos(z)";
  p.exact_solution                 = p.boundary_values;
  p.boundary.type                  = {BoundaryType::neumann, BoundaryType::dirichlet, BoundaryType::dirichlet,
                                      BoundaryType::neumann, BoundaryType::dirichlet, BoundaryType::dirichlet};
  p.boundary_flux                  = "abs(x) < 1e-9 ? -exp(x)*sin(2*y)*cos(z) : 2*exp(x)*cos(2*y)*cos(z)";
  p.relative_tolerance             = 1e-12;
  p.verbose                        = false;
  const std::array<RunResult, 2> r = solve_on_both(p);
  ASSERT_TRUE(r[1].converged) << r[1].failure;
  EXPECT_EQ(r[1].iterations, r[0].iterations);
  EXPECT_NEAR(*r[1].l2_error, *r[0].l2_error, 1e-9 * *r[0].l2_error);
  // every face Neumann (singular: the right-hand side made compatible, the preconditioner's
  // results and the coarse solve without the constant, the solution shifted to u's mean 2)
  p.boundary.type.fill(BoundaryType::neumann);
  p.boundary_values = "0";
  p.exact_solution  = "cos(pi*x/2)*cos(pi*y)*cos(pi*(z - 0.5)) + 2";
  p.rhs_function    = "2.25*pi^2*cos(pi*x/2)*cos(pi*y)*cos(pi*(z - 0.5))";
  p.boundary_flux   = "0";
  for (Precision precision : {Precision::fp32, Precision::fp64})
    {
      p.precision                      = precision;
      const std::array<RunResult, 2> s = solve_on_both(p);
      ASSERT_TRUE(s[1].converged) << s[1].failure;
      EXPECT_TRUE(s[1].singular);
      EXPECT_EQ(s[1].iterations, s[0].iterations);
      EXPECT_NEAR(*s[1].l2_error, *s[0].l2_error, 1e-6 * *s[0].l2_error);
      EXPECT_NEAR(s[1].solution_shift, s[0].solution_shift, 1e-9);
      EXPECT_NEAR(s[1].compatibility_defect, s[0].compatibility_defect, 1e-12);
    }
}

// Robin faces (x- and y+ Robin with a coefficient varying along them, z+ Neumann): the operator
// with its face term, residual and diagonal, the vertex-patch smoother with the Robin patches'
// face term and eigenpairs, the right-hand side with the lifting on the Robin faces' edges, and
// whole solves (both smoothers, float and double V-cycles).
// Periodic faces (every level a part with ghost copies beyond the faces, exchanged with itself
// in the GPU's memory): the same iterations and errors as the CPU, with every smoother kernel
// family, Chebyshev-Jacobi and bp3, a fully periodic (singular) problem, 2D and 3D.
TEST(Gpu, PeriodicFacesEqualCpu)
{
  SolverParameters p;
  p.dim                = 3;
  p.degree             = 3;
  p.refinement_level   = 2;
  p.box_upper          = {1, 1, 2};
  p.coarse_cells       = {2, 1, 2};
  p.rhs                = RightHandSide::function;
  p.rhs_function       = "(5*pi^2 - 1)*sin(2*pi*x)*exp(y)*cos(pi*z)";
  p.boundary_values    = "sin(2*pi*x)*exp(y)*cos(pi*z)";
  p.exact_solution     = p.boundary_values;
  p.boundary.type      = {BoundaryType::periodic,  BoundaryType::periodic, BoundaryType::dirichlet,
                          BoundaryType::dirichlet, BoundaryType::periodic, BoundaryType::periodic};
  p.relative_tolerance = 1e-12;
  p.verbose            = false;
  auto check           = [](const SolverParameters &q, const std::string &what) {
    const std::array<RunResult, 2> r = solve_on_both(q);
    ASSERT_TRUE(r[0].converged && r[1].converged) << what << ": " << r[1].failure;
    EXPECT_EQ(r[1].iterations, r[0].iterations) << what;
    EXPECT_NEAR(*r[1].l2_error, *r[0].l2_error, 1e-8 * *r[0].l2_error) << what;
  };
  check(p, "3D k=3 fused");
  SolverParameters q = p;
  q.patch.kernel     = SmootherKernel::global;
  check(q, "3D k=3 global");
  q                    = p;
  q.patch.kernel       = SmootherKernel::separate;
  q.patch.optimization = KernelOptimization::basic;
  check(q, "3D k=3 separate basic");
  q                = p;
  q.smoother       = SmootherType::chebyshev_jacobi;
  q.level_operator = LevelOperatorType::bp3;
  check(q, "3D k=3 bp3 chebyshev");
  q                  = p;
  q.degree           = 1;
  q.refinement_level = 3;
  check(q, "3D k=1");
  q                 = p;
  q.dim             = 2;
  q.degree          = 5;
  q.rhs_function    = "(4*pi^2 - 1)*sin(2*pi*x)*exp(y)";
  q.boundary_values = q.exact_solution = "sin(2*pi*x)*exp(y)";
  check(q, "2D k=5");
  q.boundary.type.fill(BoundaryType::periodic);
  q.coarse_cells    = {2, 2, 1}; // (a periodic direction has at least two)
  q.boundary_values = "0";
  q.exact_solution  = "sin(2*pi*x)*cos(2*pi*y) + 2";
  q.rhs_function    = "8*pi^2*sin(2*pi*x)*cos(2*pi*y)";
  check(q, "2D k=5 fully periodic");
}

TEST(Gpu, RobinFacesEqualCpu)
{
  const unsigned  dirichlet = all_faces & ~(1u | 8u | 32u);
  const RobinCase robin{1u | 8u, "1 + x^2 + y"};
  for (int dim : {2, 3})
    for (int k : {1, 2, 3, 5, 7})
      {
        RobinCase r = robin;
        if (dim == 3)
          r.alpha = "1 + x^2 + y*z";
        laplace_case<double>(dim, k, dirichlet, r);
        laplace_case<float>(dim, k, dirichlet, r);
        for (SmootherKernel kern : {SmootherKernel::global, SmootherKernel::fused})
          {
            smoother_case<double>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::automatic,
                                  ThreadStructure::automatic, false, dirichlet, r);
            smoother_case<float>(dim, k, kern, LocalSolver::fast_diagonalization, KernelOptimization::automatic,
                                 ThreadStructure::automatic, false, dirichlet, r);
          }
      }
  Domain d;
  d.dim             = 3;
  d.coarse_cells    = {1, 2, 1};
  d.dirichlet_faces = dirichlet;
  d.robin_faces     = robin.faces;
  ProblemFunctions problem;
  problem.rhs               = Expression("1 + x*y", 3);
  problem.boundary_values   = Expression("exp(x)*cos(y) + z", 3);
  problem.boundary_flux     = Expression("sin(3*x) + y", 3);
  problem.robin_coefficient = Expression("1 + x^2 + y*z", 3);
  for (int k : {2, 5})
    {
      const auto f = make_hierarchy(d, k, 2).back();
      compare_backends<double>(
        f, {std::vector<double>(f.n_dofs())},
        [&](Backend b, std::vector<Vector<double>> &v) {
          assemble_rhs(f, {}, problem, LevelOperatorType::cartesian, b, v[0]);
        },
        "rhs with Robin faces, k=" + std::to_string(k), 1e-13);
      // on a deformed mesh: the mapped faces' measure in the flux and the Robin weights
      compare_backends<double>(
        f, {std::vector<double>(f.n_dofs())},
        [&](Backend b, std::vector<Vector<double>> &v) {
          assemble_rhs(f, DeformationSettings{Deformation::sine, 0.1}, problem, LevelOperatorType::bp3, b, v[0]);
        },
        "rhs with Robin faces on the sine mesh, k=" + std::to_string(k), 1e-13);
    }
  SolverParameters p;
  p.dim                = 3;
  p.degree             = 3;
  p.refinement_level   = 2;
  p.coarse_cells       = {2, 2, 1};
  p.rhs                = RightHandSide::function;
  p.rhs_function       = "4*exp(x)*sin(2*y)*cos(z)";
  p.boundary_values    = "exp(x)*sin(2*y)*cos(z)";
  p.exact_solution     = p.boundary_values;
  p.boundary.type      = {BoundaryType::robin, BoundaryType::dirichlet, BoundaryType::dirichlet,
                          BoundaryType::robin, BoundaryType::dirichlet, BoundaryType::dirichlet};
  p.robin_coefficient  = "1 + x^2 + y*z";
  p.boundary_flux      = "abs(x) < 1e-9 ? (-1 + 1 + x^2 + y*z)*exp(x)*sin(2*y)*cos(z) : 2*exp(x)*cos(2*y)*cos(z) + "
                         "(1 + x^2 + y*z)*exp(x)*sin(2*y)*cos(z)";
  p.relative_tolerance = 1e-12;
  p.verbose            = false;
  for (SmootherType smoother : {SmootherType::vertex_patch, SmootherType::chebyshev_jacobi})
    for (Precision precision : {Precision::fp32, Precision::fp64})
      {
        p.smoother                       = smoother;
        p.precision                      = precision;
        const std::array<RunResult, 2> r = solve_on_both(p);
        ASSERT_TRUE(r[1].converged) << r[1].failure;
        EXPECT_EQ(r[1].iterations, r[0].iterations) << to_string(smoother) << " " << to_string(precision);
        EXPECT_NEAR(*r[1].l2_error, *r[0].l2_error, 1e-6 * *r[0].l2_error) << to_string(smoother);
      }
}

TEST(Gpu, ProblemFunctionsEqualCpu)
{
  // the right-hand side with lifting, the boundary interpolant and the errors of a problem given
  // by expressions, on a Cartesian and a sine-deformed mesh, for each level operator's lifting
  ProblemFunctions problem;
  problem.rhs             = Expression("4*exp(x)*sin(2*y)*cos(z) + x*y", 3);
  problem.boundary_values = Expression("exp(x)*sin(2*y)*cos(z)", 3);
  const Expression u("exp(x)*sin(2*y)*cos(z)", 3);
  Domain           d;
  d.lower        = {0, -1, 0.5};
  d.upper        = {2, 1, 1.5};
  d.coarse_cells = {2, 2, 1};
  for (int k : {1, 3, 8})
    for (Deformation def : {Deformation::none, Deformation::sine})
      for (LevelOperatorType op : {LevelOperatorType::bp3, LevelOperatorType::bp5})
        {
          const auto                lev = make_hierarchy(d, k, k == 8 ? 1 : 2).back();
          const DeformationSettings deformation{def, def == Deformation::sine ? 0.05 : 0.0};
          const std::string         what = "k=" + std::to_string(k) + " " + to_string(def) + " " + to_string(op);
          compare_backends<double>(
            lev, {std::vector<double>(lev.n_dofs())},
            [&](Backend b, std::vector<Vector<double>> &v) { assemble_rhs(lev, deformation, problem, op, b, v[0]); },
            "rhs " + what, 1e-13);
          compare_backends<double>(
            lev, {std::vector<double>(lev.n_dofs())},
            [&](Backend b, std::vector<Vector<double>> &v) {
              interpolate_boundary_values(lev, deformation, problem.boundary_values, b, v[0]);
            },
            "g_h " + what, 1e-14);
          ErrorNorms e[2];
          for (Backend b : {Backend::cpu, Backend::cuda})
            {
              Vector<double> g_h;
              interpolate_boundary_values(lev, deformation, problem.boundary_values, b, g_h);
              e[b == Backend::cuda] = compute_errors(lev, deformation, u, g_h);
            }
          EXPECT_NEAR(e[1].l2, e[0].l2, 1e-12 * e[0].l2) << what;
          EXPECT_NEAR(e[1].h1_semi, e[0].h1_semi, 1e-12 * e[0].h1_semi) << what;
        }
  // the lifting with a coefficient and a reaction term on an exactly mapped mesh (the map's
  // programs at every point), 2D and 3D
  for (int dim : {2, 3})
    for (int k : {2, 5})
      {
        ProblemFunctions mapped;
        mapped.rhs             = Expression(dim == 3 ? "1 + x*y - z" : "1 + x*y", dim);
        mapped.boundary_values = Expression(dim == 3 ? "sin(x)*exp(y) + z" : "sin(x)*exp(y)", dim);
        mapped.coefficient     = Expression("1 + 0.5*sin(x)*cos(y)", dim);
        mapped.reaction        = Expression("2 + x", dim);
        DeformationSettings cylinder;
        cylinder.type = Deformation::function;
        cylinder.map  = make_deformation_map(
           dim == 2 ? "(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y)" : "(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y); 2*z", dim);
        Domain box;
        box.dim          = dim;
        box.coarse_cells = {1, 2, 2};
        const auto lev   = make_hierarchy(box, k, dim == 3 ? 2 : 3).back();
        for (LevelOperatorType op : {LevelOperatorType::bp3, LevelOperatorType::bp5})
          compare_backends<double>(
            lev, {std::vector<double>(lev.n_dofs())},
            [&](Backend b, std::vector<Vector<double>> &v) { assemble_rhs(lev, cylinder, mapped, op, b, v[0]); },
            "rhs, mapped, coefficients, " + std::to_string(dim) + "D k=" + std::to_string(k) + " " + to_string(op),
            1e-13);
      }
}

TEST(Gpu, UserProblemMatchesCpu)
{
  for (int dim : {2, 3})
    for (Precision prec : {Precision::fp32, Precision::fp64})
      {
        SolverParameters p;
        p.dim                            = dim;
        p.degree                         = 3;
        p.refinement_level               = dim == 3 ? 2 : 4;
        p.box_lower                      = {0, -1, 0.5};
        p.box_upper                      = {2, 1, 1.5};
        p.coarse_cells                   = {2, 2, 1};
        p.rhs                            = RightHandSide::function;
        p.rhs_function                   = dim == 3 ? "-2 - 6*x*z" : "-2 - 6*x";
        p.boundary_values                = dim == 3 ? "1 + x^2 - y*z + 3*x*y^2*z" : "1 + x^2 - x*y + 3*x*y^2";
        p.exact_solution                 = p.boundary_values;
        p.relative_tolerance             = 1e-13;
        p.precision                      = prec;
        p.verbose                        = false;
        const std::array<RunResult, 2> r = solve_on_both(p);
        ASSERT_TRUE(r[1].converged) << r[1].failure;
        EXPECT_EQ(r[1].backend, "cuda");
        EXPECT_EQ(r[1].iterations, r[0].iterations) << dim << "D";
        // the polynomial is reproduced to rounding on both
        EXPECT_LT(*r[1].l2_error, 1e-10) << dim << "D";
        EXPECT_LT(*r[0].l2_error, 1e-10) << dim << "D";
      }
}

// The solution's summary (min_max and the mean on the device) and its values at points (the
// cells' nodes copied from device memory) equal the CPU's.
TEST(Gpu, SolutionSummaryAndPointValuesEqualCpu)
{
  for (int dim : {2, 3})
    {
      SolverParameters p;
      p.dim                            = dim;
      p.degree                         = 4;
      p.refinement_level               = dim == 3 ? 2 : 4;
      p.rhs                            = RightHandSide::function;
      p.rhs_function                   = "exp(x)*sin(3*y)";
      p.boundary_values                = "x - y^2";
      p.point_values                   = {{{0.5, 0.5, 0.5}}, {{0.13, 0.77, 0.41}}, {{1, 1, 1}}};
      p.relative_tolerance             = 1e-12;
      p.verbose                        = false;
      const std::array<RunResult, 2> r = solve_on_both(p);
      ASSERT_TRUE(r[1].converged) << r[1].failure;
      ASSERT_EQ(r[1].point_values.size(), 3u);
      const double scale = std::max(std::fabs(r[0].solution_min), std::fabs(r[0].solution_max));
      EXPECT_NEAR(r[1].solution_min, r[0].solution_min, 1e-9 * scale) << dim << "D";
      EXPECT_NEAR(r[1].solution_max, r[0].solution_max, 1e-9 * scale) << dim << "D";
      EXPECT_NEAR(r[1].solution_mean, r[0].solution_mean, 1e-9 * scale) << dim << "D";
      for (std::size_t q = 0; q < 3; ++q)
        EXPECT_NEAR(r[1].point_values[q], r[0].point_values[q], 1e-9 * scale) << dim << "D, point " << q;
      EXPECT_NEAR(r[0].point_values[2], 0.0, 1e-12); // g(1, 1) = 0 at the corner
    }
}

namespace
{
  /// The fitted patch solves of every colour on `lev` (float and double; α on its Robin faces),
  /// and where it has patches on Neumann or Robin faces, those of the additive step in one launch
  /// (atomic additions on the GPU) against the CPU's colour by colour.
  template <int dim, int k>
  void expect_fitted_solves_equal(const CartesianLevel &lev, const DeformationSettings &def,
                                  const Coefficients &coefficients, const std::string &alpha, const std::string &what,
                                  FittedPatchKernel kernel = FittedPatchKernel::scalar)
  {
    const std::string name = what + " " + std::to_string(dim) + "D k=" + std::to_string(k) + " " + to_string(kernel);
    auto              run  = [&](auto number) {
      using T         = decltype(number);
      auto solver_for = [&](Backend b) {
        return FittedPatchSolver<dim, k, T>(lev, b, def, k % 2 == 0, coefficients,
                                            alpha.empty() ? nullptr : make_robin_faces<T>(lev, alpha, b, def), kernel);
      };
      // TF32 products are summed in float by the tensor cores, in their order and with their
      // alignment of the addends (not IEEE sums): measured up to 2.6e-5 from the CPU's float sums
      // (3D k = 7, relative to the result's norm)
      const double tol = kernel == FittedPatchKernel::tensor_tf32 ? 1e-4 : tolerance<T>();
      compare_backends<T>(
        lev, {std::vector<T>(lev.n_dofs()), random_interior<T>(lev, 21)},
        [&](Backend b, std::vector<Vector<T>> &v) {
          const auto solver = solver_for(b);
          EXPECT_EQ(solver.kernel(), kernel) << name;
          for (int c = 0; c < solver.n_colors(); ++c)
            solver.solve_color(v[0], v[1], c);
        },
        name, tol);
      if (lev.dirichlet_faces != all_faces)
        compare_backends<T>(
          lev, {std::vector<T>(lev.n_dofs()), random_interior<T>(lev, 29)},
          [&](Backend b, std::vector<Vector<T>> &v) {
            const auto solver = solver_for(b);
            ASSERT_TRUE(solver.has_boundary_patches());
            solver.solve_boundary_patches(v[0], v[1]);
          },
          name + ", the face patches in one launch");
    };
    run(double{});
    run(float{});
  }

  /// CEED BPS5 on the Kershaw mesh (ε = 0.3) of 6³ coarse cells at level 1, Q_k.
  SolverParameters kershaw_bps5(int k)
  {
    SolverParameters p;
    p.dim                = 3;
    p.degree             = k;
    p.refinement_level   = 1;
    p.coarse_cells       = {6, 6, 6};
    p.level_operator     = LevelOperatorType::bp5;
    p.deformation        = {Deformation::kershaw, 0.3};
    p.relative_tolerance = 1e-8;
    p.verbose            = false;
    p.source             = "test";
    return p;
  }
} // namespace

TEST(Gpu, FittedPatchSolvesAndKershawSolveEqualCpu)
{
  // the fitted patch solves of every colour, float and double, on a Kershaw mesh
  for_each_solver_degree({1, 2, 4, 7}, [&](auto D, auto K) {
    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
    Domain        d;
    d.dim          = dd;
    d.coarse_cells = {6, 4, 4};
    expect_fitted_solves_equal<dd, kk>(make_hierarchy(d, kk, 0).back(), {Deformation::kershaw, 0.3}, {}, "",
                                       "fitted patch solves");
  });
  // the whole Kershaw BPS5 solve with the defaults (fitted patches, Chebyshev, coarse solve by
  // degree at k = 3): the CPU's iterations and error
  SolverParameters p = kershaw_bps5(3);
  RunResult        r[2];
  for (DeviceChoice dev : {DeviceChoice::cpu, DeviceChoice::cuda})
    {
      p.device = dev;
      std::ostringstream log;
      r[dev == DeviceChoice::cuda] = run_poisson(p, log);
      ASSERT_TRUE(r[dev == DeviceChoice::cuda].converged) << r[dev == DeviceChoice::cuda].failure;
    }
  EXPECT_NEAR(r[1].iterations, r[0].iterations, 1);
  EXPECT_NEAR(*r[1].l2_error / *r[0].l2_error, 1.0, 1e-3);
  EXPECT_EQ(r[1].backend, "cuda");
}

// The fitted patch solves on the tensor cores (kernels/smoothers/patch_fitted_mma.h) equal the CPU
// runner's dot products of the same operands, at degrees with one warp (k = 1..4) and four
// warps (k = 7) a patch; a Kershaw solve with them takes the scalar kernel's iterations (+1 with
// TF32) and its error.
TEST(Gpu, FittedTensorKernelsEqualTheRunner)
{
  for (FittedPatchKernel kernel : {FittedPatchKernel::tensor_fp64, FittedPatchKernel::tensor_tf32})
    {
      for_each_solver_degree({1, 2, 3, 4, 7}, [&](auto D, auto K) {
        constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
        Domain        d;
        d.dim          = dd;
        d.coarse_cells = {6, 4, 4};
        expect_fitted_solves_equal<dd, kk>(make_hierarchy(d, kk, 0).back(), {Deformation::kershaw, 0.3}, {}, "",
                                           "fitted patch solves", kernel);
      });
    }
  SolverParameters p                 = kershaw_bps5(5);
  p.device                           = DeviceChoice::cuda;
  const FittedPatchKernel kernels[3] = {FittedPatchKernel::scalar, FittedPatchKernel::tensor_fp64,
                                        FittedPatchKernel::tensor_tf32};
  RunResult               r[3];
  for (int i = 0; i < 3; ++i)
    {
      p.fitted_kernel = kernels[i];
      std::ostringstream log;
      r[i] = run_poisson(p, log);
      ASSERT_TRUE(r[i].converged) << r[i].failure;
      EXPECT_EQ(r[i].fitted_patch_kernel, to_string(kernels[i]));
    }
  EXPECT_EQ(r[1].iterations, r[0].iterations);
  EXPECT_LE(r[2].iterations, r[0].iterations + 1);
  EXPECT_NEAR(*r[1].l2_error / *r[0].l2_error, 1.0, 1e-3);
  EXPECT_NEAR(*r[2].l2_error / *r[0].l2_error, 1.0, 1e-2);
}

// The fitted patches on Neumann and Robin faces (kernels/smoothers/patch_fitted.h,
// FittedBoundaryPatchSolve): every colour's solves on a sine mesh whose faces are Neumann, Robin
// (α varying along them) and Dirichlet, with a coefficient and a reaction term; whole solves with
// those faces on the sine mesh and, with a coefficient, on a periodic box: the CPU's results.
TEST(Gpu, FittedPatchesOnNeumannRobinAndPeriodicFacesEqualCpu)
{
  for_each_solver_degree({1, 2, 3, 5, 7}, [&](auto D, auto K) {
    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
    Domain        d;
    d.dim             = dd;
    d.coarse_cells    = {4, 3, 3};
    d.dirichlet_faces = 0x01 | 0x20; // x- and z+
    d.robin_faces     = 0x02 | 0x08; // x+ and y+
    expect_fitted_solves_equal<dd, kk>(
      make_hierarchy(d, kk, 0).back(), {Deformation::sine, 0.15},
      Coefficients(make_coefficient("2 + sin(3*x)*cos(2*y)", dd), make_reaction("5*(1 + x*y)", dd)), "1 + x*x",
      "fitted patch solves with Neumann and Robin faces");
  });
  SolverParameters p;
  p.dim                = 3;
  p.degree             = 3;
  p.refinement_level   = 1;
  p.coarse_cells       = {2, 2, 2};
  p.level_operator     = LevelOperatorType::bp3;
  p.deformation        = {Deformation::sine, 0.1};
  p.rhs                = RightHandSide::function;
  p.rhs_function       = "1 + x*y";
  p.boundary_values    = "x + y";
  p.boundary_flux      = "sin(3*x) + y";
  p.robin_coefficient  = "1 + x*x";
  p.boundary.type      = {BoundaryType::neumann, BoundaryType::robin,     BoundaryType::dirichlet,
                          BoundaryType::neumann, BoundaryType::dirichlet, BoundaryType::neumann};
  p.relative_tolerance = 1e-10;
  p.verbose            = false;
  p.source             = "test";
  for (Precision precision : {Precision::fp32, Precision::fp64})
    {
      p.precision                      = precision;
      const std::array<RunResult, 2> r = solve_on_both(p);
      ASSERT_TRUE(r[0].converged && r[1].converged) << r[1].failure;
      EXPECT_EQ(r[1].backend, "cuda");
      EXPECT_NEAR(r[1].iterations, r[0].iterations, 1) << to_string(precision);
      EXPECT_NEAR(r[1].solution_mean, r[0].solution_mean, 1e-8 * std::fabs(r[0].solution_mean)) << to_string(precision);
    }
  // periodic along x and z with a coefficient (the fitted patches read the ghost cells' a)
  SolverParameters q = p;
  q.deformation      = {};
  q.level_operator   = LevelOperatorType::cartesian;
  q.coefficient      = "2 + sin(2*pi*x)";
  q.boundary.type    = {BoundaryType::periodic,  BoundaryType::periodic, BoundaryType::dirichlet,
                        BoundaryType::dirichlet, BoundaryType::periodic, BoundaryType::periodic};
  q.boundary_flux = q.robin_coefficient = "0";
  q.precision                           = Precision::fp32;
  const std::array<RunResult, 2> r      = solve_on_both(q);
  ASSERT_TRUE(r[0].converged && r[1].converged) << r[1].failure;
  EXPECT_NEAR(r[1].iterations, r[0].iterations, 1);
  EXPECT_NEAR(r[1].solution_mean, r[0].solution_mean, 1e-8 * std::fabs(r[0].solution_mean));
}

// A coefficient a(x) and a reaction term c(x) u: the bp3/bp5 operators (2D and 3D kernels) and
// their diagonal (a and c evaluated in the diagonal kernel), the fitted patch solves scaled by the
// patches' mean a and shifted by their mean c, and whole solves with a smooth and a layered
// coefficient, with a reaction term (the lifting of g carries a and c) and on domains given by a

// map with exact cells give the CPU's results.
namespace
{
  /// A solve with f = 1 + x y and non-zero boundary values to 1e-10, one point value.
  SolverParameters coefficient_solve(int dim, int degree, int level, const std::string &g)
  {
    SolverParameters p;
    p.dim                = dim;
    p.degree             = degree;
    p.refinement_level   = level;
    p.rhs                = RightHandSide::function;
    p.rhs_function       = "1 + x*y";
    p.boundary_values    = g;
    p.relative_tolerance = 1e-10;
    p.verbose            = false;
    p.source             = "test";
    return p;
  }

  /// p on both backends: both converge, within one iteration of each other, to the same point
  /// values (1e-8)
  std::array<RunResult, 2> expect_same_solve(const SolverParameters &p, const std::string &what)
  {
    const std::array<RunResult, 2> r = solve_on_both(p);
    for (const RunResult &x : r)
      EXPECT_TRUE(x.converged) << what << ": " << x.failure;
    EXPECT_EQ(r[1].backend, "cuda");
    EXPECT_NEAR(r[1].iterations, r[0].iterations, 1) << what;
    EXPECT_EQ(r[1].point_values.size(), p.point_values.size()) << what;
    for (std::size_t i = 0; i < r[0].point_values.size() && i < r[1].point_values.size(); ++i)
      EXPECT_NEAR(r[1].point_values[i], r[0].point_values[i], 1e-8 * std::fabs(r[0].point_values[i])) << what;
    return r;
  }
} // namespace

TEST(Gpu, CoefficientKernelsAndSolvesEqualCpu)
{
  for (int dim : {2, 3})
    for (int k : {1, 3, 4, 7})
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree<8>(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          if constexpr (kk <= max_solver_degree(dd))
            {
              Domain d;
              d.dim                         = dd;
              d.coarse_cells                = {6, 2, 2};
              const auto                lev = make_hierarchy(d, kk, dd == 3 && kk > 4 ? 0 : 1).back();
              const DeformationSettings def{Deformation::kershaw, 0.4};
              const Coefficient         a0 = make_coefficient("1 + 0.5*sin(3*x)*cos(2*y) + (x < 0.5 ? 9 : 0)", dd);
              // with a reaction term c u (its own per-point factors, the diagonal's mass channel,
              // the surrogates' eigenvalue shift)
              const Coefficients a(a0, make_reaction("50*(1 + cos(x + y))", dd));
              const std::string  what = std::to_string(dd) + "D k=" + std::to_string(kk);
              for (BakeOff bp : {BakeOff::bp3, BakeOff::bp5})
                {
                  compare_backends<double>(
                    lev, {std::vector<double>(lev.n_dofs()), random_interior<double>(lev, 13)},
                    [&](Backend b, std::vector<Vector<double>> &v) {
                      BPOperator<dd, kk, double> op(lev, b, bp, def, true, GeometryMode::stored, a);
                      op.vmult(v[0], v[1]);
                    },
                    "coefficient BP" + std::to_string(int(bp)) + " " + what);
                  compare_backends<double>(
                    lev, {std::vector<double>(lev.n_dofs())},
                    [&](Backend b, std::vector<Vector<double>> &v) {
                      BPOperator<dd, kk, double> op(lev, b, bp, def, true, GeometryMode::stored, a);
                      ASSERT_TRUE(op.diagonal(v[0]));
                    },
                    "coefficient diagonal BP" + std::to_string(int(bp)) + " " + what);
                }
              compare_backends<float>(
                lev, {std::vector<float>(lev.n_dofs()), random_interior<float>(lev, 22)},
                [&](Backend b, std::vector<Vector<float>> &v) {
                  FittedPatchSolver<dd, kk, float> solver(lev, b, def, false, a);
                  for (int c = 0; c < solver.n_colors(); ++c)
                    solver.solve_color(v[0], v[1], c);
                },
                "coefficient fitted patch solves " + what);
            }
        });
      });
  for (const char *a : {"1 + 0.5*sin(x)*cos(y)", "x < 1 ? 10 : 1", "1"})
    {
      SolverParameters p = coefficient_solve(3, 3, 2, "x^2 - y*z");
      p.box_lower        = {0, -1, 0.5};
      p.box_upper        = {2, 1, 1.5};
      p.coarse_cells     = {2, 2, 1};
      p.coefficient      = a;
      p.reaction         = std::string(a) == "1" ? "100*(1 + x*x)" : "0"; // -Laplace(u) + c u
      p.point_values     = {{{1.0, 0.0, 1.0}}};
      EXPECT_EQ(expect_same_solve(p, a)[1].level_operator, "bp3") << a;
    }
  // constant a and c: the Laplacian's kernels (cartesian, Cartesian patches with shifted sums)
  for (int dim : {2, 3})
    {
      SolverParameters p = coefficient_solve(dim, 4, dim == 3 ? 2 : 3, "x^2 - y");
      p.coefficient      = "2";
      p.reaction         = "1e3";
      p.point_values     = {{{0.3, 0.6, 0.7}}};
      const auto r       = expect_same_solve(p, std::to_string(dim) + "D a = 2, c = 1e3");
      EXPECT_EQ(r[1].level_operator, "cartesian");
      EXPECT_NE(r[1].kernel_optimization, "fitted patches");
    }
  // a domain given by a map with exact cells (the map's programs in device memory): the quarter
  // annulus in 2D and a shell section in 3D, with a coefficient and a reaction term
  for (int dim : {2, 3})
    {
      SolverParameters p     = coefficient_solve(dim, 3, dim == 3 ? 1 : 2, "x^2 - y");
      p.coarse_cells         = {1, 2, 1};
      p.level_operator       = LevelOperatorType::bp3;
      p.deformation.type     = Deformation::function;
      p.deformation_function = std::string("(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y)") + (dim == 3 ? "; 2*z" : "");
      p.coefficient          = "1 + 0.5*sin(x)*cos(y)";
      p.reaction             = "10*(1 + x*x)";
      p.point_values         = {{{1.0, 1.0, 0.5}}};
      EXPECT_EQ(expect_same_solve(p, std::to_string(dim) + "D map")[1].problem.mapping, "exact");
    }
}

namespace
{
  struct GraphCase
  {
    const char        *name;
    int                dim, degree, level;
    Precision          precision;
    SmootherType       smoother;
    bool               kershaw;
    KernelOptimization optimization;
  };

  SolverParameters graph_case_parameters(const GraphCase &c, CudaGraph g)
  {
    SolverParameters p;
    p.dim                = c.dim;
    p.degree             = c.degree;
    p.refinement_level   = c.level;
    p.precision          = c.precision;
    p.smoother           = c.smoother;
    p.patch.optimization = c.optimization;
    p.device             = DeviceChoice::cuda;
    p.cuda_graph         = g;
    p.relative_tolerance = 1e-10;
    p.verbose            = false;
    p.source             = "test";
    if (c.kershaw)
      {
        p.coarse_cells   = {6, 6, 6};
        p.level_operator = LevelOperatorType::bp5;
        p.deformation    = {Deformation::kershaw, 0.3};
      }
    return p;
  }

  /// The solve with a graph (r[1], u[1]) against launch by launch (r[0], u[0]): the same
  /// iterations; the residuals and the solutions (both solved to 1e-10) as close as the order of
  /// the operators' atomic adds lets two GPU runs be.
  void expect_graph_solve_as_launched(const GraphCase &c, const RunResult (&r)[2], const std::vector<double> (&u)[2])
  {
    EXPECT_FALSE(r[0].cuda_graph) << c.name;
    EXPECT_TRUE(r[1].cuda_graph) << c.name << (r[1].warnings.empty() ? "" : ": " + r[1].warnings.back());
    EXPECT_EQ(r[1].iterations, r[0].iterations) << c.name;
    ASSERT_EQ(r[1].history.size(), r[0].history.size()) << c.name;
    // Each V-cycle's output differs by a few units of its rounding (6e-8 in float) of its
    // input, which the operators' atomic adds order differently from run to run. A residual
    // then differs by about that share of the first one, which deep in a solve is a large part
    // of its own size (3D k = 1: 4.5 % in the fifth residual, below 1e-6 of the first): 1e-3
    // of itself, plus 1e-7 of the first residual in float (1e-14 in double).
    const double noise = (c.precision == Precision::fp32 ? 1e-7 : 1e-14) * r[0].history[0];
    for (std::size_t i = 0; i < r[0].history.size(); ++i)
      EXPECT_NEAR(r[1].history[i], r[0].history[i], 1e-3 * r[0].history[i] + noise) << c.name << " residual " << i;
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < u[0].size(); ++i)
      {
        diff = std::max(diff, std::fabs(u[1][i] - u[0][i]));
        norm = std::max(norm, std::fabs(u[0][i]));
      }
    EXPECT_LT(diff, 1e-8 * norm) << c.name;
    EXPECT_GT(norm, 0.1) << c.name;
  }

  double breakdown_seconds(const RunResult &r, const std::string &component)
  {
    for (const auto &[name, t] : r.breakdown)
      if (name == component)
        return t;
    return -1;
  }
} // namespace

// The V-cycle replayed as a CUDA graph runs the kernels of the launch-by-launch cycle in the same
// order: the same iterations and, but for the order of the atomic adds (which makes two GPU runs
// differ in the last bits either way), the same residuals and solution, in every smoother family
// the cases reach (fiber kernels, the k = 1 tile kernel whose stencil constants change from level
// to level, the basic kernels in double, Chebyshev-Jacobi, fitted patches with the coarse solve
// by degree), also for a double V-cycle whose outer solver calls it with a new pair of vectors
// each iteration, and over repeated solves.
TEST(Gpu, CudaGraphVCycleGivesTheLaunchByLaunchSolve)
{
  const SmootherType       patch     = SmootherType::vertex_patch;
  const KernelOptimization automatic = KernelOptimization::automatic;
  const GraphCase          cases[]   = {
               {"3D k=3 float fiber", 3, 3, 4, Precision::fp32, patch, false, automatic},
               {"3D k=1 float tile", 3, 1, 5, Precision::fp32, patch, false, automatic},
               {"2D k=5 double basic", 2, 5, 5, Precision::fp64, patch, false, KernelOptimization::basic},
               {"3D k=2 float chebyshev", 3, 2, 4, Precision::fp32, SmootherType::chebyshev_jacobi, false, automatic},
               {"3D k=3 float kershaw fitted", 3, 3, 1, Precision::fp32, patch, true, automatic},
  };
  for (const GraphCase &c : cases)
    {
      RunResult           r[2];
      std::vector<double> u[2];
      for (CudaGraph g : {CudaGraph::never, CudaGraph::always})
        {
          SolverParameters p = graph_case_parameters(c, g);
          p.repetitions      = 3;
          std::ostringstream log;
          PoissonSolver      solver(p, log);
          const int          i = g == CudaGraph::always;
          r[i]                 = solver.solve();
          u[i]                 = solver.solution().to_host();
          ASSERT_TRUE(r[i].converged) << c.name << ": " << r[i].failure;
        }
      expect_graph_solve_as_launched(c, r, u);
      EXPECT_EQ(r[1].cuda_graph_level, c.level) << c.name;
      EXPECT_GT(breakdown_seconds(r[1], "vcycle_graph"), 0.0) << c.name;
    }
}

// Above Backend/CUDA graph DoFs per rank the finest levels run launch by launch and replay a graph
// of the coarser ones inside each cycle: the same solve as launch by launch, the graph's time in
// its finest level's row.
TEST(Gpu, CudaGraphOfTheCoarserLevelsGivesTheLaunchByLaunchSolve)
{
  // (three levels or more: the coarse level of fast diagonalization, a level in the graph above
  // it, the finest launched one by one)
  const SmootherType       patch     = SmootherType::vertex_patch;
  const KernelOptimization automatic = KernelOptimization::automatic;
  const GraphCase          cases[]   = {
               {"3D k=3 float fiber", 3, 3, 6, Precision::fp32, patch, false, automatic},
               {"2D k=5 double basic", 2, 5, 5, Precision::fp64, patch, false, KernelOptimization::basic},
               {"3D k=3 float kershaw fitted", 3, 3, 2, Precision::fp32, patch, true, automatic},
  };
  for (const GraphCase &c : cases)
    {
      RunResult           r[2];
      std::vector<double> u[2];
      for (CudaGraph g : {CudaGraph::never, CudaGraph::automatic})
        {
          SolverParameters p = graph_case_parameters(c, g);
          // every level but the finest within the bound
          const auto levels      = make_hierarchy(p.domain(), p.degree, p.refinement_level);
          p.cuda_graph_rank_dofs = levels[levels.size() - 2].n_dofs();
          std::ostringstream log;
          PoissonSolver      solver(p, log);
          const int          i = g == CudaGraph::automatic;
          solver.solve(); // (auto records from the second solve on)
          r[i] = solver.solve();
          u[i] = solver.solution().to_host();
          ASSERT_TRUE(r[i].converged) << c.name << ": " << r[i].failure;
        }
      expect_graph_solve_as_launched(c, r, u);
      ASSERT_EQ(r[1].cuda_graph_level, c.level - 1) << c.name;
      ASSERT_LT(r[1].levels.front().level, c.level - 1) << c.name << ": no level below the graph's finest";
      // the graph's replays are timed in its finest level's row; the levels below it are not
      // timed apart, the finest level's smoother is
      for (const LevelTimes &l : r[1].levels)
        if (l.level == c.level - 1)
          EXPECT_GT(l.graph, 0.0) << c.name;
        else if (l.level < c.level - 1)
          EXPECT_EQ(l.total(), 0.0) << c.name << " level " << l.level;
        else
          EXPECT_GT(l.smoother, 0.0) << c.name;
      EXPECT_EQ(breakdown_seconds(r[1], "vcycle_graph"), 0.0) << c.name;
    }
}
