// The partition over the ranks of an mpirun (label "mpi"): every rank computes its boxes of
// every level of a hierarchy whose cell counts do not divide evenly by the rank grid; the
// cells owned, summed over the ranks, are the level's cells, the boxes' union is the level
// (a checksum of the owned cell indices), and every rank agrees on the owner of every cell.
// Exit code 0 on success on every rank, 1 on a failed check (rank 0 says which).
#include <tpmg/communicator.h>
#include <tpmg/partition.h>

#include <cstdio>
#include <exception>
#include <string>

using namespace tpmg;

int main(int argc, char **argv)
{
  MpiSession         session(argc, argv);
  const Communicator world    = Communicator::world();
  int                failures = 0;
  auto               check    = [&](bool ok, const std::string &what) {
    if (!ok)
      {
        ++failures;
        std::fprintf(stderr, "rank %d: %s\n", world.rank(), what.c_str());
      }
  };
  try
    {
      for (int dim : {2, 3})
        {
          Domain d;
          d.dim                    = dim;
          d.coarse_cells           = {3, 5, 7};
          const auto        levels = make_hierarchy(d, 2, dim == 3 ? 3 : 4);
          const ProcessGrid grid   = make_process_grid(world.size(), levels);
          check(grid.size() == world.size(), "the grid has " + std::to_string(grid.size()) + " ranks");
          const HierarchyPartition part(levels, grid);
          for (int l = 0; l < int(levels.size()); ++l)
            {
              const CartesianLevel box   = part.owned(l, world.rank());
              index_t              cells = 0, checksum = 0;
              for (index_t z = box.cell_begin[2]; z < box.cell_end[2]; ++z)
                for (index_t y = box.cell_begin[1]; y < box.cell_end[1]; ++y)
                  for (index_t x = box.cell_begin[0]; x < box.cell_end[0]; ++x)
                    {
                      ++cells;
                      checksum += x + box.cells[0] * (y + box.cells[1] * z);
                      check(part.owner(l, {x, y, z}) == (part.distributed(l) ? world.rank() : 0),
                            "owner of a cell of level " + std::to_string(l));
                    }
              const index_t n = levels[std::size_t(l)].n_cells();
              check(world.sum(cells) == n, std::to_string(dim) + "D level " + std::to_string(l) + ": the ranks own " +
                                             std::to_string(world.sum(cells)) + " of " + std::to_string(n) + " cells");
              check(world.sum(checksum) == n * (n - 1) / 2,
                    "the boxes of level " + std::to_string(l) + " overlap or leave gaps");
            }
        }
    }
  catch (const std::exception &e)
    {
      check(false, e.what());
    }
  const double all = world.sum(double(failures));
  if (world.rank() == 0)
    std::printf("%d ranks (MPI %s): %s\n", world.size(), Communicator::with_mpi() ? "on" : "off",
                all == 0 ? "partition consistent" : "FAILED");
  return all == 0 ? 0 : 1;
}
