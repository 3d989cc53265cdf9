// Definitions of FittedPatchSolver and AdditiveSchwarz; instantiated from
// fitted_patch_solver.inst.in.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/fitted_patch_solver.h>
#include <tpmg/smoother_configuration.h>

#include <kernels/runtime/forall.h>
#include <kernels/smoothers/patch_fitted.h>
#include <kernels/smoothers/patch_fitted_mma.h>
#include <src/smoothers/patch_geometry.h>
#include <src/smoothers/patch_split.h>

#include <map>
#include <stdexcept>
#include <utility>

namespace tpmg
{
  template <int dim, int k, typename Number>
  FittedPatchSolver<dim, k, Number>::FittedPatchSolver(const CartesianLevel &level, Backend backend,
                                                       const DeformationSettings &deformation, bool lumped_mass,
                                                       const Coefficients                       &coefficients,
                                                       std::shared_ptr<const RobinFaces<Number>> robin,
                                                       FittedPatchKernel                         kernel)
    : level_(level), backend_(backend),
      kernel_(resolve_fitted_patch_kernel(kernel, backend, dim, k,
                                          std::is_same_v<Number, float> ? Precision::fp32 : Precision::fp64))
  {
    if ((level.robin_faces & ~level.dirichlet_faces) != 0 && !robin)
      throw std::invalid_argument("the fitted patch solver: the level has Robin faces, but no Robin coefficient");
    const FittedRatioTable table  = fitted_ratio_table(k, lumped_mass);
    auto                   upload = [&](Vector<Number> &v, const std::vector<double> &h) {
      std::vector<Number> n(h.begin(), h.end());
      v.reinit(index_t(n.size()), backend, false);
      v.from_host(n);
    };
    if (const std::string problem = fitted_patch_kernel_problem(kernel_, k); !problem.empty())
      throw std::invalid_argument("the fitted patch solver: " + problem);
    upload(eigenvectors_, table.eigenvectors);
    upload(eigenvalues_, table.eigenvalues);
    const FittedCellData                 cells = fitted_cell_data(level, deformation, coefficients, backend);
    const std::vector<FittedPatchWidths> w     = fitted_patch_widths(level, cells);
    shear_                                     = cells.shear;
    contrast_                                  = cells.contrast;
    constexpr std::size_t per_vertex           = dim + 2;
    std::vector<double>   rows(w.size() * dim), widths(w.size() * per_vertex);
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
    if (level.dirichlet_faces != all_faces)
      set_up_boundary_patches(cells, lumped_mass, robin.get());
  }

  template <int dim, int k, typename Number>
  void FittedPatchSolver<dim, k, Number>::set_up_boundary_patches(const FittedCellData &cells, bool lumped_mass,
                                                                  const RobinFaces<Number> *robin)
  {
    const auto patches = fitted_boundary_patches(level_, cells, robin_cell_integrals(robin));
    // the directions' eigenpairs, once per distinct (kind, table row or β)
    std::map<std::pair<int, double>, int>                    known;
    std::vector<std::pair<const FittedBoundaryPatch *, int>> entries; // (patch, direction)
    std::vector<index_t>                                     vertices;
    std::vector<int>                                         pair;
    std::vector<Number>                                      scales;
    for (std::size_t c = 0; c < patches.size(); ++c)
      {
        boundary_first_[c] = index_t(vertices.size());
        for (const FittedBoundaryPatch &P : patches[c])
          {
            vertices.push_back(P.vertex);
            double product = P.scale;
            for (int d = 0; d < 3; ++d)
              {
                if (d >= dim)
                  {
                    pair.push_back(0);
                    continue;
                  }
                const std::size_t D   = std::size_t(d);
                const auto        key = std::make_pair(P.kind[D], P.kind[D] == 0 ? double(P.row[D]) : P.beta[D]);
                auto              it  = known.find(key);
                if (it == known.end())
                  {
                    it = known.emplace(key, int(entries.size())).first;
                    entries.emplace_back(&P, d);
                  }
                pair.push_back(it->second);
                scales.push_back(Number(1 / (P.a[D] * P.a[D])));
                product *= P.a[D];
              }
            scales.push_back(Number(1 / product));
            scales.push_back(Number(P.reaction / P.scale));
          }
      }
    boundary_first_[8] = index_t(vertices.size());
    if (vertices.empty())
      return;
    boundary_vertices_.reinit(index_t(vertices.size()), backend_, false);
    boundary_vertices_.from_host(vertices);
    boundary_pair_.reinit(index_t(pair.size()), backend_, false);
    boundary_pair_.from_host(pair);
    boundary_scales_.reinit(index_t(scales.size()), backend_, false);
    boundary_scales_.from_host(scales);
    const FittedRatioTable &table     = fitted_ratio_table(k, lumped_mass);
    constexpr std::size_t   pair_size = FittedBoundaryPatchSolve<dim, k, Number>::pair_size;
    std::vector<Number>     pairs(entries.size() * pair_size);
#pragma omp parallel for schedule(dynamic, 16) if (entries.size() > 64)
    for (std::size_t e = 0; e < entries.size(); ++e)
      {
        const std::vector<double> p = fitted_boundary_eigenpairs_1d(table, *entries[e].first, entries[e].second);
        for (std::size_t i = 0; i < pair_size; ++i)
          pairs[e * pair_size + i] = Number(p[i]);
      }
    boundary_pairs_.reinit(index_t(pairs.size()), backend_, false);
    boundary_pairs_.from_host(pairs);
  }

