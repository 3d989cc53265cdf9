// Definitions of FittedPatchSolver and AdditiveSchwarz; instantiated from
// fitted_patch_solver.inst.in.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/fitted_patch_solver.h>

#include <kernels/runtime/forall.h>
#include <kernels/smoothers/patch_fitted.h>
#include <src/smoothers/patch_geometry.h>
#include <src/smoothers/patch_split.h>

namespace tpmg
{
  template <int dim, int k, typename Number>
  FittedPatchSolver<dim, k, Number>::FittedPatchSolver(const CartesianLevel &level, Backend backend,
                                                       const DeformationSettings &deformation, bool lumped_mass,
                                                       const Coefficients &coefficients)
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
    const std::vector<FittedPatchWidths> w          = fitted_patch_widths(level, deformation, coefficients);
    constexpr std::size_t                per_vertex = dim + 2;
    std::vector<double>                  rows(w.size() * dim), widths(w.size() * per_vertex);
    for (std::size_t v = 0; v < w.size(); ++v)
      {
        double product = w[v].scale;
        for (int d = 0; d < dim; ++d)
          {
            rows[v * dim + d]          = w[v].row[d]; // exact in float (< 2^24)
            widths[v * per_vertex + d] = w[v].a[d];
            product *= w[v].a[d];
          }
        widths[v * per_vertex + dim]     = 1.0 / product;
        widths[v * per_vertex + dim + 1] = w[v].reaction / w[v].scale;
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
  void FittedPatchSolver<dim, k, Number>::solve_color(Vector<Number> &x, const Vector<Number> &r, int color,
                                                      const PatchColorGeometry *part) const
  {
    FittedPatchSolve<dim, k, Number> kern;
    kern.geo = part ? *part : patch_color_geometry(level_, color);
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
  AdditiveSchwarz<dim, k, Number>::AdditiveSchwarz(const FittedPatchSolver<dim, k, Number> &solver,
                                                   const LinearOperator<Number> &op, ExchangeOverlap overlap)
    : solver_(&solver), op_(&op)
  {
    if (op.layout() && op.layout()->distributed())
      {
        OverlappedColours split = overlapped_colours(solver.level(), solver.n_colors(), solver.backend(), overlap);
        if (split.active())
          split_ = std::make_shared<const OverlappedColours>(std::move(split));
      }
  }

  template <int dim, int k, typename Number>
  bool AdditiveSchwarz<dim, k, Number>::overlapped() const
  {
    return split_ != nullptr;
  }

  template <int dim, int k, typename Number>
  void AdditiveSchwarz<dim, k, Number>::vmult(Vector<Number> &z, const Vector<Number> &r) const
  {
    const std::shared_ptr<const BoxLayout> &layout = op_->layout();
    if (layout)
      z.reinit(layout);
    else
      z.reinit(op_->size(), r.backend());
    // With the split, the exchange starts once the last colour's near patches are done and runs
    // beside its inner ones, which write neither what it sends nor what it receives. Each node
    // still receives its colours' terms in colour order: the same sums as without the overlap.
    const int n = solver_->n_colors();
    for (int c = 0; c < n - (split_ ? 1 : 0); ++c)
      solver_->solve_color(z, r, c);
    if (split_)
      {
        const std::size_t last = std::size_t(n - 1);
        for (const PatchColorGeometry &near : split_->near[last])
          solver_->solve_color(z, r, n - 1, &near);
        layout->start_update_ghosts(z, GhostLayers::one);
        solver_->solve_color(z, r, n - 1, &split_->inner[last]);
        layout->finish_ghost_update();
      }
    else if (layout)
      layout->update_ghosts(z, GhostLayers::one);
  }
} // namespace tpmg
