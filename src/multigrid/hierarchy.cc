// Rules of the level hierarchy that the solver and the parameter checks share
// (tpmg/multigrid.h).
#include <tpmg/multigrid.h>

#include <src/multigrid/fast_diagonalization.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tpmg
{
  namespace
  {
    /// The largest number of unknowns along a direction of a level whose operator is the
    /// Kronecker sum that fast diagonalization inverts with these settings, or 0 where it is not.
    index_t kronecker_extent(const CartesianLevel &c, const MultigridSettings &settings)
    {
      if (settings.fast_diagonalization_extent <= 0 || settings.level_operator != LevelOperatorType::cartesian ||
          settings.deformation.type != Deformation::none || settings.coefficients.varying() || c.part ||
          c.periodic != 0 || (c.robin_faces & ~c.dirichlet_faces) != 0 || singular_problem(c, settings.coefficients))
        return 0;
      index_t largest = 0;
      for (int d = 0; d < c.dim; ++d)
        {
          const index_t unknowns = fast_diagonalization_unknowns(c, d);
          if (unknowns <= 0)
            return 0;
          largest = std::max(largest, unknowns);
        }
      return largest;
    }

    /// Whether a level above the coarse mesh's may end the V-cycle: fast diagonalization within
    /// the extent.
    bool fast_diagonalization_within_extent(const CartesianLevel &c, const MultigridSettings &settings)
    {
      const index_t m = kronecker_extent(c, settings);
      return m > 0 && m <= settings.fast_diagonalization_extent;
    }

    /// Whether the dense solve, directly or by degree, takes the level's problem (the limits
    /// alone, whichever of the two the setup limit would pick).
    bool dense_takes(const CartesianLevel &c, const MultigridSettings &settings)
    {
      const index_t linear_unknowns = linear_level(c).n_interior_dofs();
      return c.n_interior_dofs() <= settings.coarse_direct_limit ||
             (c.degree > 1 && c.periodic == 0 && linear_unknowns > 0 &&
              linear_unknowns <= settings.coarse_direct_limit);
    }
  } // namespace

  int coarsest_level(const std::vector<CartesianLevel> &levels)
  {
    const CartesianLevel &l0     = levels.front();
    bool                  single = true;
    for (int d = 0; d < l0.dim; ++d)
      single = single && l0.cells[d] == 1;
    return std::min<int>(single ? 1 : 0, int(levels.size()) - 1);
  }

  int coarsest_level(const std::vector<CartesianLevel> &levels, const MultigridSettings &settings)
  {
    const int mesh = coarsest_level(levels);
    for (int l = int(levels.size()) - 2; l > mesh; --l)
      if (fast_diagonalization_within_extent(levels[std::size_t(l)], settings))
        return l;
    return mesh;
  }

  int coarsest_level(const HierarchyLayout &layouts, const MultigridSettings &settings)
  {
    std::vector<CartesianLevel> levels;
    for (int l = 0; l < layouts.n_levels(); ++l)
      levels.push_back(layouts.partition().level(l));
    const int mesh = coarsest_level(levels);
    int       c    = coarsest_level(levels, settings);
    while (c > mesh && layouts.level(c)->split())
      --c;
    return c;
  }

  bool coarse_solve_by_fast_diagonalization(const CartesianLevel &c, const MultigridSettings &settings)
  {
    // within the extent, or beyond it where the dense solves cannot take the coarse mesh's level
    // (many coarse cells: an exact solve of more multiply-adds per unknown, but the only one)
    const index_t m = kronecker_extent(c, settings);
    return m > 0 && (m <= settings.fast_diagonalization_extent || !dense_takes(c, settings));
  }

  bool coarse_solve_by_smoother(const CartesianLevel &c, const MultigridSettings &settings)
  {
    if (coarse_solve_by_fast_diagonalization(c, settings))
      return false;
    index_t patch_interior = 1; // (2k-1)^dim
    for (int d = 0; d < c.dim; ++d)
      patch_interior *= 2 * c.degree - 1;
    // (a fitted surrogate's solve is not the exact one; no patch covers a periodic level)
    return settings.smoother == SmootherType::vertex_patch && !settings.fitted_patches() && c.n_patches() == 1 &&
           c.n_interior_dofs() == patch_interior && c.periodic == 0;
  }

  CartesianLevel linear_level(const CartesianLevel &c)
  {
    CartesianLevel l = c;
    l.degree         = 1;
    return l;
  }

  void set_chebyshev_polynomial(MultigridSettings &settings, int degree, double smoothing_range)
  {
    // (the fitted patches' automatic values depend on the level's cells: fitted_chebyshev_polynomial)
    const bool fitted                  = settings.fitted_patches();
    settings.chebyshev.degree          = degree > 0 ? degree : fitted ? 0 : 3;
    settings.chebyshev.smoothing_range = smoothing_range > 0 ? smoothing_range : fitted ? 0.0 : 15.0;
  }

  ChebyshevSettings fitted_chebyshev_polynomial(ChebyshevSettings c, double shear, double contrast)
  {
    // The separable surrogates miss the shear of skewed cells (Kershaw meshes), so there the
    // additive Schwarz operator has small eigenvalues on modes the coarse grid does not reduce
    // either; the wider the interval, the flatter the counts across levels, and the degree buys
    // back the rate. Degree 16 over range 400 keeps Kershaw eps = 0.3 within one iteration across
    // levels 1-3. Where the cells are sheared little, the surrogates hold those modes too, and
    // degree 4 over range 15 takes as many or fewer iterations with a quarter of the applications
    // (docs/performance/solve.md, "Deformed meshes", the Chebyshev interval). A coefficient that
    // varies strongly inside the patches, which the surrogates see as its patch means, needs the
    // long one as well (c = 1e5 (1 + sin 5x) on a 4^3 mesh: 23 iterations against 7); a smooth one
    // does not (docs/performance/solve.md, "Coefficients").
    const bool sheared = shear > fitted_mild_shear || contrast > fitted_mild_contrast;
    if (c.degree <= 0)
      c.degree = sheared ? 16 : 4;
    if (!(c.smoothing_range > 0))
      c.smoothing_range = sheared ? 400.0 : 15.0;
    return c;
  }

  bool coarse_solve_by_degree(const CartesianLevel &c, const MultigridSettings &settings)
  {
    // (the Q1 problem's transfers know no periodic faces: such a level is solved as it is; a Q1
    // problem without unknowns, as on one cell layer between Dirichlet faces, would leave the
    // two-level cycles to the smoother alone: 4 iterations instead of 3 for Q7 on 2 x 2 x 1 cells)
    const index_t linear_unknowns = linear_level(c).n_interior_dofs();
    return !coarse_solve_by_fast_diagonalization(c, settings) && !coarse_solve_by_smoother(c, settings) &&
           c.periodic == 0 &&
           c.n_interior_dofs() > std::min(settings.coarse_dense_setup_limit, settings.coarse_direct_limit) &&
           c.degree > 1 && linear_unknowns > 0 && linear_unknowns <= settings.coarse_direct_limit;
  }

  bool use_cuda_graph(CudaGraph mode, Backend backend, int ranks, ExchangePath path)
  {
    // (what a graph can record: one GPU's cycle, or the cycles of ranks whose exchanges are NCCL's
    // stream work)
    const bool on_gpu = backend == Backend::cuda, recordable = on_gpu && (ranks == 1 || path == ExchangePath::nccl);
    if (mode == CudaGraph::always && !on_gpu)
      throw std::invalid_argument("Backend/CUDA graph = always needs a GPU, not the CPU backend");
    if (mode == CudaGraph::always && !recordable)
      throw std::invalid_argument("Backend/CUDA graph = always on " + std::to_string(ranks) +
                                  " ranks needs their exchanges over NCCL (Backend/Exchange = nccl), not " +
                                  to_string(path) + ", which waits on the host inside the cycle");
    return mode != CudaGraph::never && recordable;
  }

  int cuda_graph_level(const HierarchyPartition &partition, int coarsest, index_t max_rank_dofs)
  {
    const int  finest = partition.n_levels() - 1;
    const int  ranks  = partition.grid().size();
    const auto split  = [&](int l) { return ranks > 1 && partition.distributed(l); };
    for (int l = finest; l >= coarsest; --l)
      {
        const index_t rank_dofs = partition.level(l).n_dofs() / (split(l) ? ranks : 1);
        if (max_rank_dofs > 0 && rank_dofs > max_rank_dofs)
          continue;
        if (l == finest)
          return l;
        // (the finer levels run launch by launch: every rank must reach the replay, which a level
        // split over all ranks above it guarantees)
        return l > coarsest && (ranks == 1 || split(l + 1)) ? l : -1;
      }
    return -1;
  }

  std::string coarse_level_problem(const CartesianLevel &c, const MultigridSettings &settings)
  {
    if (coarse_solve_by_fast_diagonalization(c, settings) || coarse_solve_by_smoother(c, settings) ||
        c.n_interior_dofs() <= settings.coarse_direct_limit || coarse_solve_by_degree(c, settings))
      return "";
    return "the coarsest level has " + std::to_string(linear_level(c).n_interior_dofs()) +
           " interior unknowns even with Q1 elements; the dense direct coarse solver accepts at most " +
           std::to_string(settings.coarse_direct_limit) + " (use fewer Mesh/Coarse cells)";
  }
} // namespace tpmg
