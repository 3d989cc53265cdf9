// Every component of the multigrid on the ranks' parts of the levels against the same component
// on the whole level (label "mpi"): the level operators (cartesian; bp3 and bp5 on a deformed
// mesh), the residual, a smoothing step of the vertex-patch smoother (kernel variants), the
// Chebyshev smoother, restriction and prolongation, and a whole V-cycle. Each rank also builds the
// whole hierarchy on its own (Communicator::self()) and compares its owned values: on the CPU
// runner with one thread every kernel is deterministic and the parts reproduce the whole level
// bit for bit; the test asserts equality within 4 units in the last place to stay meaningful if
// a kernel's order of additions changes. 2D and 3D, uneven splits. Exit code 0 on every rank.
#include <tpmg/box_layout.h>
#include <tpmg/distributed_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/vector_ops.h>

#include <kernels/smoothers/chebyshev.h>

#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>

using namespace tpmg;

namespace
{
  const Communicator *world    = nullptr;
  index_t             failures = 0, compared = 0;

  void fail(const std::string &what)
  {
    if (++failures <= 8)
      std::fprintf(stderr, "rank %d: %s\n", world->rank(), what.c_str());
  }

  /// A smooth-ish pseudo-random vector of the whole level, zero on the boundary.
  template <typename Number>
  std::vector<Number> test_values(const CartesianLevel &whole)
  {
    std::vector<Number> v(std::size_t(whole.n_dofs()));
    for (index_t z = 0; z < whole.nodes(2); ++z)
      for (index_t y = 0; y < whole.nodes(1); ++y)
        for (index_t x = 0; x < whole.nodes(0); ++x)
          {
            const index_t g = whole.dof_index(x, y, z);
            v[std::size_t(g)] =
              whole.on_boundary(x, y, z) ? Number(0) : Number(chebyshev_kernels::hash_unit(std::uint64_t(g), 7) - 0.3);
          }
    return v;
  }

  /// The part of a whole-level vector that `layout` stores.
  template <typename Number>
  Vector<Number> part_of(const std::vector<Number> &whole, const std::shared_ptr<const BoxLayout> &layout)
  {
    std::vector<Number> h(std::size_t(layout->size()));
    for (index_t i = 0; i < layout->size(); ++i)
      h[std::size_t(i)] = whole[std::size_t(layout->global_index(i))];
    Vector<Number> v(layout);
    v.from_host(h);
    return v;
  }

  /// The owned values of `part` against the whole-level vector `whole`.
  template <typename Number>
  void compare(const std::string &what, const BoxLayout &layout, const Vector<Number> &part,
               const std::vector<Number> &whole)
  {
    if (!layout.stores())
      return;
    const std::vector<Number> p     = part.to_host();
    const NodeBox            &o     = layout.owned();
    const CartesianLevel     &s     = layout.level();
    double                    worst = 0;
    for (index_t z = o.begin[2]; z < o.begin[2] + o.extent[2]; ++z)
      for (index_t y = o.begin[1]; y < o.begin[1] + o.extent[1]; ++y)
        for (index_t x = o.begin[0]; x < o.begin[0] + o.extent[0]; ++x)
          {
            const index_t i = s.dof_index(x, y, z);
            const double  a = double(p[std::size_t(i)]), b = double(whole[std::size_t(layout.global_index(i))]);
            const double  ulp = std::numeric_limits<Number>::epsilon() * std::max(std::fabs(b), 1e-30);
            if (a != b && getenv("DEBUG_CMP"))
              std::fprintf(stderr, "%s rank %d local (%ld %ld %ld) global %ld: %.17g vs %.17g\n", what.c_str(),
                           world->rank(), x, y, z, layout.global_index(i), a, b);
            worst = std::max(worst, std::fabs(a - b) / ulp);
            ++compared;
          }
    if (worst > 4)
      fail(what + ": owned values differ from the whole level's by " + std::to_string(worst) + " ulp");
  }

