// What the report says about a run (RunResult, tpmg/poisson.h): its problem, sizes, distribution,
// solver and kernels, and the runtime breakdown of its fastest solve. Included by poisson_impl.h.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/device.h>
#include <tpmg/multigrid.h>
#include <tpmg/poisson.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/timers.h>

#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace tpmg::internal
{
  /// The nodes of a whole level, the DoFs the reports count: a node and its copies across
  /// periodic faces once.
  inline index_t distinct_nodes(const CartesianLevel &level)
  {
    index_t n = 1;
    for (int d = 0; d < level.dim; ++d)
      n *= level.nodes(d) - (level.periodic_in(d) ? 1 : 0);
    return n;
  }

  /// The report's description of the run: the problem, the sizes and their distribution, the
  /// solver and the kernels it runs, the device.
  /// The finest level's Chebyshev polynomial of a fitted additive Schwarz smoother, added to the
  /// report's smoother line: ", Chebyshev degree 4, range 15 (automatic: cells sheared at most
  /// 0.41, within 0.70)"; "automatic" where the level chose the degree or the range by its cells
  /// (and by the coefficients' contrast within a patch where they vary in space).
  template <typename Number>
  void describe_fitted_polynomial(const Smoother<Number> &finest, const MultigridSettings &mg, RunResult &res)
  {
    const ChebyshevSettings *c = finest.polynomial();
    if (!c)
      return;
    std::ostringstream line;
    line << ", Chebyshev degree " << c->degree << ", range " << c->smoothing_range;
    const bool automatic = mg.chebyshev.degree <= 0 || !(mg.chebyshev.smoothing_range > 0);
    if (automatic)
      {
        line << " (automatic: cells sheared at most " << std::fixed << std::setprecision(2) << finest.shear()
             << (finest.shear() > fitted_mild_shear ? ", above " : ", within ") << fitted_mild_shear;
        if (mg.coefficients.varying())
          line << "; coefficient contrast in a patch " << finest.contrast()
               << (finest.contrast() > fitted_mild_contrast ? ", above " : ", within ") << fitted_mild_contrast;
        line << ")";
      }
    res.smoother_configuration += line.str();
  }

  template <int dim, int k, typename Number>
  void describe_run(const SolverParameters &p, const MultigridSettings &mg, const std::vector<CartesianLevel> &levels,
                    const HierarchyLayout &layouts, Backend backend, const Communicator &comm, RunResult &res)
  {
    const bool deformed = p.deformation.type != Deformation::none;
    {
      ProblemSummary &q = res.problem;
      for (int d = 0; d < dim; ++d)
        {
          q.box_lower.push_back(p.box_lower[d]);
          q.box_upper.push_back(p.box_upper[d]);
          q.coarse_cells.push_back(p.coarse_cells[d]);
        }
      q.rhs             = to_string(p.conventions == Conventions::paper_code ? RightHandSide::ones_vector : p.rhs);
      q.rhs_function    = p.rhs_function;
      q.boundary_values = p.boundary_values;
      q.exact_solution  = p.exact_solution;
      for (int f = 0; f < 2 * dim; ++f)
        q.boundary_types.push_back(to_string(p.boundary.type[std::size_t(f)]));
      q.boundary_flux        = p.boundary_flux;
      q.robin_coefficient    = p.robin_coefficient;
      q.coefficient          = p.coefficient;
      q.reaction_coefficient = p.reaction;
      q.deformation          = to_string(p.deformation.type);
      q.deformation_function = p.deformation.type == Deformation::function ? p.deformation_function : "";
      q.mapping = p.deformation.type == Deformation::none ? "" : exact_mapping(p.deformation) ? "exact" : "multilinear";
      q.deformation_amplitude = deformed ? p.deformation.amplitude : 0.0;
      q.relative_tolerance    = p.relative_tolerance;
    }
    res.dim    = dim;
    res.degree = k;
    res.level  = p.refinement_level;
    res.dofs   = distinct_nodes(levels.back());
    res.ranks  = comm.size();
    {
      const ProcessGrid &g = layouts.partition().grid();
      res.process_grid     = std::to_string(g.ranks[0]);
      for (int d = 1; d < dim; ++d)
        res.process_grid += " x " + std::to_string(g.ranks[d]);
      res.max_rank_dofs           = comm.max(layouts.level(layouts.n_levels() - 1)->size());
      res.first_distributed_level = comm.size() > 1 ? layouts.partition().first_distributed_level() : 0;
      res.gathered_level          = comm.size() == 1              ? -1
                                    : layouts.gather_level() >= 0 ? layouts.gather_level()
                                                                  : res.first_distributed_level;
      if (comm.size() > 1)
        res.exchange_path = to_string(comm.exchange_path());
    }
    res.solver            = to_string(p.solver);
    res.orthogonalization = to_string(p.orthogonalization);
    res.precision         = to_string(p.precision);
    res.smoother          = to_string(p.smoother);
    res.smoother_kernel   = to_string(p.patch.kernel);
    if (mg.fitted_patches())
      {
        // (the Chebyshev polynomial: after the setup, describe_fitted_polynomial)
        res.smoother_kernel     = to_string(p.fitted_smoothing);
        res.kernel_optimization = "fitted patches";
        res.fitted_patch_kernel = to_string(resolve_fitted_patch_kernel(p.fitted_kernel, backend, dim, k, p.precision));
        res.smoother_configuration = std::string("fitted patch solves, ") + to_string(p.fitted_smoothing) + ", " +
                                     res.fitted_patch_kernel + " products";
        if (p.fitted_smoothing == FittedSmoothing::chebyshev_additive)
          res.smoother_configuration += fitted_patches_at_once(p.fitted_launch, backend) ? ", all patches in one launch"
                                                                                         : ", one launch per colour";
      }
    else if (p.smoother != SmootherType::vertex_patch)
      res.kernel_optimization = to_string(p.patch.optimization);
    else if (mg.coefficients.varying())
      res.warnings.push_back("Patch geometry = cartesian: the patch problems do not see the varying coefficients "
                             "(fitted patches take each patch's mean a and c)");
    // (a Cartesian vertex-patch smoother's kernels: what it resolved, after its setup)
    res.level_operator = to_string(p.level_operator);
    if (p.level_operator != LevelOperatorType::cartesian && p.geometry == GeometryMode::on_the_fly)
      res.level_operator += " (geometry on the fly)";
    res.backend        = to_string(backend);
    res.device         = backend == Backend::cuda ? cuda_device_info().name : host_description();
    res.coarsest_level = tpmg::coarsest_level(layouts, mg);
  }

  /// The runtime breakdown of a solve (res.levels, res.breakdown): per level and component, on
  /// several ranks the slowest rank's time of each entry.
  inline void record_breakdown(Timers &timers, const HierarchyLayout &layouts,
                               const std::vector<CartesianLevel> &levels, int coarsest, const Communicator &comm,
                               RunResult &res)
  {
    res.levels.clear();
    res.breakdown.clear();
    const int finest  = int(levels.size()) - 1;
    double    coarser = 0;
    auto      seconds = [&](int l, Component c) { return comm.max(timers.seconds(l, c)); };
    for (int l = coarsest; l <= finest; ++l)
      {
        LevelTimes lt;
        lt.level        = l;
        lt.dofs         = distinct_nodes(levels[std::size_t(l)]);
        lt.smoother     = seconds(l, Component::smoother);
        lt.matvec       = seconds(l, Component::matvec);
        lt.vector       = seconds(l, Component::vector);
        lt.restriction  = seconds(l, Component::restriction);
        lt.prolongation = seconds(l, Component::prolongation);
        lt.coarse_solve = seconds(l, Component::coarse_solve);
        lt.graph        = seconds(l, Component::vcycle_graph);
        lt.exchange     = comm.max(layouts.exchange_seconds(l));
        lt.exchanges    = long(comm.max(index_t(layouts.exchanges(l))));
        if (l < finest)
          coarser += lt.total();
        res.levels.push_back(lt);
      }
    const LevelTimes &f = res.levels.back();
    res.breakdown       = {{"coarser_levels", coarser},
                           {"finest_matvec", f.matvec},
                           {"finest_transfer", f.restriction + f.prolongation},
                           {"finest_smoother", f.smoother + f.coarse_solve},
                           {"finest_vector", f.vector},
                           {"outer_matvec", seconds(outer_level, Component::outer_matvec)},
                           {"outer_vector", seconds(outer_level, Component::outer_vector)},
                           {"conversion", seconds(outer_level, Component::conversion)},
                           {"vcycle_graph", f.graph}};
  }
} // namespace tpmg::internal
