// A level operator of a distributed run: the operator of a rank's stored part of the level
// (exact on the nodes the rank owns) followed by the ghost exchange, so that its results are
// the same on every rank that stores a node (box_layout.h).
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/linear_operator.h>

#include <memory>
#include <stdexcept>

namespace tpmg
{
  template <typename Number>
  class DistributedOperator final : public LinearOperator<Number>
  {
  public:
    /// `op` acts on layout->level(), the rank's stored part.
    DistributedOperator(std::unique_ptr<LinearOperator<Number>> op, std::shared_ptr<const BoxLayout> layout)
      : op_(std::move(op)), layout_(std::move(layout))
    {
      if (!op_ || !layout_ || op_->size() != layout_->size())
        throw std::invalid_argument("DistributedOperator: the operator does not act on the layout's part");
    }

    /// dst = A src, exchanged in the ghost cells next to the rank's box (what the next operator
    /// application or smoothing step reads); src must be up to date there.
    void vmult(Vector<Number> &dst, const Vector<Number> &src) const override
    {
      op_->vmult(dst, src);
      dst.set_layout(layout_);
      layout_->update_ghosts(dst, GhostLayers::one);
    }
    /// r = b - A x, exchanged in all ghost layers: the restriction reads them.
    void residual(Vector<Number> &r, const Vector<Number> &b, const Vector<Number> &x) const override
    {
      op_->residual(r, b, x);
      r.set_layout(layout_);
      layout_->update_ghosts(r, GhostLayers::all);
    }
    index_t size() const override { return op_->size(); }
    /// The part's diagonal, exchanged in all ghost layers.
    bool diagonal(Vector<Number> &d) const override
    {
      if (!op_->diagonal(d))
        return false;
      d.set_layout(layout_);
      layout_->update_ghosts(d, GhostLayers::all);
      return true;
    }
    const std::shared_ptr<const BoxLayout> &layout() const override { return layout_; }
    /// The operator on the stored part alone (no exchange).
    const LinearOperator<Number> &local() const { return *op_; }

  private:
    std::unique_ptr<LinearOperator<Number>> op_;
    std::shared_ptr<const BoxLayout>        layout_;
  };
} // namespace tpmg