  template <int dim, int k, typename Number>
  void check(const MultigridSettings &settings, const std::string &name, int coarse_cells, int fine_level)
  {
    Domain domain;
    domain.dim                               = dim;
    domain.coarse_cells                      = {coarse_cells, coarse_cells + 1, dim == 3 ? coarse_cells : 1};
    const auto                      levels   = make_hierarchy(domain, k, fine_level);
    const int                       coarsest = coarsest_level(levels);
    const HierarchyLayout           layouts(levels, *world, Backend::cpu, coarsest);
    const Multigrid<dim, k, Number> parts(layouts, Backend::cpu, settings);
    const Multigrid<dim, k, Number> whole(levels, Backend::cpu, settings);
    const std::string               where = name + " " + std::to_string(dim) + "D k=" + std::to_string(k) + " " +
                              (std::is_same_v<Number, float> ? "float" : "double");

    for (int l = coarsest; l <= fine_level; ++l)
      {
        const auto &layout = layouts.level(l);
        if (!layout->stores() || !layout->distributed())
          continue;
        const std::string         at = where + " level " + std::to_string(l);
        const std::vector<Number> u = test_values<Number>(levels[l]), f = test_values<Number>(levels[l]);
        // operator and residual
        Vector<Number> pu = part_of(u, layout), pr, wu(levels[l].n_dofs(), Backend::cpu), wr;
        wu.from_host(u);
        parts.level_operator(l).vmult(pr, pu);
        whole.level_operator(l).vmult(wr, wu);
        compare(at + " operator", *layout, pr, wr.to_host());
        Vector<Number> pb = part_of(f, layout), wb(levels[l].n_dofs(), Backend::cpu);
        wb.from_host(f);
        parts.level_operator(l).residual(pr, pb, pu);
        whole.level_operator(l).residual(wr, wb, wu);
        compare(at + " residual", *layout, pr, wr.to_host());
        if (l == coarsest)
          continue;
        // a smoothing step from u, and one from zero
        parts.level_smoother(l).smooth(pu, pb, false, false);
        whole.level_smoother(l).smooth(wu, wb, false, false);
        compare(at + " smoothing step", *layout, pu, wu.to_host());
        pu.set_zero();
        wu.set_zero();
        parts.level_smoother(l).smooth(pu, pb, true, true);
        whole.level_smoother(l).smooth(wu, wb, true, true);
        compare(at + " smoothing step from zero", *layout, pu, wu.to_host());
        // restriction to the next coarser level and prolongation back
        Vector<Number> pc, wc;
        parts.restrict_level(l, pc, pb);
        whole.restrict_level(l, wc, wb);
        if (layouts.level(l - 1)->stores())
          compare(at + " restriction", *layouts.level(l - 1), pc, wc.to_host());
        parts.prolongate_level(l, pu, pc);
        whole.prolongate_level(l, wu, wc);
        compare(at + " prolongation", *layout, pu, wu.to_host());
      }
    // a V-cycle from zero (smoothers, transfers, the gathering transfer, the coarse solve)
    const auto               &fine = layouts.level(fine_level);
    const std::vector<Number> f    = test_values<Number>(levels[fine_level]);
    Vector<Number>            pb   = part_of(f, fine), px, wb(levels[fine_level].n_dofs(), Backend::cpu), wx;
    wb.from_host(f);
    parts.vmult(px, pb);
    whole.vmult(wx, wb);
    compare(where + " V-cycle", *fine, px, wx.to_host());
    // and a second cycle on top (x ≠ 0 on entry)
    parts.vcycle(px, pb);
    whole.vcycle(wx, wb);
    compare(where + " two V-cycles", *fine, px, wx.to_host());
    // dot products over the ranks equal the whole level's
    const double pd = dot(px, pb), wd = dot(wx, wb);
    if (pd != wd)
      fail(where + " dot product " + std::to_string(pd) + " vs " + std::to_string(wd));
  }
} // namespace

int main(int argc, char **argv)
{
  MpiSession         session(argc, argv);
  const Communicator comm = Communicator::world();
  world                   = &comm;
  try
    {
      MultigridSettings s;
      check<2, 2, double>(s, "cartesian fused", 3, 4);
      check<3, 2, double>(s, "cartesian fused", 1, 3);
      check<3, 3, float>(s, "cartesian fused", 1, 3);
      check<3, 1, float>(s, "cartesian fused", 2, 3);
      for (SmootherKernel kernel : {SmootherKernel::separate, SmootherKernel::global})
        {
          MultigridSettings v = s;
          v.patch.kernel      = kernel;
          check<3, 2, double>(v, std::string("cartesian ") + to_string(kernel), 1, 3);
        }
      {
        MultigridSettings v       = s;
        v.patch.optimization      = KernelOptimization::linear_indexing;
        v.patch.patches_per_block = 0;
        check<3, 3, float>(v, "cartesian linear_indexing", 1, 3);
        v.patch.optimization = KernelOptimization::reduced_residual;
        check<2, 3, double>(v, "cartesian boundary", 3, 4);
      }
      {
        MultigridSettings v = s;
        v.smoother          = SmootherType::chebyshev_jacobi;
        check<3, 2, double>(v, "chebyshev", 3, 3);
      }
      {
        MultigridSettings v     = s;
        v.level_operator        = LevelOperatorType::bp3;
        v.deformation.type      = Deformation::sine;
        v.deformation.amplitude = 0.1;
        check<3, 2, double>(v, "bp3 sine", 3, 3);
        v.level_operator = LevelOperatorType::bp5;
        v.geometry       = GeometryMode::on_the_fly;
        check<2, 3, float>(v, "bp5 sine on the fly", 3, 4);
      }
    }
  catch (const std::exception &e)
    {
      fail(e.what());
    }
  const index_t all = comm.sum(failures), values = comm.sum(compared);
  if (comm.rank() == 0)
    std::printf("%d ranks: %lld owned values compared, %s\n", comm.size(), (long long)values,
                all == 0 ? "the parts reproduce the whole levels" : "FAILED");
  return all == 0 ? 0 : 1;
}
