// The patch kernels' shared-memory accesses under the bank recorder (kernels/runtime/
// bank_recorder.h): the helpers of test_bank_conflicts_patch_*.cc, one file per precision so
// that each compiles in reasonable time (also under the sanitizers).
#pragma once

#include <tpmg/dispatch.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>

#include <gtest/gtest.h>

#include <kernels/runtime/bank_recorder.h>
#include <kernels/smoothers/patch_basic.h>
#include <kernels/smoothers/patch_fiber.h>

#include <iomanip>
#include <iostream>

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
} // namespace tpmg::test_support
