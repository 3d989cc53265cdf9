// Definitions of VertexPatchSmoother; instantiated by patch_smoother_<dim>d_<number>.cc.
#pragma once

#include <tpmg/laplace_operator.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/vector_ops.h>

#include "../kernels/patch_smoother.h"

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
    if (settings.optimization != KernelOptimization::basic)
      throw std::invalid_argument("kernel optimizations other than 'basic' are not available yet");
    if (settings.kernel == SmootherKernel::global && op == nullptr)
      throw std::invalid_argument("the 'global' smoother kernel needs the level operator");
    coef_ = CartesianLaplaceOperator<dim, k, Number>::direction_coefficients(level);

    using L = PatchData1DLayout<k>;
    const PatchData1D   d = patch_data_1d(k, settings.lumped_mass);
    std::vector<Number> packed(L::size);
    for (int i = 0; i < L::np * L::np; ++i)
      {
        packed[L::mass + i]      = Number(d.mass.data[i]);
        packed[L::stiffness + i] = Number(d.stiffness.data[i]);
      }
    for (int i = 0; i < L::ni * L::ni; ++i)
      packed[L::eigenvectors + i] = Number(d.eigenvectors.data[i]);
    for (int i = 0; i < L::ni; ++i)
      packed[L::eigenvalues + i] = Number(d.eigenvalues[i]);
    data1d_.reinit(L::size, backend);
    data1d_.from_host(packed);

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
  void VertexPatchSmoother<dim, k, Number>::smooth(Vector<Number> &x, const Vector<Number> &b, bool reverse) const
  {
    for (int i = 0; i < n_colors(); ++i)
      smooth_color(x, b, color_at(reverse ? n_colors() - 1 - i : i));
  }

  namespace
  {
    template <int dim, int k, typename Number, PatchKernelKind kind, LocalSolverKind solver>
    void launch_patch(Backend backend, const PatchColorGeometry &geo, Number *x, const Number *b, Number *r,
                      const Number *data1d, const Number *inverse, const std::array<double, 3> &coef)
    {
      PatchKernel<dim, k, Number, kind, solver> kern;
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
  } // namespace

  template <int dim, int k, typename Number>
  void VertexPatchSmoother<dim, k, Number>::smooth_color(Vector<Number> &x, const Vector<Number> &b, int color) const
  {
    const PatchColorGeometry geo = patch_color_geometry(level_, color);
    if (geo.n_patches == 0)
      return;
    const bool    fd  = settings_.local_solver == LocalSolver::fast_diagonalization;
    const Number *d1  = data1d_.data();
    const Number *inv = inverse_.data();
    Number       *r   = residual_.data();
    using K           = PatchKernelKind;
    using S           = LocalSolverKind;
    auto solve = [&] {
      if (fd)
        launch_patch<dim, k, Number, K::solve, S::fast_diagonalization>(backend_, geo, x.data(), nullptr, r, d1, inv, coef_);
      else
        launch_patch<dim, k, Number, K::solve, S::inverse_matrix>(backend_, geo, x.data(), nullptr, r, d1, inv, coef_);
    };
    switch (settings_.kernel)
      {
        case SmootherKernel::fused:
          if (fd)
            launch_patch<dim, k, Number, K::fused, S::fast_diagonalization>(backend_, geo, x.data(), b.data(), nullptr, d1, inv, coef_);
          else
            launch_patch<dim, k, Number, K::fused, S::inverse_matrix>(backend_, geo, x.data(), b.data(), nullptr, d1, inv, coef_);
          break;
        case SmootherKernel::separate:
          launch_patch<dim, k, Number, K::residual, S::fast_diagonalization>(backend_, geo, x.data(), b.data(), r, d1, inv, coef_);
          solve();
          break;
        case SmootherKernel::global:
          // residual = b - A x with the global level operator
          op_->vmult(residual_, x);
          sadd(Number(-1), Number(1), b, residual_);
          solve();
          break;
      }
  }

} // namespace tpmg
