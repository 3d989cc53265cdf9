// A level operator of a distributed run: the operator of a rank's stored part of the level
// (exact on the nodes the rank owns) followed by the ghost exchange, so that its results are
// the same on every rank that stores a node (box_layout.h). Where the part is large enough
// (Backend/Overlap exchanges; partition.h's split_cells) the exchange runs on the second stream
// beside the cells away from the shared faces, which the operator computes after it started.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/linear_operator.h>
#include <tpmg/partition.h>

#include <memory>
#include <stdexcept>

namespace tpmg
{
  template <typename Number>
  class DistributedOperator final : public LinearOperator<Number>
  {
  public:
    /// `op` acts on layout->level(), the rank's stored part; `overlap` says where its exchanges
    /// run beside its inner cells (overlap_exchanges of split_cells).
    DistributedOperator(std::unique_ptr<LinearOperator<Number>> op, std::shared_ptr<const BoxLayout> layout,
                        ExchangeOverlap overlap = ExchangeOverlap::never)
      : op_(std::move(op)), layout_(std::move(layout))
    {
      if (!op_ || !layout_ || op_->size() != layout_->size())
        throw std::invalid_argument("DistributedOperator: the operator does not act on the layout's part");
      if (layout_->stores())
        {
          split_   = split_cells(layout_->level());
          overlap_ = overlap_exchanges(split_, layout_->level(), layout_->backend(), overlap);
        }
    }

    /// dst = A src, exchanged in the ghost cells next to the rank's box (what the next operator
    /// application or smoothing step reads); src must be up to date there.
    void vmult(Vector<Number> &dst, const Vector<Number> &src) const override
    {
      apply(dst, src, nullptr, GhostLayers::one);
    }
    /// r = b - A x, exchanged in all ghost layers: the restriction reads them.
    void residual(Vector<Number> &r, const Vector<Number> &b, const Vector<Number> &x) const override
    {
      apply(r, x, &b, GhostLayers::all);
    }
    /// Whether the exchanges run beside the inner cells.
    bool    overlapped() const { return overlap_; }
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
    void apply(Vector<Number> &dst, const Vector<Number> &src, const Vector<Number> *b, GhostLayers layers) const
    {
      if (overlap_ && op_->apply_in_two_steps(dst, src, b, split_, [&] {
            dst.set_layout(layout_);
            layout_->start_update_ghosts(dst, layers);
          }))
        {
          layout_->finish_ghost_update();
          return;
        }
      if (b)
        op_->residual(dst, *b, src);
      else
        op_->vmult(dst, src);
      dst.set_layout(layout_);
      layout_->update_ghosts(dst, layers);
    }

    std::unique_ptr<LinearOperator<Number>> op_;
    std::shared_ptr<const BoxLayout>        layout_;
    CellSplit                               split_;
    bool                                    overlap_ = false;
  };
} // namespace tpmg
