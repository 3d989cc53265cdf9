// One step of the exact solve of a Kronecker-form level problem by fast diagonalization,
// x_I = (S_2 ⊗ S_1 ⊗ S_0) Λ⁻¹ (S_2 ⊗ S_1 ⊗ S_0)ᵀ b_I: a contraction of a 3-index tensor with
// a 1D matrix along one direction (src/multigrid/fast_diagonalization.h chains 2 dim of them).
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>

namespace tpmg
{
  /// Where entry (i0, i1, i2) of a 3-index tensor lies in memory: offset + Σ_d i_d stride[d].
  /// The level vector's unknowns (the nodes off the Dirichlet faces) and a compact work tensor
  /// are both such layouts, so a step reads and writes either without an index map.
  struct TensorLayout3
  {
    index_t         offset    = 0;
    index_t         stride[3] = {0, 0, 0};
    TPMG_HD index_t operator()(index_t i0, index_t i1, index_t i2) const
    {
      return offset + i0 * stride[0] + i1 * stride[1] + i2 * stride[2];
    }
  };

  /// out(j) = Σ_a M(j_d, a) in(j with j_d = a) along d = `direction`, for every j of the
  /// extent[0] × extent[1] × extent[2] tensor (one j per call); M(i, a) at matrix[a m + i]
  /// (m = extent[d]), so that neighbouring j along d read neighbouring entries. With
  /// `eigenvalues` (the last step towards the eigenbasis) the result is divided by
  /// shift + Σ_d eigenvalues[d][j_d], the eigenvalue of the mode j.
  template <typename Number>
  struct FastDiagonalizationStep
  {
    const Number *matrix = nullptr;
    const Number *in     = nullptr;
    Number       *out    = nullptr;
    TensorLayout3 in_layout, out_layout;
    index_t       extent[3] = {1, 1, 1};
    int           direction = 0;
    /// per direction (null beyond the dimension), or all null: no division
    const Number *eigenvalues[3] = {nullptr, nullptr, nullptr};
    Number        shift          = 0;

    TPMG_HD void operator()(index_t i) const
    {
      index_t j[3];
      j[0]            = i % extent[0];
      const index_t r = i / extent[0];
      j[1]            = r % extent[1];
      j[2]            = r / extent[1];
      const index_t m = extent[direction], row = j[direction];
      j[direction]       = 0;
      const Number *src  = in + in_layout(j[0], j[1], j[2]);
      const index_t step = in_layout.stride[direction];
      Number        s    = 0;
      for (index_t a = 0; a < m; ++a)
        s += matrix[a * m + row] * src[a * step];
      j[direction] = row;
      if (eigenvalues[0])
        {
          Number lambda = shift;
          for (int d = 0; d < 3; ++d)
            if (eigenvalues[d])
              lambda += eigenvalues[d][j[d]];
          s /= lambda;
        }
      out[out_layout(j[0], j[1], j[2])] = s;
    }
  };
} // namespace tpmg
