// Definitions of VertexPatchSmoother; instantiated from patch_smoother.inst.in.
#pragma once

#include <tpmg/laplace_operator.h>
#include <tpmg/partition.h>
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
                                                           const PatchSmootherSettings  &given,
                                                           const LinearOperator<Number> *op)
    : level_(level), backend_(backend), settings_(given), op_(op)
  {
    static_assert(supported(), "vertex-patch smoother: degree out of range for this dimension");
    config_ =
      resolve_smoother(given, dim, k, std::is_same_v<Number, float> ? Precision::single : Precision::dual, backend);
    settings_                             = config_.settings; // `automatic` replaced by the choice
    const PatchSmootherSettings &settings = settings_;
    if (settings.kernel == SmootherKernel::global && op == nullptr)
      throw std::invalid_argument("the 'global' smoother kernel needs the level operator");
    const bool optimized   = settings.optimization != KernelOptimization::basic;
    const bool tensor_core = config_.family == PatchKernelFamily::tensor_core;
    coef_                  = CartesianLaplaceOperator<dim, k, Number>::direction_coefficients(level);

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
          return settings.lumped_mass
                   ? fiber_inverse_eigenvalue_sums<dim, k, Number, decltype(opt)::value, true>(coef_)
                   : fiber_inverse_eigenvalue_sums<dim, k, Number, decltype(opt)::value, false>(coef_);
        };
        using O                     = KernelOptimization;
        const std::vector<Number> t = settings.optimization == O::conflict_free
                                        ? table(std::integral_constant<O, O::conflict_free>{})
                                      : settings.optimization == O::boundary
                                        ? table(std::integral_constant<O, O::boundary>{})
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
        const int                 n    = PatchShape<dim, k>::interior_dofs;
        const std::vector<double> a    = patch_interior_matrix(dim, k, coef_, settings.lumped_mass);
        const Eigen::MatrixXd     A    = Eigen::Map<const Eigen::MatrixXd>(a.data(), n, n);
        const Eigen::MatrixXd     Ainv = A.llt().solve(Eigen::MatrixXd::Identity(n, n));
        std::vector<Number>       h(std::size_t(n) * n);
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
    template <int dim, int k, typename Number, PatchKernelKind kind, LocalSolver solver, bool per_dof>
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
    void smooth_color_basic(Backend backend, SmootherKernel variant, bool fd, const PatchColorGeometry &geo, Number *x,
                            const Number *b, Number *r, const Number *d1, const Number *inv,
                            const std::array<double, 3> &coef, const GlobalResidual &global_residual, bool from_zero)
    {
      using K    = PatchKernelKind;
      using S    = LocalSolver;
      auto solve = [&](Number *res) {
        if (fd)
          launch_patch<dim, k, Number, K::solve, S::fast_diagonalization, per_dof>(backend, geo, x, nullptr, res, d1,
                                                                                   inv, coef);
        else
          launch_patch<dim, k, Number, K::solve, S::inverse_matrix, per_dof>(backend, geo, x, nullptr, res, d1, inv,
                                                                             coef);
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
              launch_patch<dim, k, Number, K::fused, S::fast_diagonalization, per_dof>(backend, geo, x, b, nullptr, d1,
                                                                                       inv, coef);
            else
              launch_patch<dim, k, Number, K::fused, S::inverse_matrix, per_dof>(backend, geo, x, b, nullptr, d1, inv,
                                                                                 coef);
            break;
          case SmootherKernel::separate:
            launch_patch<dim, k, Number, K::residual, S::fast_diagonalization, per_dof>(backend, geo, x, b, r, d1, inv,
                                                                                        coef);
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
                                                         bool x_is_zero, const PatchColorGeometry *part) const
  {
    const PatchColorGeometry geo = part ? *part : patch_color_geometry(level_, color);
    if (geo.n_patches == 0)
      return;
    auto global_residual = [&] {
      // residual = b - A x with the global level operator
      op_->vmult(residual_, x);
      sadd(Number(-1), Number(1), b, residual_);
    };
    if (config_.family == PatchKernelFamily::tile)
      {
        if (settings_.optimization == KernelOptimization::boundary)
          launch_tile<dim, Number, true>(backend_, geo, x.data(), b.data(), data_, coef_);
        else
          launch_tile<dim, Number, false>(backend_, geo, x.data(), b.data(), data_, coef_);
        return;
      }
    if (config_.family != PatchKernelFamily::basic)
      {
        if (settings_.kernel == SmootherKernel::global && !x_is_zero)
          global_residual();
        Number   *r  = residual_.data();
        const int P  = config_.patches_per_block;
        auto      go = [&](auto opt) {
          smooth_color_fiber<dim, k, Number, decltype(opt)::value>(backend_, settings_.kernel, geo, x.data(), b.data(),
                                                                   r, settings_.lumped_mass, coef_, P,
                                                                   inverse_sums_.data(), x_is_zero);
        };
        using O = KernelOptimization;
        switch (settings_.optimization)
          {
            case O::tensor_core:
              // the tile products; from x = 0 the fiber solve kernel (no residual to compute)
              if constexpr (dim == 3 && k >= 2)
                if (!x_is_zero)
                  {
                    const auto kern = make_mma_kernel<k, Number>(geo, x.data(), b.data(), mma_matrices_.data(), coef_);
                    launch(backend_, kern, kern.shape());
                    break;
                  }
              smooth_color_fiber<dim, k, Number, O::linear_indexing>(
                backend_, settings_.kernel, geo, x.data(), b.data(), r, settings_.lumped_mass, coef_,
                FiberPatchKernel<dim, k, Number, PatchKernelKind::solve,
                                 O::linear_indexing>::automatic_patches_per_block(),
                inverse_sums_.data(), x_is_zero);
              break;
            case O::linear_indexing:
              go(std::integral_constant<O, O::linear_indexing>{});
              break;
            case O::conflict_free:
              go(std::integral_constant<O, O::conflict_free>{});
              break;
            default:
              go(std::integral_constant<O, O::boundary>{});
              break;
          }
        return;
      }
    const bool fd = settings_.local_solver == LocalSolver::fast_diagonalization;
    if (config_.per_dof)
      smooth_color_basic<dim, k, Number, true>(backend_, settings_.kernel, fd, geo, x.data(), b.data(),
                                               residual_.data(), data1d_.data(), inverse_.data(), coef_,
                                               global_residual, x_is_zero);
    else
      smooth_color_basic<dim, k, Number, false>(backend_, settings_.kernel, fd, geo, x.data(), b.data(),
                                                residual_.data(), data1d_.data(), inverse_.data(), coef_,
                                                global_residual, x_is_zero);
  }

} // namespace tpmg
