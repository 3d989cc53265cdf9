// The layouts of the levels over the ranks of an mpirun (box_layout.h; label "mpi"): every node
// of a level is owned by one rank; after each rank writes f(global index) into the nodes it
// owns (and garbage elsewhere), update_ghosts gives every stored node the value f, in the ghost
// cells next to the box and then in all of them (but an upper face of the stored part beyond a
// neighbour's box of two cells); gather collects f on rank 0; scatter gives every stored node f
// (and adds it with `add`); after a colour of vertex patches, update_ghosts_after_colour brings
// every node next to the box to what the colour's patches wrote there (also with Neumann faces,
// whose vertices carry patches). 2D and 3D, k = 1 and 3, every level of hierarchies with uneven
// splits, float and double, on the CPU. Exit code 0 on every rank on success.
#include <tpmg/box_layout.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <tuple>

using namespace tpmg;

namespace
{
  double f(index_t g) { return 1.0 + double(g % 1000003) * 0.25; }

  /// Whether stored node i of `part` lies on an upper face of the part that a rank beyond the
  /// neighbour owns (the neighbour's box has two cells): the one place update_ghosts leaves alone.
  bool beyond_neighbour(const HierarchyPartition &partition, int l, const CartesianLevel &part, index_t i)
  {
    if (!part.part)
      return false;
    const index_t c[3] = {i % part.nodes(0), (i / part.nodes(0)) % part.nodes(1), i / (part.nodes(0) * part.nodes(1))};
    for (int d = 0; d < part.dim; ++d)
      {
        const index_t hi = part.global_offset(d) + part.cells[d];
        if (c[d] == part.nodes(d) - 1 && hi < part.global_cells(d))
          {
            const std::vector<index_t> b     = partition.boundaries(l, d);
            const int                  owner = int(std::upper_bound(b.begin(), b.end(), hi) - b.begin()) - 1;
            const int                  mine =
              int(std::upper_bound(b.begin(), b.end(), part.global_offset(d) + part.cell_begin[d]) - b.begin()) - 1;
            if (owner > mine + 1)
              return true;
          }
      }
    return false;
  }
  /// Whether stored node i of `part` lies in the cells next to the owned ones (or in them).
  bool next_to_box(const CartesianLevel &part, index_t i)
  {
    const index_t c[3] = {i % part.nodes(0), (i / part.nodes(0)) % part.nodes(1), i / (part.nodes(0) * part.nodes(1))};
    for (int d = 0; d < part.dim; ++d)
      if (c[d] < part.degree * (part.cell_begin[d] - 1) || c[d] > part.degree * (part.cell_end[d] + 1))
        return false;
    return true;
  }
} // namespace

