// Proof without a GPU that the `conflict_free` and `boundary` patch kernels have no shared-
// memory bank conflicts, for every kernel kind, degree, dimension, precision and patches per
// block; and the counts of `basic` and `linear_indexing` for comparison (printed).
#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>

#include <gtest/gtest.h>

#include <kernels/operators/bp_operator.h>
#include <kernels/runtime/bank_recorder.h>
#include <kernels/smoothers/patch_basic.h>
#include <kernels/smoothers/patch_fiber.h>
#include <kernels/transfer/transfer.h>

#include <iomanip>
#include <iostream>
#include <type_traits>

using namespace tpmg;

namespace
{
  struct Counts
  {
    BankConflictCounts fused, residual, solve;
  };

  // a level with at least P+1 patches of the odd color along x, so that blocks are full
  template <int dim, int k>
  CartesianLevel level_for(int P)
  {
    Domain d;
    d.dim          = dim;
    d.coarse_cells = {2 * P + 4, dim == 3 ? 4 : 6, 4};
    return make_hierarchy(d, k, 0).back();
  }

  template <int dim, int k, typename Number, KernelOptimization opt>
  Counts fiber_counts(int P)
  {
    const auto          lev  = level_for<dim, k>(P);
    const auto          geo  = patch_color_geometry(lev, (1 << dim) - 1);
    const auto          coef = CartesianLaplaceOperator<dim, k, Number>::direction_coefficients(lev);
    std::vector<Number> x(lev.n_dofs(), Number(0.5)), b(lev.n_dofs(), Number(1)), r(lev.n_dofs(), Number(0));
    Counts              c;
    auto                record = [&](const auto &kern) {
      const LaunchShape s = kern.shape();
      return record_bank_conflicts(kern, s, {Dim3{0, 0, 0}, Dim3{s.grid.x > 1 ? 1u : 0u, 0, 0}});
    };
    using K      = PatchKernelKind;
    const auto s = fiber_inverse_eigenvalue_sums<dim, k, Number, opt>(coef);
    c.fused =
      record(make_fiber_kernel<dim, k, Number, K::fused, opt>(geo, x.data(), b.data(), r.data(), coef, P, s.data()));
    c.residual =
      record(make_fiber_kernel<dim, k, Number, K::residual, opt>(geo, x.data(), b.data(), r.data(), coef, P, s.data()));
    c.solve =
      record(make_fiber_kernel<dim, k, Number, K::solve, opt>(geo, x.data(), b.data(), r.data(), coef, P, s.data()));
    return c;
  }

  template <int dim, int k, typename Number>
  BankConflictCounts basic_counts()
  {
    const auto          lev  = level_for<dim, k>(PatchShape<dim, k>::patches_per_block);
    const auto          geo  = patch_color_geometry(lev, (1 << dim) - 1);
    const auto          data = pack_patch_data_1d<k, Number>(patch_data_1d(k, false));
    const auto          coef = CartesianLaplaceOperator<dim, k, Number>::direction_coefficients(lev);
    std::vector<Number> x(lev.n_dofs(), Number(0.5)), b(lev.n_dofs(), Number(1));
    PatchKernel<dim, k, Number, PatchKernelKind::fused, LocalSolver::fast_diagonalization> kern;
    kern.geo     = geo;
    kern.x       = x.data();
    kern.b       = b.data();
    kern.r       = nullptr;
    kern.data1d  = data.data();
    kern.inverse = nullptr;
    for (int i = 0; i < 3; ++i)
      kern.coef[i] = Number(coef[i]);
    return record_bank_conflicts(kern, kern.shape(), {Dim3{0, 0, 0}});
  }

  template <int dim, int k, typename Number>
  std::size_t cf_wavefronts(int P)
  {
    return fiber_counts<dim, k, Number, KernelOptimization::conflict_free>(P).fused.wavefronts;
  }

  template <typename Number>
  void check_all(const char *precision)
  {
    for (int dim : {2, 3})
      for (int k = 1; k <= (dim == 2 ? 10 : 8); ++k)
        dispatch_dim(dim, [&](auto D) {
          dispatch_degree(k, [&](auto K) {
            constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
            if constexpr (VertexPatchSmoother<dd, kk, Number>::supported())
              {
                using F = FiberPatchKernel<dd, kk, Number, PatchKernelKind::fused, KernelOptimization::conflict_free>;
                const int P = F::automatic_patches_per_block();
                Counts    li_automatic; // linear_indexing at P, printed below
                // every P a user may choose: the patch stride keeps each conflict-free
                for (int p = 1; p <= F::max_patches_per_block; p *= 2)
                  {
                    const Counts cf = fiber_counts<dd, kk, Number, KernelOptimization::conflict_free>(p);
                    const Counts bd = fiber_counts<dd, kk, Number, KernelOptimization::boundary>(p);
                    const Counts li = fiber_counts<dd, kk, Number, KernelOptimization::linear_indexing>(p);
                    for (const BankConflictCounts *c :
                         {&cf.fused, &cf.residual, &cf.solve, &bd.fused, &bd.residual, &bd.solve})
                      {
                        EXPECT_GT(c->instructions, 0u);
                        EXPECT_EQ(c->conflicts(), 0u) << precision << " " << dd << "D k=" << kk << " P=" << p;
                      }
                    // and no shared access that the barriers leave unordered (bank_recorder.h)
                    for (const BankConflictCounts *c : {&cf.fused, &cf.residual, &cf.solve, &bd.fused, &bd.residual,
                                                        &bd.solve, &li.fused, &li.residual, &li.solve})
                      EXPECT_EQ(c->hazards, 0u) << precision << " " << dd << "D k=" << kk << " P=" << p;
                    if (p == P)
                      li_automatic = li;
                  }
                const Counts            &li = li_automatic;
                const BankConflictCounts bs = basic_counts<dd, kk, Number>();
                std::cout << std::setw(7) << precision << " " << dd << "D k=" << std::setw(2) << kk << "  basic "
                          << std::setw(8) << bs.conflicts() << " of " << std::setw(8) << bs.wavefronts
                          << " wavefronts   linear_indexing " << std::setw(8) << li.fused.conflicts() << " of "
                          << std::setw(8) << li.fused.wavefronts << "   conflict_free 0 of "
                          << cf_wavefronts<dd, kk, Number>(P) << "\n";
              }
          });
        });
  }