  template <int dim, int k, typename Number>
  std::size_t FittedPatchSolver<dim, k, Number>::memory_bytes() const
  {
    std::size_t bytes = std::size_t(eigenvectors_.size() + eigenvalues_.size() + ratio_index_.size() +
                                    left_width_.size() + boundary_pairs_.size()) *
                        sizeof(Number);
    return bytes + std::size_t(boundary_vertices_.size()) * sizeof(index_t) +
           std::size_t(boundary_pair_.size()) * sizeof(int) + std::size_t(boundary_scales_.size()) * sizeof(Number);
  }

  template <int dim, int k, typename Number>
  void FittedPatchSolver<dim, k, Number>::solve_color(Vector<Number> &x, const Vector<Number> &r, int color,
                                                      const PatchColorGeometry *part, bool interior_only) const
  {
    if (!part && !interior_only) // (their unknowns are not the interior patches')
      solve_boundary_color(x, r, color);
    const PatchColorGeometry geo = part ? *part : patch_color_geometry(level_, color);
    if (geo.n_patches == 0)
      return;
    // the scalar and the tensor kernels take the same arguments
    auto run = [&](auto kern) {
      kern.geo = geo;
      for (int d = 0; d < 3; ++d)
        kern.vertices[d] = d < dim ? level_.cells[d] + 1 : 1;
      kern.ratio_index  = ratio_index_.data();
      kern.left_width   = left_width_.data();
      kern.eigenvectors = eigenvectors_.data();
      kern.eigenvalues  = eigenvalues_.data();
      kern.r            = r.data();
      kern.x            = x.data();
      kern.atomic       = color == all_colours;
      launch(backend_, kern, kern.shape());
    };
    if constexpr (k <= fitted_tensor_max_degree) // (the constructor refuses the others)
      {
        if (kernel_ == FittedPatchKernel::tensor_fp64)
          return run(FittedPatchSolveTensor<dim, k, Number, double>{});
        if (kernel_ == FittedPatchKernel::tensor_tf32)
          return run(FittedPatchSolveTensor<dim, k, Number, Tf32>{});
      }
    run(FittedPatchSolve<dim, k, Number>{});
  }

  template <int dim, int k, typename Number>
  void FittedPatchSolver<dim, k, Number>::launch_boundary(Vector<Number> &x, const Vector<Number> &r, index_t first,
                                                          index_t last, bool atomic) const
  {
    if (last <= first)
      return;
    FittedBoundaryPatchSolve<dim, k, Number> kern;
    kern.patches   = boundary_vertices_.data() + first;
    kern.n_patches = last - first;
    for (int d = 0; d < 3; ++d)
      {
        kern.cells[d] = d < dim ? level_.cells[d] : 1;
        kern.nodes[d] = level_.nodes(d);
      }
    kern.pair   = boundary_pair_.data() + 3 * first;
    kern.scales = boundary_scales_.data() + (dim + 2) * first;
    kern.pairs  = boundary_pairs_.data();
    kern.r      = r.data();
    kern.x      = x.data();
    kern.atomic = atomic;
    launch(backend_, kern, kern.shape());
  }

  template <int dim, int k, typename Number>
  void FittedPatchSolver<dim, k, Number>::solve_boundary_color(Vector<Number> &x, const Vector<Number> &r,
                                                               int color) const
  {
    if (color == all_colours)
      return launch_boundary(x, r, 0, boundary_first_[8], true);
    launch_boundary(x, r, boundary_first_[std::size_t(color)], boundary_first_[std::size_t(color) + 1], false);
  }

  template <int dim, int k, typename Number>
  void FittedPatchSolver<dim, k, Number>::solve_boundary_patches(Vector<Number> &x, const Vector<Number> &r) const
  {
    if (backend_ == Backend::cuda)
      return launch_boundary(x, r, 0, boundary_first_[8], true);
    for (int c = 0; c < n_colors(); ++c)
      solve_boundary_color(x, r, c);
  }

  template <int dim, int k, typename Number>
  AdditiveSchwarz<dim, k, Number>::AdditiveSchwarz(const FittedPatchSolver<dim, k, Number> &solver,
                                                   const LinearOperator<Number> &op, ExchangeOverlap overlap,
                                                   FittedPatchLaunch launch)
    : solver_(&solver), op_(&op)
  {
    if (fitted_patches_at_once(launch, solver.backend()))
      colours_ = {all_colours};
    else
      for (int c = 0; c < solver.n_colors(); ++c)
        colours_.push_back(c);
    if (op.layout() && op.layout()->distributed())
      {
        OverlappedColours split = overlapped_colours(solver.level(), colours_, solver.backend(), overlap);
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
    // beside its inner ones, which write neither what it sends nor what it receives. Colour by
    // colour, each node still receives its colours' terms in colour order: the same sums as
    // without the overlap. (All colours at once: one "colour", all_colours.) The patches on the
    // Neumann and Robin faces first, all colours at once (before the exchange, which sends what
    // they write).
    const std::size_t n = colours_.size();
    solver_->solve_boundary_patches(z, r);
    for (std::size_t c = 0; c < n - (split_ ? 1 : 0); ++c)
      solver_->solve_color(z, r, colours_[c], nullptr, true);
    if (split_)
      {
        const std::size_t last = n - 1;
        for (const PatchColorGeometry &near : split_->near[last])
          solver_->solve_color(z, r, colours_[last], &near);
        layout->start_update_ghosts(z, GhostLayers::one);
        solver_->solve_color(z, r, colours_[last], &split_->inner[last]);
        layout->finish_ghost_update();
      }
    else if (layout)
      layout->update_ghosts(z, GhostLayers::one);
  }
} // namespace tpmg
