// Definitions of VertexPatchSmoother; instantiated by patch_smoother_<dim>d_<number>.cc.
#pragma once

#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/vector_ops.h>

#include <kernels/smoothers/patch_basic.h>
#include <kernels/smoothers/patch_fiber.h>
#include <kernels/smoothers/patch_mma.h>
#include <kernels/smoothers/patch_tile.h>

#include <Eigen/Dense>

#include <stdexcept>

namespace tpmg
{
  template <int dim, int k, typename Number>
  VertexPatchSmoother<dim, k, Number>::VertexPatchSmoother(const CartesianLevel &level, Backend backend,
                                                           const PatchSmootherSettings &settings,
                                                           const LinearOperator<Number> *op)
    : level_(level), backend_(backend), settings_(settings), op_(op)
  {
    static_assert(supported(), "vertex-patch smoother: degree out of range for this dimension");
    if (settings.kernel == SmootherKernel::global && op == nullptr)
      throw std::invalid_argument("the 'global' smoother kernel needs the level operator");
    const bool optimized = settings.optimization != KernelOptimization::basic;
    if (optimized && settings.local_solver != LocalSolver::fast_diagonalization)
      throw std::invalid_argument("the optimized patch kernels use fast diagonalization; the inverse_matrix "
                                  "local solver exists with the basic kernels only");
    if (settings.optimization == KernelOptimization::boundary && settings.kernel == SmootherKernel::global)
      throw std::invalid_argument("the 'boundary' optimization (reduced local residual) applies to the separate "
                                  "and fused kernels, not to the global one");
    const bool tensor_core = settings.optimization == KernelOptimization::tensor_core;
    if (tensor_core && (dim != 3 || settings.kernel != SmootherKernel::fused))
      throw std::invalid_argument("the tensor_core optimization exists for the fused kernel in 3D");
    if (tensor_core && settings.patches_per_block > 1)
      throw std::invalid_argument("the tensor_core kernel runs one patch per block, not " +
                                  std::to_string(settings.patches_per_block));
    // the fused linear_indexing kernel may ask for resident blocks of one patch
    // (FiberPatchKernel::resident_blocks); the other fiber kernels share the padded one's limits
    using Fiber   = FiberPatchKernel<dim, k, Number, PatchKernelKind::fused, KernelOptimization::conflict_free>;
    using FiberLI = FiberPatchKernel<dim, k, Number, PatchKernelKind::fused, KernelOptimization::linear_indexing>;
    const bool fused_li = settings.kernel == SmootherKernel::fused && settings.optimization == KernelOptimization::linear_indexing;
    const int  max_P    = fused_li ? FiberLI::max_patches_per_block : Fiber::max_patches_per_block;
    patches_per_block_  = settings.patches_per_block > 0 ? settings.patches_per_block
                          : tensor_core                  ? 1
                          : fused_li                     ? FiberLI::automatic_patches_per_block(true)
                                                         : Fiber::automatic_patches_per_block(false);
    if (optimized && (patches_per_block_ & (patches_per_block_ - 1)) != 0)
      throw std::invalid_argument("patches per block must be a power of two, not " + std::to_string(patches_per_block_));
    if (optimized && patches_per_block_ > max_P)
      throw std::invalid_argument("patches per block " + std::to_string(patches_per_block_) + " exceeds the maximum " +
                                  std::to_string(max_P) + " for this degree");
    if (optimized && settings.thread_structure == ThreadStructure::dof)
      throw std::invalid_argument("one thread per DoF exists with the basic kernels only; the optimized kernels keep "
                                  "a column per thread in registers");
    per_dof_ = patch_kernel_per_dof(settings.thread_structure, dim, k, settings.optimization,
                                    std::is_same_v<Number, double>);
    if (!optimized && settings.patches_per_block > 0)
      throw std::invalid_argument("the basic patch kernels choose their patches per block themselves");
    coef_ = CartesianLaplaceOperator<dim, k, Number>::direction_coefficients(level);

    data_ = patch_data_1d(k, settings.lumped_mass);
    if (!optimized) // the basic kernels read the 1D data from memory; the others know them at compile time
      {
        const std::vector<Number> packed = pack_patch_data_1d<k, Number>(data_);
        data1d_.reinit(index_t(packed.size()), backend);
        data1d_.from_host(packed);
      }
    if (optimized) // the fiber kernels' reciprocals of the eigenvalue sums, where they use them
      {
        auto table = [&](auto opt) {
          return settings.lumped_mass ? fiber_inverse_eigenvalue_sums<dim, k, Number, decltype(opt)::value, true>(coef_)
                                      : fiber_inverse_eigenvalue_sums<dim, k, Number, decltype(opt)::value, false>(coef_);
        };
        using O = KernelOptimization;
        const std::vector<Number> t =
          settings.optimization == O::conflict_free ? table(std::integral_constant<O, O::conflict_free>{})
          : settings.optimization == O::boundary    ? table(std::integral_constant<O, O::boundary>{})
                                                    : table(std::integral_constant<O, O::linear_indexing>{}); // tensor_core too
        if (!t.empty())
          {
            inverse_sums_.reinit(index_t(t.size()), backend);
            inverse_sums_.from_host(t);
          }
      }
    if constexpr (dim == 3 && k >= 2)
      if (tensor_core)
        {
          const std::vector<double> m = MmaPatchKernel<k, Number>::matrices(data_);
          mma_matrices_.reinit(index_t(m.size()), backend);
          mma_matrices_.from_host(m);
        }

    if (settings.local_solver == LocalSolver::inverse_matrix)
      {
        const int                  n = PatchShape<dim, k>::interior_dofs;
        const std::vector<double>  a = patch_interior_matrix(dim, k, coef_, settings.lumped_mass);
        const Eigen::MatrixXd      A = Eigen::Map<const Eigen::MatrixXd>(a.data(), n, n);
        const Eigen::MatrixXd      Ainv = A.llt().solve(Eigen::MatrixXd::Identity(n, n));
        std::vector<Number>        h(std::size_t(n) * n);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            h[std::size_t(i) * n + j] = Number(Ainv(i, j));
        inverse_.reinit(index_t(n) * n, backend);
        inverse_.from_host(h);
      }
    if (settings.kernel != SmootherKernel::fused)
      residual_.reinit(level.n_dofs(), backend);
  }