  // One block of the BP kernel (stored geometry) on a 4^dim mesh under the recorder.
  template <int dim, int k, typename Number, BakeOff kind>
  BankConflictCounts bp_counts()
  {
    using Kernel             = BPOperatorKernel<dim, k, Number, kind>;
    const index_t       nc   = 4;
    const index_t       n_nz = dim == 3 ? nc * k + 1 : 1;
    std::vector<Number> src((nc * k + 1) * (nc * k + 1) * n_nz, Number(1)), dst(src.size(), Number(0));
    std::vector<Number> geo(std::size_t(ipow<4, dim>()) * Kernel::n_entries * Kernel::points, Number(1));
    Kernel              kern;
    kern.src      = src.data();
    kern.dst      = dst.data();
    kern.geometry = geo.data();
    kern.vertices = nullptr;
    for (int d = 0; d < 3; ++d)
      {
        kern.cells[d] = d < dim ? nc : 1;
        kern.nodes[d] = d < dim ? nc * k + 1 : 1;
      }
    kern.n_cells     = ipow<4, dim>();
    kern.grid        = CellGrid(kern.cells, "test");
    kern.constrained = false;
    const std::vector<double> half(std::size_t(Kernel::nq) * Kernel::nq, 0.5);
    kern.constants.set_matrices(half.data(), half.data());
    for (int i = 0; i < Kernel::nq; ++i)
      {
        kern.constants.points[i]  = 0.5;
        kern.constants.weights[i] = 0.1;
      }
    return record_bank_conflicts(kern, kern.shape(), {Dim3{0, 0, 0}});
  }

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

// The padded BP layouts (BPFiberLayout3D, BPSharedLayout2D) stay near the ideal wavefronts
// where the table pads and there are 4 or more points per direction: at most 1.55x (a float
// warp needs 32 distinct banks, a double half-warp 16 distinct bank pairs, which the fixed
// thread-to-fiber map cannot give all three fiber directions within 25% more memory; 3D
// double nq = 4 reaches 1.0x for BP1, 1.27x for BP5); unpadded, 3D nq = 8 needs 3.8x (double)
// and 4.4x (float), 2D nq = 4, 8 3-4x. All counts are printed.
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
              auto check = [&](auto number, auto kind, const char *what) {
                using Number = decltype(number);
                using Kernel = BPOperatorKernel<dd, kk, Number, decltype(kind)::value>;
                const auto c = bp_counts<dd, kk, Number, decltype(kind)::value>();
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
              check(double(), Mass(), "bp1 d");
              check(double(), Gauss(), "bp3 d");
              check(double(), GLL(), "bp5 d");
              check(float(), Mass(), "bp1 f");
              check(float(), Gauss(), "bp3 f");
              check(float(), GLL(), "bp5 f");
            }
        });
      });
}

TEST(BankConflicts, ConflictFreeKernelsHaveNoneFloat) { check_all<float>("float"); }
TEST(BankConflicts, ConflictFreeKernelsHaveNoneDouble) { check_all<double>("double"); }

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

// The grid-transfer kernels (TransferLayout) stay within 1.6x the ideal wavefronts for every
// degree, dimension and precision (the search's best: padding cannot separate every line
// direction, as for the BP kernels); the counts are printed.
TEST(BankConflicts, TransferKernelsNearIdeal)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 10 : 8); ++k)
      dispatch_dim(dim, [&](auto D) {
        dispatch_degree(k, [&](auto K) {
          constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
          if constexpr (dd == 2 || kk <= 8)
            {
              auto check = [&](auto number, const char *what) {
                using Number         = decltype(number);
                BankConflictCounts c = transfer_counts<dd, kk, Number, false>();
                c += transfer_counts<dd, kk, Number, true>();
                EXPECT_GT(c.instructions, 0u);
                EXPECT_EQ(c.hazards, 0u) << what << " " << dd << "D k=" << kk;
                EXPECT_LE(double(c.wavefronts), 1.6 * double(c.ideal)) << what << " " << dd << "D k=" << kk;
                std::cout << std::setw(6) << what << " " << dd << "D k=" << std::setw(2) << kk
                          << " transfer wavefronts " << std::setw(6) << c.wavefronts << " ideal " << std::setw(6)
                          << c.ideal << "\n";
              };
              check(float(), "float");
              check(double(), "double");
            }
        });
      });
}
