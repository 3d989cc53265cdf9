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

  /// A 1D matrix M (R × C) with M(R-1-i, C-1-j) = parity · M(i, j), the symmetry of the basis
  /// and derivative matrices on points symmetric about 1/2 (parity +1 for B and Bᵀ, -1 for D
  /// and Dᵀ), split into its even and odd parts so that a thread applies it to a fiber in
  /// registers with half the FMAs (the even-odd decomposition; seed 000, deal.II's
  /// EvaluatorTensorProduct<evaluate_symmetric>): with e_j = u_j + u_{C-1-j}, o_j = u_j - u_{C-1-j},
  ///   ev_i = Σ_j E(i, j) e_j (+ M(i, mid) u_mid for odd C),  od_i = Σ_j O(i, j) o_j,
  ///   out_i = ev_i + od_i,  out_{R-1-i} = parity (ev_i - od_i)    for i < R/2,
  /// and for odd R the middle row is ev (parity +1) or od (parity -1) alone.
  template <typename Number, int R, int C>
  struct EvenOddMatrix
  {
    static constexpr int hr = (R + 1) / 2, hc = C / 2;
    Number               e[hr][(C + 1) / 2]; ///< ½ (M(i, j) + M(i, C-1-j)); column hc: M(i, hc)
    Number               o[hr][hc > 0 ? hc : 1]; ///< ½ (M(i, j) - M(i, C-1-j))

    /// From a row-major R × C matrix (host side).
    template <typename Src>
    static EvenOddMatrix from(const Src &m)
    {
      EvenOddMatrix s{};
      for (int i = 0; i < hr; ++i)
        {
          for (int j = 0; j < hc; ++j)
            {
              s.e[i][j] = Number(0.5 * (m(i, j) + m(i, C - 1 - j)));
              s.o[i][j] = Number(0.5 * (m(i, j) - m(i, C - 1 - j)));
            }
          if (C % 2)
            s.e[i][hc] = Number(m(i, hc));
        }
      return s;
    }
  };

  /// out = M in for a fiber in registers, through the even-odd parts of M.
  template <int parity, typename Number, int R, int C>
  TPMG_HD TPMG_FORCEINLINE void apply_even_odd(const EvenOddMatrix<Number, R, C> &M, const Number (&in)[C],
                                               Number (&out)[R])
  {
    constexpr int hc = C / 2, hr = R / 2;
    Number        e[(C + 1) / 2], o[hc > 0 ? hc : 1];
    TPMG_UNROLL
    for (int j = 0; j < hc; ++j)
      {
        e[j] = in[j] + in[C - 1 - j];
        o[j] = in[j] - in[C - 1 - j];
      }
    if constexpr (C % 2 == 1)
      e[hc] = in[hc];
    TPMG_UNROLL
    for (int i = 0; i < (R + 1) / 2; ++i)
      {
        const bool middle = i == hr; // odd R: the middle row has only one part
        Number     ev = 0, od = 0;
        if (!middle || parity > 0)
          {
            TPMG_UNROLL
            for (int j = 0; j < (C + 1) / 2; ++j)
              ev += M.e[i][j] * e[j];
          }
        if (!middle || parity < 0)
          {
            TPMG_UNROLL
            for (int j = 0; j < hc; ++j)
              od += M.o[i][j] * o[j];
          }
        out[i] = ev + od;
        if (!middle)
          out[R - 1 - i] = parity > 0 ? ev - od : od - ev;
      }
  }

  /// out = M in (or Mᵀ in) with the full matrix, the reference for apply_even_odd.
  template <bool transpose, typename Number, int MR, int MC, int R, int C>
  TPMG_HD TPMG_FORCEINLINE void apply_full(const SmallMatrix<Number, MR, MC> &M, const Number (&in)[C],
                                           Number (&out)[R])
  {
    static_assert(transpose ? (MR == C && MC == R) : (MR == R && MC == C), "matrix and fibers do not fit");
    TPMG_UNROLL
    for (int i = 0; i < R; ++i)
      {
        Number s = 0;
        TPMG_UNROLL
        for (int j = 0; j < C; ++j)
          s += (transpose ? M(j, i) : M(i, j)) * in[j];
        out[i] = s;
      }
  }
} // namespace tpmg
