// Definitions of FittedPatchSolver and AdditiveSchwarz; instantiated from
// fitted_patch_solver.inst.in.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/fitted_patch_solver.h>

#include <kernels/runtime/forall.h>
#include <kernels/smoothers/patch_fitted.h>

namespace tpmg
{
  template <int dim, int k, typename Number>
  FittedPatchSolver<dim, k, Number>::FittedPatchSolver(const CartesianLevel &level, Backend backend,
                                                       const DeformationSettings &deformation, bool lumped_mass)
    : level_(level), backend_(backend)
  {
    const FittedRatioTable table  = fitted_ratio_table(k, lumped_mass);
    auto                   upload = [&](Vector<Number> &v, const std::vector<double> &h) {
      std::vector<Number> n(h.begin(), h.end());
      v.reinit(index_t(n.size()), backend, false);
      v.from_host(n);
    };
    upload(eigenvectors_, table.eigenvectors);
    upload(eigenvalues_, table.eigenvalues);
    const std::vector<FittedPatchWidths> w = fitted_patch_widths(level, deformation);
    std::vector<double>                  rows(w.size() * dim), widths(w.size() * dim);
    for (std::size_t v = 0; v < w.size(); ++v)
      for (int d = 0; d < dim; ++d)
        {
          rows[v * dim + d]   = w[v].row[d]; // exact in float (< 2^24)
          widths[v * dim + d] = w[v].a[d];
        }
    upload(ratio_index_, rows);
    upload(left_width_, widths);
  }

  template <int dim, int k, typename Number>
  std::size_t FittedPatchSolver<dim, k, Number>::memory_bytes() const
  {
    return std::size_t(eigenvectors_.size() + eigenvalues_.size() + ratio_index_.size() + left_width_.size()) *
           sizeof(Number);
  }

  template <int dim, int k, typename Number>
  void FittedPatchSolver<dim, k, Number>::solve_color(Vector<Number> &x, const Vector<Number> &r, int color) const
  {
    FittedPatchSolve<dim, k, Number> kern;
    kern.geo = patch_color_geometry(level_, color);
    if (kern.geo.n_patches == 0)
      return;
    for (int d = 0; d < 3; ++d)
      kern.vertices[d] = d < dim ? level_.cells[d] + 1 : 1;
    kern.ratio_index  = ratio_index_.data();
    kern.left_width   = left_width_.data();
    kern.eigenvectors = eigenvectors_.data();
    kern.eigenvalues  = eigenvalues_.data();
    kern.r            = r.data();
    kern.x            = x.data();
    launch(backend_, kern, kern.shape());
  }

  template <int dim, int k, typename Number>
  void AdditiveSchwarz<dim, k, Number>::vmult(Vector<Number> &z, const Vector<Number> &r) const
  {
    if (op_->layout())
      z.reinit(op_->layout());
    else
      z.reinit(op_->size(), r.backend());
    for (int c = 0; c < solver_->n_colors(); ++c)
      solver_->solve_color(z, r, c);
    if (op_->layout())
      op_->layout()->update_ghosts(z, GhostLayers::one);
  }
} // namespace tpmg