  template <int dim, int k, typename Number>
  int VertexPatchSmoother<dim, k, Number>::color_at(int i) const
  {
    return settings_.color_order == ColorOrder::standard ? i : (n_colors() - 1) ^ i;
  }

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::smooth(Vector<Number> &x, const Vector<Number> &b, bool reverse,
                                                   bool x_is_zero) const
  {
    for (int i = 0; i < n_colors(); ++i)
      smooth_color(x, b, color_at(reverse ? n_colors() - 1 - i : i), x_is_zero && i == 0);
  }

  namespace
  {
    template <int dim, int k, typename Number, PatchKernelKind kind, LocalSolverKind solver, bool per_dof>
    void launch_patch(Backend backend, const PatchColorGeometry &geo, Number *x, const Number *b, Number *r,
                      const Number *data1d, const Number *inverse, const std::array<double, 3> &coef)
    {
      PatchKernel<dim, k, Number, kind, solver, per_dof> kern;
      kern.geo     = geo;
      kern.x       = x;
      kern.b       = b;
      kern.r       = r;
      kern.data1d  = data1d;
      kern.inverse = inverse;
      for (int d = 0; d < 3; ++d)
        kern.coef[d] = Number(coef[d]);
      launch(backend, kern, kern.shape());
    }

    /// The basic kernels of one color for a compile-time thread structure.
    /// `from_zero`: x = 0 on the patches of this color, so their local residuals are b (read
    /// by the solve kernel in place of r; it only reads r).
    template <int dim, int k, typename Number, bool per_dof, class GlobalResidual>
    void smooth_color_basic(Backend backend, SmootherKernel variant, bool fd, const PatchColorGeometry &geo,
                            Number *x, const Number *b, Number *r, const Number *d1, const Number *inv,
                            const std::array<double, 3> &coef, const GlobalResidual &global_residual, bool from_zero)
    {
      using K    = PatchKernelKind;
      using S    = LocalSolverKind;
      auto solve = [&](Number *res) {
        if (fd)
          launch_patch<dim, k, Number, K::solve, S::fast_diagonalization, per_dof>(backend, geo, x, nullptr, res, d1, inv, coef);
        else
          launch_patch<dim, k, Number, K::solve, S::inverse_matrix, per_dof>(backend, geo, x, nullptr, res, d1, inv, coef);
      };
      if (from_zero)
        {
          solve(const_cast<Number *>(b));
          return;
        }
      switch (variant)
        {
          case SmootherKernel::fused:
            if (fd)
              launch_patch<dim, k, Number, K::fused, S::fast_diagonalization, per_dof>(backend, geo, x, b, nullptr, d1, inv, coef);
            else
              launch_patch<dim, k, Number, K::fused, S::inverse_matrix, per_dof>(backend, geo, x, b, nullptr, d1, inv, coef);
            break;
          case SmootherKernel::separate:
            launch_patch<dim, k, Number, K::residual, S::fast_diagonalization, per_dof>(backend, geo, x, b, r, d1, inv, coef);
            solve(r);
            break;
          case SmootherKernel::global:
            global_residual();
            solve(r);
            break;
        }
    }

    template <int dim, int k, typename Number, PatchKernelKind kind, KernelOptimization opt>
    void launch_fiber(Backend backend, const PatchColorGeometry &geo, Number *x, const Number *b, Number *r,
                      bool lumped_mass, const std::array<double, 3> &coef, int P, const Number *inverse_sums)
    {
      // the 1D data are compile-time constants, one kernel per mass matrix
      auto run = [&](auto lumped) {
        const auto kern =
          make_fiber_kernel<dim, k, Number, kind, opt, decltype(lumped)::value>(geo, x, b, r, coef, P, inverse_sums);
        launch(backend, kern, kern.shape());
      };
      if (lumped_mass)
        run(std::true_type{});
      else
        run(std::false_type{});
    }

