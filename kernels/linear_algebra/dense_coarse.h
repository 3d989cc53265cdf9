// Dense direct coarse solve: x_I = A_II^{-1} b_I with the precomputed inverse, one row per
// thread. Interior node i of a level maps to its global index arithmetically.
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>

namespace tpmg
{
  template <typename Number>
  struct DenseCoarseSolve
  {
    const Number *inverse; ///< n × n, row-major
    const Number *b;
    Number       *x;
    index_t       n;
    index_t       nodes[3]; ///< level nodes per direction

    TPMG_HD index_t global(index_t i) const
    {
      const index_t i0 = i % (nodes[0] - 2), r = i / (nodes[0] - 2);
      const index_t i1 = nodes[1] > 1 ? r % (nodes[1] - 2) : 0;
      const index_t i2 = nodes[1] > 1 ? r / (nodes[1] - 2) : 0;
      return (i0 + 1) + nodes[0] * ((i1 + 1) + nodes[1] * (nodes[2] > 1 ? i2 + 1 : 0));
    }
    TPMG_HD void operator()(index_t row) const
    {
      Number s = 0;
      for (index_t j = 0; j < n; ++j)
        s += inverse[row * n + j] * b[global(j)];
      x[global(row)] = s;
    }
  };
} // namespace tpmg
