// Launch of a cell-loop kernel whose cells add into the nodes they share with neighbouring
// cells (atomic_add): the operators' and the restriction's scatter.
//
// On the GPU one launch; the atomics make every sum complete, in an order that varies from run
// to run. On the CPU the cells run in 2^dim launches, one per colour (the parity of the cell's
// coordinates in the whole level): cells of one colour share no node, so every node receives its
// cells' terms one colour after the other, in the same order on any number of OpenMP threads and
// on any rank that computes the node (CartesianLevel::offset_parity relates a part's colours to
// the whole level's). Without it threads that add to the same node race to round first, and a
// CPU solve's last bits depend on the scheduling.
#pragma once

#include <kernels/common/cell_grid.h>
#include <kernels/runtime/runner.h>

namespace tpmg
{
  /// Runs `kernel` over the cells of kernel.grid, whose number the member `count` holds (the
  /// kernel reads the cell's coordinates from kernel.grid.coordinates and, for data stored per
  /// cell, its index from kernel.grid.index). `parity`, bit d: the parity of the whole level's
  /// coordinate d of the grid's first cell. With `box`: its cells only (CellGrid::box).
  template <class Kernel>
  void launch_cells(Backend backend, Kernel kernel, index_t Kernel::*count, int dim, int parity,
                    const CellBox *box = nullptr)
  {
    if (box)
      kernel.grid = kernel.grid.box(*box, kernel.*count);
    if (kernel.*count == 0)
      return;
    if (backend == Backend::cuda)
      {
        launch(backend, kernel, kernel.shape());
        return;
      }
    const CellGrid whole = kernel.grid;
    for (int colour = 0; colour < (1 << dim); ++colour)
      {
        kernel.grid = whole.colour(colour ^ parity, dim, kernel.*count);
        if (kernel.*count > 0)
          launch(backend, kernel, kernel.shape());
      }
  }

} // namespace tpmg