    template <int dim, typename Number, bool reduced>
    void launch_tile(Backend backend, const PatchColorGeometry &geo, Number *x, const Number *b, const PatchData1D &d,
                     const std::array<double, 3> &coef)
    {
      const auto kern = make_tile_kernel<dim, Number, reduced>(geo, x, b, d, coef);
      launch(backend, kern, kern.shape());
    }

    /// The optimized kernels of one color for a compile-time optimization.
    template <int dim, int k, typename Number, KernelOptimization opt>
    void smooth_color_fiber(Backend backend, SmootherKernel variant, const PatchColorGeometry &geo, Number *x,
                            const Number *b, Number *r, bool lumped_mass, const std::array<double, 3> &coef, int P,
                            const Number *inv_sums, bool from_zero)
    {
      using K = PatchKernelKind;
      if (from_zero) // as in smooth_color_basic
        launch_fiber<dim, k, Number, K::solve, opt>(backend, geo, x, b, const_cast<Number *>(b), lumped_mass, coef, P,
                                                    inv_sums);
      else if (variant == SmootherKernel::fused)
        launch_fiber<dim, k, Number, K::fused, opt>(backend, geo, x, b, r, lumped_mass, coef, P, inv_sums);
      else
        {
          if (variant == SmootherKernel::separate)
            launch_fiber<dim, k, Number, K::residual, opt>(backend, geo, x, b, r, lumped_mass, coef, P, inv_sums);
          launch_fiber<dim, k, Number, K::solve, opt>(backend, geo, x, b, r, lumped_mass, coef, P, inv_sums);
        }
    }
  } // namespace

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::smooth_color(Vector<Number> &x, const Vector<Number> &b, int color,
                                                         bool x_is_zero) const
  {
    const PatchColorGeometry geo = patch_color_geometry(level_, color);
    if (geo.n_patches == 0)
      return;
    auto global_residual = [&] {
      // residual = b - A x with the global level operator
      op_->vmult(residual_, x);
      sadd(Number(-1), Number(1), b, residual_);
    };
    if (settings_.optimization != KernelOptimization::basic)
      {
        if (settings_.kernel == SmootherKernel::global && !x_is_zero)
          global_residual();
        Number *r = residual_.data();
        if (k == 1 && settings_.kernel == SmootherKernel::fused)
          {
            // one interior DoF per patch: the tile kernel, whose patches share their loads
            // (also from x = 0: the fiber solve kernel instead measured slower, NOTES §5)
            if (settings_.optimization == KernelOptimization::boundary)
              launch_tile<dim, Number, true>(backend_, geo, x.data(), b.data(), data_, coef_);
            else
              launch_tile<dim, Number, false>(backend_, geo, x.data(), b.data(), data_, coef_);
            return;
          }
        const auto P = patches_per_block_;
        switch (settings_.optimization)
          {
            case KernelOptimization::linear_indexing:
              smooth_color_fiber<dim, k, Number, KernelOptimization::linear_indexing>(backend_, settings_.kernel, geo,
                                                                                      x.data(), b.data(), r, settings_.lumped_mass, coef_, P, inverse_sums_.data(), x_is_zero);
              break;
            case KernelOptimization::tensor_core:
              // from x = 0 the fiber solve kernel (no residual to compute); otherwise the tile products
              if constexpr (dim == 3 && k >= 2)
                if (!x_is_zero)
                  {
                    const auto kern = make_mma_kernel<k, Number>(geo, x.data(), b.data(), mma_matrices_.data(), coef_);
                    launch(backend_, kern, kern.shape());
                    break;
                  }
              smooth_color_fiber<dim, k, Number, KernelOptimization::linear_indexing>(
                backend_, settings_.kernel, geo, x.data(), b.data(), r, settings_.lumped_mass, coef_,
                FiberPatchKernel<dim, k, Number, PatchKernelKind::solve, KernelOptimization::linear_indexing>::automatic_patches_per_block(),
                inverse_sums_.data(), x_is_zero);
              break;
            case KernelOptimization::conflict_free:
              smooth_color_fiber<dim, k, Number, KernelOptimization::conflict_free>(backend_, settings_.kernel, geo,
                                                                                    x.data(), b.data(), r, settings_.lumped_mass, coef_, P, inverse_sums_.data(), x_is_zero);
              break;
            default:
              smooth_color_fiber<dim, k, Number, KernelOptimization::boundary>(backend_, settings_.kernel, geo,
                                                                               x.data(), b.data(), r, settings_.lumped_mass, coef_, P, inverse_sums_.data(), x_is_zero);
              break;
          }
        return;
      }
    const bool fd = settings_.local_solver == LocalSolver::fast_diagonalization;
    if (per_dof_)
      smooth_color_basic<dim, k, Number, true>(backend_, settings_.kernel, fd, geo, x.data(), b.data(), residual_.data(),
                                               data1d_.data(), inverse_.data(), coef_, global_residual, x_is_zero);
    else
      smooth_color_basic<dim, k, Number, false>(backend_, settings_.kernel, fd, geo, x.data(), b.data(), residual_.data(),
                                                data1d_.data(), inverse_.data(), coef_, global_residual, x_is_zero);
  }

} // namespace tpmg
