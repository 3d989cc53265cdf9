// Run-time interface of level operators (cartesian, bp3, bp5 are chosen at run time).
#pragma once

#include <tpmg/vector.h>

namespace tpmg
{
  template <typename Number>
  class LinearOperator
  {
  public:
    virtual ~LinearOperator() = default;
    /// dst = A src (dst is resized as needed)
    virtual void    vmult(Vector<Number> &dst, const Vector<Number> &src) const = 0;
    virtual index_t size() const = 0;
  };
} // namespace tpmg
