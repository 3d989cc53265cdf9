// Dense direct coarse solve: x_I = A_II^{-1} b_I with the precomputed inverse, one row per
// thread. Unknown i of a level (the nodes off its Dirichlet faces) maps to its global index
// arithmetically.
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
    /// the unknowns per direction: count[d] nodes from first[d] (1 and nodes - 2 between
    /// Dirichlet faces; 0 and 1 beyond the dimension)
    index_t first[3], count[3];

    /// The map for a level of `nodes` per direction whose Dirichlet faces are `constrained`.
    static DenseCoarseSolve on(const index_t (&nodes)[3], int dim, unsigned constrained)
    {
      DenseCoarseSolve s{};
      for (int d = 0; d < 3; ++d)
        {
          s.nodes[d] = nodes[d];
          s.first[d] = d < dim && (constrained >> (2 * d) & 1u) ? 1 : 0;
          s.count[d] = d < dim ? nodes[d] - s.first[d] - ((constrained >> (2 * d + 1) & 1u) ? 1 : 0) : 1;
        }
      s.n = s.count[0] * s.count[1] * s.count[2];
      return s;
    }

    TPMG_HD index_t global(index_t i) const
    {
      const index_t i0 = i % count[0], r = i / count[0];
      const index_t i1 = r % count[1], i2 = r / count[1];
      return (first[0] + i0) + nodes[0] * ((first[1] + i1) + nodes[1] * (first[2] + i2));
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
