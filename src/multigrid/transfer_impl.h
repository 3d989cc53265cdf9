// Definitions of Transfer; instantiated from multigrid.inst.in.
#pragma once

#include <tpmg/transfer.h>

#include <kernels/runtime/cell_launch.h>
#include <kernels/transfer/transfer.h>
#include <src/multigrid/transfer_builders.h>

#include <stdexcept>
#include <type_traits>

namespace tpmg
{
  template <int dim, int k, typename Number>
  Transfer<dim, k, Number>::Transfer(const CartesianLevel &coarse, const CartesianLevel &fine, Backend backend)
    : coarse_(coarse), fine_(fine), backend_(backend), p1d_(prolongation_matrix_1d(k))
  {
    index_t first[3], count[3];
    transfer_cells(coarse, fine, first, count); // throws unless the fine level refines the coarse one
  }

  template <int dim, int k, typename Number>
  template <class Run>
  void Transfer<dim, k, Number>::dispatch_transfer(Run &&run) const
  {
    // the kernel's variant: whole levels, the parts a rank stores, or whole levels with Neumann faces
    if (fine_.dirichlet_faces != all_faces)
      run(std::true_type{}, std::true_type{});
    else if (coarse_.part || fine_.part)
      run(std::true_type{}, std::false_type{});
    else
      run(std::false_type{}, std::false_type{});
  }

  template <int dim, int k, typename Number>
  void Transfer<dim, k, Number>::prolongate_add(Vector<Number> &fine, const Vector<Number> &coarse) const
  {
    if (fine.size() != fine_.n_dofs() || coarse.size() != coarse_.n_dofs())
      throw std::invalid_argument("Transfer::prolongate_add: vector sizes do not match the levels");
    auto run = [&](auto part, auto natural) {
      auto kern = make_transfer_kernel<dim, k, Number, false, decltype(part)::value, decltype(natural)::value>(
        coarse_, fine_, p1d_);
      kern.src = coarse.data();
      kern.dst = fine.data();
      launch(backend_, kern, kern.shape());
    };
    dispatch_transfer(run);
  }

  template <int dim, int k, typename Number>
  void Transfer<dim, k, Number>::restrict_to(Vector<Number> &coarse, const Vector<Number> &fine) const
  {
    if (fine.size() != fine_.n_dofs())
      throw std::invalid_argument("Transfer::restrict_to: vector size does not match the fine level");
    coarse.reinit(coarse_.n_dofs(), backend_);
    auto run = [&](auto part, auto natural) {
      auto kern = make_transfer_kernel<dim, k, Number, true, decltype(part)::value, decltype(natural)::value>(
        coarse_, fine_, p1d_);
      kern.src = fine.data();
      kern.dst = coarse.data();
      // coarse cells share coarse nodes: on the CPU colour by colour (cell_launch.h), with the
      // colours of the whole coarse level
      index_t first[3], count[3];
      transfer_cells(coarse_, fine_, first, count);
      int parity = coarse_.offset_parity();
      for (int d = 0; d < dim; ++d)
        parity ^= int(first[d] & 1) << d;
      launch_cells(backend_, kern, &decltype(kern)::n_coarse_cells, dim, parity);
    };
    dispatch_transfer(run);
  }
} // namespace tpmg
