// The summation over shared nodes of the boxes (box_nodes.h) under mpirun (label "mpi"): each
// rank adds 1 into the nodes of each of its cells; after sum_shared every node of every box
// holds the number of cells of the whole level that contain it, which is known in closed form
// (a product over the directions of 2 at an interior vertex, 1 elsewhere). 2D and 3D, k = 1, 3,
// every level of a hierarchy with uneven splits. Exit code 0 on every rank on success.
#include <tpmg/box_nodes.h>

#include <cstdio>
#include <exception>
#include <string>

using namespace tpmg;

int main(int argc, char **argv)
{
  MpiSession         session(argc, argv);
  const Communicator world    = Communicator::world();
  index_t            failures = 0, checked = 0;
  try
    {
      for (int dim : {2, 3})
        for (int k : {1, 3})
          {
            Domain d;
            d.dim                           = dim;
            d.coarse_cells                  = {3, 5, 2};
            const auto               levels = make_hierarchy(d, k, dim == 3 ? 3 : 4);
            const ProcessGrid        grid   = make_process_grid(world.size(), levels);
            const HierarchyPartition part(levels, grid);
            for (int l = 0; l < int(levels.size()); ++l)
              {
                const BoxNodes       box(part, l, world);
                const CartesianLevel owned = part.owned(l, world.rank());
                std::vector<double>  v(std::size_t(box.size()), 0.0);
                const auto          &e = box.extent();
                // every owned cell adds 1 to its nodes
                for (index_t cz = owned.cell_begin[2]; cz < owned.cell_end[2]; ++cz)
                  for (index_t cy = owned.cell_begin[1]; cy < owned.cell_end[1]; ++cy)
                    for (index_t cx = owned.cell_begin[0]; cx < owned.cell_end[0]; ++cx)
                      for (int z = 0; z <= (dim == 3 ? k : 0); ++z)
                        for (int y = 0; y <= k; ++y)
                          for (int x = 0; x <= k; ++x)
                            {
                              const index_t lx = (cx - owned.cell_begin[0]) * k + x;
                              const index_t ly = (cy - owned.cell_begin[1]) * k + y;
                              const index_t lz = dim == 3 ? (cz - owned.cell_begin[2]) * k + z : 0;
                              v[std::size_t(lx + e[0] * (ly + e[1] * lz))] += 1;
                            }
                box.sum_shared(v);
                const CartesianLevel &lev = levels[std::size_t(l)];
                for (index_t i = 0; i < box.size(); ++i)
                  {
                    const index_t g = box.global_index(i);
                    index_t       n = 1, r = g;
                    for (int dd = 0; dd < dim; ++dd)
                      {
                        const index_t c = r % lev.nodes(dd);
                        r /= lev.nodes(dd);
                        n *= (c % k == 0 && c > 0 && c < lev.nodes(dd) - 1) ? 2 : 1;
                      }
                    ++checked;
                    if (v[std::size_t(i)] != double(n))
                      {
                        if (++failures <= 5)
                          std::fprintf(stderr, "rank %d: %dD k=%d level %d node %lld: %g cells, expected %lld\n",
                                       world.rank(), dim, k, l, (long long)g, v[std::size_t(i)], (long long)n);
                      }
                  }
              }
          }
    }
  catch (const std::exception &e)
    {
      ++failures;
      std::fprintf(stderr, "rank %d: %s\n", world.rank(), e.what());
    }
  const index_t all = world.sum(failures), nodes = world.sum(checked);
  if (world.rank() == 0)
    std::printf("%d ranks: %lld box nodes checked, %s\n", world.size(), (long long)nodes,
                all == 0 ? "shared sums correct" : "FAILED");
  return all == 0 ? 0 : 1;
}
