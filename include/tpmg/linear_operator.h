// Run-time interface of level operators (cartesian, bp3, bp5 are chosen at run time).
#pragma once

#include <tpmg/vector.h>
#include <tpmg/vector_ops.h>

#include <functional>

namespace tpmg
{
  struct CellSplit; // tpmg/partition.h

  /// A square operator on Vector<Number>: what the solvers, the smoothers and the multigrid
  /// levels apply.
  template <typename Number>
  class LinearOperator
  {
  public:
    virtual ~LinearOperator() = default;
    /// dst = A src (dst is resized as needed)
    virtual void    vmult(Vector<Number> &dst, const Vector<Number> &src) const = 0;
    virtual index_t size() const                                                = 0;
    /// The layout of the level the operator acts on where it is one of a distributed run's
    /// (its vectors then carry it, box_layout.h); null for an operator on a plain array.
    virtual const std::shared_ptr<const BoxLayout> &layout() const
    {
      static const std::shared_ptr<const BoxLayout> none;
      return none;
    }
    /// The operator's diagonal (1 on the identity rows of the boundary) into d, resized as needed,
    /// where the operator knows it without assembly; false otherwise (d untouched). For the
    /// Jacobi part of the Chebyshev smoother.
    virtual bool diagonal(Vector<Number> &d) const
    {
      (void)d;
      return false;
    }
    /// r = b - A x (r is resized as needed); operators that can fold the subtraction into
    /// their kernel override it (saves the vector pass over A x, b and r)
    virtual void residual(Vector<Number> &r, const Vector<Number> &b, const Vector<Number> &x) const
    {
      vmult(r, x);
      sadd(Number(-1), Number(1), b, r);
    }
    /// vmult (or residual with `b`) in two steps around `between`: first the cells of
    /// split.near and whatever else the operator does but the cells of split.inner, so that
    /// every value off the nodes of inner's cells is final; then between(); then the inner cells'
    /// terms, added to their nodes. For an exchange that runs beside the inner cells
    /// (DistributedOperator). False where the operator cannot (dst untouched, between not called).
    virtual bool apply_in_two_steps(Vector<Number> &dst, const Vector<Number> &src, const Vector<Number> *b,
                                    const CellSplit &split, const std::function<void()> &between) const
    {
      (void)dst, (void)src, (void)b, (void)split, (void)between;
      return false;
    }
  };
} // namespace tpmg
