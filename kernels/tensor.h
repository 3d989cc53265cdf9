// Small compile-time helpers for tensor-product kernels.
#pragma once

#include <tpmg/config.h>

namespace tpmg
{
  template <int base, int exponent>
  constexpr int ipow()
  {
    if constexpr (exponent == 0)
      return 1;
    else
      return base * ipow<base, exponent - 1>();
  }

  TPMG_HD constexpr int cmax(int a, int b) { return a > b ? a : b; }
  TPMG_HD constexpr int cmin(int a, int b) { return a < b ? a : b; }

  /// A k×k (or rows×cols) matrix of compile-time size held by value in a kernel's arguments
  /// (so in the constant bank on the GPU): use it where all threads read the same entry.
  template <typename Number, int rows, int cols = rows>
  struct SmallMatrix
  {
    Number v[rows * cols];
    TPMG_HD constexpr Number operator()(int i, int j) const { return v[i * cols + j]; }
  };

  /// Fill a SmallMatrix from a row-major double array (host side).
  template <typename Number, int rows, int cols, typename Src>
  SmallMatrix<Number, rows, cols> make_small_matrix(const Src &m)
  {
    SmallMatrix<Number, rows, cols> s{};
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        s.v[i * cols + j] = Number(m(i, j));
    return s;
  }
} // namespace tpmg
