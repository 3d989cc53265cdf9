// Definitions of CartesianLaplaceOperator; instantiated by laplace_operator_<dim>d_<number>.cc.
#pragma once

#include <tpmg/chebyshev_smoother.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/partition.h>

#include <kernels/operators/laplace_cartesian.h>
#include <kernels/operators/laplace_stencil.h>
#include <kernels/runtime/cell_launch.h>
#include <kernels/runtime/forall.h>
#include <src/operators/laplace_stencil_builders.h>
#include <src/operators/robin_faces_impl.h>

#include <stdexcept>
#include <type_traits>

namespace tpmg
{
  template <int dim, int degree, typename Number>
  CartesianLaplaceOperator<dim, degree, Number>::CartesianLaplaceOperator(
    const CartesianLevel &level, Backend backend, std::shared_ptr<const RobinFaces<Number>> robin,
    const ConstantCoefficients &constants)
    : level_(level), backend_(backend), matrices_(element_matrices_1d(degree)), constants_(constants),
      robin_(std::move(robin))
  {
    if (level.dim != dim || level.degree != degree)
      throw std::invalid_argument("CartesianLaplaceOperator: level does not match dim/degree");
    if (!(constants.diffusion > 0) || !(constants.reaction >= 0))
      throw std::invalid_argument("CartesianLaplaceOperator: the coefficient must be positive and the reaction "
                                  "coefficient non-negative");
    const KroneckerScaling scaling = kronecker_scaling(level, constants);
    coef_                          = scaling.direction;
    shift_                         = scaling.shift; // c M: c Π h_d times the reference masses
    robin_ = robin_faces_for(level, level.robin_faces & ~level.dirichlet_faces, backend, std::move(robin_),
                             "CartesianLaplaceOperator");
  }

  template <int dim, int degree, typename Number>
  void CartesianLaplaceOperator<dim, degree, Number>::vmult(Vector<Number> &dst, const Vector<Number> &src) const
  {
    if (src.size() != size() || src.backend() != backend_)
      throw std::invalid_argument("CartesianLaplaceOperator::vmult: source vector does not fit");
    if constexpr (degree == 1)
      if (level_.dirichlet_faces == all_faces) // (the stencil's rows are those of interior nodes)
        {
          // Q1: the stencil kernel writes every node (boundary rows copied), no atomics
          dst.reinit(size(), backend_, false);
          auto kern = make_laplace_stencil<dim, Number>(matrices_.mass, matrices_.stiffness, coef_, shift_);
          kern.src  = src.data();
          kern.dst  = dst.data();
          for (int d = 0; d < 3; ++d)
            kern.nodes[d] = level_.nodes(d);
          launch(backend_, kern, kern.shape());
          return;
        }
    dst.reinit(size(), backend_);
    apply_cells(dst.data(), src.data(), Number(1), nullptr);
  }

  template <int dim, int degree, typename Number>
  bool CartesianLaplaceOperator<dim, degree, Number>::diagonal(Vector<Number> &d) const
  {
    laplace_diagonal(level_, backend_, false, d, constants_);
    if (robin_)
      add_robin_diagonal<dim, degree>(*robin_, d.data());
    return true;
  }

  template <int dim, int degree, typename Number>
  void CartesianLaplaceOperator<dim, degree, Number>::residual(Vector<Number> &r, const Vector<Number> &b,
                                                               const Vector<Number> &x) const
  {
    if (degree == 1 &&
        level_.dirichlet_faces == all_faces) // the stencil kernel writes A x outright: a pass r = b - A x after it
      return LinearOperator<Number>::residual(r, b, x);
    if (x.size() != size() || x.backend() != backend_ || b.size() != size() || b.backend() != backend_)
      throw std::invalid_argument("CartesianLaplaceOperator::residual: vectors do not fit");
    r.reinit(size(), backend_, false);
    r.copy_from(b);
    apply_cells(r.data(), x.data(), Number(-1), b.data());
  }

  template <int dim, int degree, typename Number>
  bool CartesianLaplaceOperator<dim, degree, Number>::apply_in_two_steps(Vector<Number> &dst, const Vector<Number> &src,
                                                                         const Vector<Number>        *b,
                                                                         const CellSplit             &split,
                                                                         const std::function<void()> &between) const
  {
    if (degree == 1 && level_.dirichlet_faces == all_faces) // (the stencil kernel: no cells)
      return false;
    if (src.size() != size() || src.backend() != backend_ || (b && (b->size() != size() || b->backend() != backend_)))
      throw std::invalid_argument("CartesianLaplaceOperator::apply_in_two_steps: vectors do not fit");
    if (b)
      {
        dst.reinit(size(), backend_, false);
        dst.copy_from(*b);
      }
    else
      dst.reinit(size(), backend_);
    apply_cells(dst.data(), src.data(), Number(b ? -1 : 1), b ? b->data() : nullptr, &split, between);
    return true;
  }

  template <int dim, int degree, typename Number>
  void CartesianLaplaceOperator<dim, degree, Number>::apply_cells(Number *dst, const Number *src, Number sign,
                                                                  const Number *boundary_b, const CellSplit *split,
                                                                  const std::function<void()> &between) const
  {
    const auto &c     = coef_;
    auto        cells = [&](auto natural, const CellBox *box) {
      using Kernel = CartesianLaplaceKernel<dim, degree, Number, decltype(natural)::value>;
      Kernel kern;
      kern.src = src;
      kern.dst = dst;
      for (int d = 0; d < 3; ++d)
        {
          kern.cells[d] = d < dim ? level_.cells[d] : 1;
          kern.nodes[d] = level_.nodes(d);
          kern.coef[d]  = sign * Number(c[d]); // every term carries one c_d or s: the sign goes with them
        }
      kern.shift     = sign * Number(shift_);
      kern.n_cells   = level_.n_cells();
      kern.grid      = CellGrid(kern.cells, "Laplace operator");
      kern.mass      = make_small_matrix<Number, degree + 1, degree + 1>(matrices_.mass);
      kern.stiffness = make_small_matrix<Number, degree + 1, degree + 1>(matrices_.stiffness);
      kern.set_faces(level_.dirichlet_faces);
      launch_cells(backend_, kern, &Kernel::n_cells, dim, level_.offset_parity(), box);
    };
    auto run = [&](const CellBox *box) {
      if (level_.dirichlet_faces == all_faces)
        cells(std::false_type{}, box);
      else
        cells(std::true_type{}, box);
    };
    const CellBox computed = operator_cells(level_);
    if (split)
      for (const CellBox &box : split->near)
        run(&box);
    else
      run(computed.count() < level_.n_cells() ? &computed : nullptr);
    if (robin_)
      apply_robin_faces<dim, degree>(*robin_, dst, src, sign);

    // constrained rows: the identity (dst = src), in a residual b - src; the cells add nothing
    // there, so the rows are final before the inner cells
    CopyBoundaryLines<Number> copy{src, dst,        {level_.nodes(0), level_.nodes(1), level_.nodes(2)},
                                   dim, boundary_b, level_.dirichlet_faces};
    forall(backend_, copy.count(), copy);
    if (split)
      {
        between();
        run(&split->inner);
      }
  }

} // namespace tpmg
