// The patch kernels' shared-memory accesses under the bank recorder (kernels/runtime/
// bank_recorder.h): the helpers of test_bank_conflicts_{float,double}*.cc, one file per
// precision, dimension and range of degrees so that each compiles in reasonable time (also under
// the sanitizers, where one file for all took over 10 minutes on 16 cores).
#pragma once

#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>

#include <gtest/gtest.h>

#include <kernels/runtime/bank_recorder.h>
#include <kernels/smoothers/patch_basic.h>
#include <kernels/smoothers/patch_fiber.h>
#include <src/smoothers/patch_builders.h>
#include <src/smoothers/patch_geometry.h>

#include <iomanip>
#include <iostream>
#include <utility>

namespace tpmg::test_support
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
    const auto          coef = kronecker_scaling(lev).direction;
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
    const auto          coef = kronecker_scaling(lev).direction;
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

  // The proof for one dimension and one degree: every P a user may choose, every kernel kind.
  template <typename Number, int dim, int k>
  void check_degree(const char *precision)
  {
    if constexpr (VertexPatchSmoother<dim, k, Number>::supported())
      {
        using F     = FiberPatchKernel<dim, k, Number, PatchKernelKind::fused, KernelOptimization::conflict_free>;
        const int P = F::automatic_patches_per_block();
        Counts    li_automatic; // linear_indexing at P, printed below
        // every P a user may choose: the patch stride keeps each conflict-free
        for (int p = 1; p <= F::max_patches_per_block; p *= 2)
          {
            const Counts cf = fiber_counts<dim, k, Number, KernelOptimization::conflict_free>(p);
            const Counts bd = fiber_counts<dim, k, Number, KernelOptimization::reduced_residual>(p);
            const Counts li = fiber_counts<dim, k, Number, KernelOptimization::linear_indexing>(p);
            for (const BankConflictCounts *c : {&cf.fused, &cf.residual, &cf.solve, &bd.fused, &bd.residual, &bd.solve})
              {
                EXPECT_GT(c->instructions, 0u);
                EXPECT_EQ(c->conflicts(), 0u) << precision << " " << dim << "D k=" << k << " P=" << p;
              }
            // and no shared access that the barriers leave unordered (bank_recorder.h)
            for (const BankConflictCounts *c : {&cf.fused, &cf.residual, &cf.solve, &bd.fused, &bd.residual, &bd.solve,
                                                &li.fused, &li.residual, &li.solve})
              EXPECT_EQ(c->hazards, 0u) << precision << " " << dim << "D k=" << k << " P=" << p;
            if (p == P)
              li_automatic = li;
          }
        const Counts            &li = li_automatic;
        const BankConflictCounts bs = basic_counts<dim, k, Number>();
        std::cout << std::setw(7) << precision << " " << dim << "D k=" << std::setw(2) << k << "  basic "
                  << std::setw(8) << bs.conflicts() << " of " << std::setw(8) << bs.wavefronts
                  << " wavefronts   linear_indexing " << std::setw(8) << li.fused.conflicts() << " of " << std::setw(8)
                  << li.fused.wavefronts << "   conflict_free 0 of " << cf_wavefronts<dim, k, Number>(P) << "\n";
      }
  }

  // Degrees first … last of one dimension. Each test file instantiates one range, so that no file
  // takes more than a few minutes to compile under the sanitizers (the 3D kernels at k = 6..8
  // are the heaviest: unrolled fibers of 7..9 values in every kernel kind and optimization).
  template <typename Number, int dim, int first, int... i>
  void check_degrees(const char *precision, std::integer_sequence<int, i...>)
  {
    (check_degree<Number, dim, first + i>(precision), ...);
  }
  template <typename Number, int dim, int first, int last>
  void check_degrees(const char *precision)
  {
    check_degrees<Number, dim, first>(precision, std::make_integer_sequence<int, last - first + 1>{});
  }
} // namespace tpmg::test_support