int main(int argc, char **argv)
{
  MpiSession         session(argc, argv);
  const Communicator world    = Communicator::world();
  index_t            failures = 0, checked = 0;
  auto               fail = [&](const std::string &what) {
    if (++failures <= 5)
      std::fprintf(stderr, "rank %d: %s\n", world.rank(), what.c_str());
  };
  try
    {
      for (int dim : {2, 3})
        for (int k : {1, 3})
          for (unsigned dirichlet : {all_faces, all_faces & ~(1u | 8u | 32u)})
            {
              Domain d;
              d.dim                        = dim;
              d.coarse_cells               = {3, 5, 2};
              d.dirichlet_faces            = dirichlet; // (with x-, y+, z+ Neumann: the patches on them)
              const auto            levels = make_hierarchy(d, k, dim == 3 ? 3 : 4);
              const HierarchyLayout layouts(levels, world, Backend::cpu, 0);
              for (int l = 0; l < layouts.n_levels(); ++l)
                {
                  const BoxLayout  &layout = *layouts.level(l);
                  const std::string where  = std::to_string(dim) + "D k=" + std::to_string(k) + " level " +
                                            std::to_string(l) + (dirichlet == all_faces ? "" : " Neumann faces") + ": ";
                  if (world.sum(layout.stores() ? layout.owned().size() : index_t(0)) != levels[l].n_dofs())
                    fail(where + "the owned nodes do not add up to the level's");
                  auto run = [&](auto zero) {
                    using Number = decltype(zero);
                    Vector<Number>      v(layouts.level(l));
                    std::vector<Number> h(std::size_t(v.size()), Number(-7));
                    const NodeBox      &o = layout.owned();
                    for (index_t z = 0; z < o.extent[2]; ++z)
                      for (index_t y = 0; y < o.extent[1]; ++y)
                        for (index_t x = 0; x < o.extent[0]; ++x)
                          {
                            const index_t i =
                              (o.begin[0] + x) +
                              layout.level().nodes(0) * ((o.begin[1] + y) + layout.level().nodes(1) * (o.begin[2] + z));
                            h[std::size_t(i)] = Number(f(layout.global_index(i)));
                          }
                    v.from_host(h);
                    // one layer of ghost cells, then all of them
                    for (GhostLayers layers : {GhostLayers::one, GhostLayers::all})
                      {
                        layout.update_ghosts(v, layers);
                        h = v.to_host();
                        for (index_t i = 0; i < v.size(); ++i)
                          if (!beyond_neighbour(layouts.partition(), l, layout.level(), i) &&
                              (layers == GhostLayers::all || next_to_box(layout.level(), i)))
                            {
                              ++checked;
                              if (h[std::size_t(i)] != Number(f(layout.global_index(i))))
                                fail(where + "ghost node " + std::to_string(layout.global_index(i)) + " holds " +
                                     std::to_string(double(h[std::size_t(i)])));
                            }
                      }
                    // after a colour of vertex patches: every rank writes, from all stored nodes
                    // up to date, a colour's value into the nodes its patches of that colour
                    // write; after update_ghosts_after_colour every node next to the box holds
                    // the colour's value where any patch of the colour writes it, else the old
                    if (layout.distributed())
                      for (int colour = 0; colour < (1 << dim); ++colour)
                        {
                          auto colour_value          = [&](index_t g) { return Number(f(g) + 1000.0 * (colour + 1)); };
                          const CartesianLevel &part = layout.level();
                          // along d: whether node c (part coordinates) lies in the interior of a
                          // colour patch centred within [first, last] (whole-level vertices)
                          auto written = [&](const index_t(&c)[3], bool mine) {
                            for (int e = 0; e < dim; ++e)
                              {
                                const index_t p = (colour >> e) & 1, x = c[e] + k * part.global_offset(e);
                                // every patch's centre: the interior vertices, and those on the
                                // Neumann faces (their truncated patches write the same formula's
                                // nodes within the level)
                                index_t first = levels[l].dirichlet(2 * e) ? 1 : 0;
                                index_t last  = part.global_cells(e) - (levels[l].dirichlet(2 * e + 1) ? 1 : 0);
                                if (mine)
                                  std::tie(first, last) = smoothed_vertices(part, e);
                                bool any = false;
                                for (index_t vc = std::max(first, x / k - 1); vc <= std::min(last, x / k + 1); ++vc)
                                  any = any || ((vc & 1) == p && k * (vc - 1) < x && x < k * (vc + 1));
                                if (!any)
                                  return false;
                              }
                            return true;
                          };
                          std::vector<Number> c0(std::size_t(v.size()));
                          for (index_t i = 0; i < v.size(); ++i)
                            {
                              const index_t c[3] = {i % part.nodes(0), (i / part.nodes(0)) % part.nodes(1),
                                                    i / (part.nodes(0) * part.nodes(1))};
                              const index_t g    = layout.global_index(i);
                              c0[std::size_t(i)] = written(c, true) ? colour_value(g) : Number(f(g));
                            }
                          v.from_host(c0);
                          layout.update_ghosts_after_colour(v, colour);
                          const std::vector<Number> after = v.to_host();
                          for (index_t i = 0; i < v.size(); ++i)
                            if (next_to_box(part, i) && !beyond_neighbour(layouts.partition(), l, part, i))
                              {
                                const index_t c[3] = {i % part.nodes(0), (i / part.nodes(0)) % part.nodes(1),
                                                      i / (part.nodes(0) * part.nodes(1))};
                                const index_t g    = layout.global_index(i);
                                ++checked;
                                if (after[std::size_t(i)] != (written(c, false) ? colour_value(g) : Number(f(g))))
                                  fail(where + "colour " + std::to_string(colour) + ": node " + std::to_string(g) +
                                       " holds " + std::to_string(double(after[std::size_t(i)])));
                              }
                        }
                    v.from_host(h);
                    Vector<Number> whole;
                    layout.gather(v, whole);
                    if (world.rank() == 0)
                      {
                        const std::vector<Number> w = whole.to_host();
                        if (index_t(w.size()) != levels[l].n_dofs())
                          fail(where + "gather gave " + std::to_string(w.size()) + " values");
                        for (index_t g = 0; g < index_t(w.size()); ++g)
                          if (w[std::size_t(g)] != Number(f(g)))
                            fail(where + "gathered node " + std::to_string(g));
                      }
                    Vector<Number> s(layouts.level(l));
                    layout.scatter(whole, s, false);
                    layout.scatter(whole, s, true);
                    const std::vector<Number> sh = s.to_host();
                    for (index_t i = 0; i < s.size(); ++i)
                      if (sh[std::size_t(i)] != Number(2 * f(layout.global_index(i))))
                        fail(where + "scattered node " + std::to_string(layout.global_index(i)));
                  };
                  run(0.0);
                  run(0.0f);
                }
            }
    }
  catch (const std::exception &e)
    {
      fail(e.what());
    }
  const index_t all = world.sum(failures), nodes = world.sum(checked);
  if (world.rank() == 0)
    std::printf("%d ranks: %lld ghost values checked, %s\n", world.size(), (long long)nodes,
                all == 0 ? "exchanges correct" : "FAILED");
  return all == 0 ? 0 : 1;
}
