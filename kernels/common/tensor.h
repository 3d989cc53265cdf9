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

  /// One step of a sum factorization in a thread's registers: gather a fiber of C values
  /// (`read(j)`), apply a 1D operator to it (`apply(in, out)`, R values out) and scatter the
  /// result (`write(i, value)`). A kernel phase is this step with the addresses of its fibers;
  /// the callables inline, so it compiles to the loops written out. fiber_apply is its first
  /// half, for a scatter whose addresses are best computed after the arithmetic.
  template <typename Number, int C, int R, class Read, class Apply>
  TPMG_HD TPMG_FORCEINLINE void fiber_apply(Read &&read, Apply &&apply, Number (&out)[R])
  {
    Number in[C];
    TPMG_UNROLL
    for (int j = 0; j < C; ++j)
      in[j] = read(j);
    apply(in, out);
  }
  template <typename Number, int C, int R, class Read, class Apply, class Write>
  TPMG_HD TPMG_FORCEINLINE void fiber_step(Read &&read, Apply &&apply, Write &&write)
  {
    Number out[R];
    fiber_apply<Number, C>(read, apply, out);
    TPMG_UNROLL
    for (int i = 0; i < R; ++i)
      write(i, out[i]);
  }
  /// The 1D operator of a fiber_step that copies (a direction without a contraction).
  struct CopyFiber
  {
    template <typename Number, int n>
    TPMG_HD TPMG_FORCEINLINE void operator()(const Number (&in)[n], Number (&out)[n]) const
    {
      TPMG_UNROLL
      for (int i = 0; i < n; ++i)
        out[i] = in[i];
    }
  };

  /// Rows i < R of two 1D operators against a fiber u in registers, (M u)_i and (N u)_i, handed to
  /// put(i, Mu, Nu): a cell kernel's first direction, carrying a function and its derivative
  /// (or its mass and stiffness products) along.
  template <int R, int C, typename Number, class MatM, class MatN, class Put>
  TPMG_HD TPMG_FORCEINLINE void contract_pair(const MatM &M, const MatN &N, const Number (&u)[C], Put &&put)
  {
    TPMG_UNROLL
    for (int i = 0; i < R; ++i)
      {
        Number a = 0, b = 0;
        TPMG_UNROLL
        for (int j = 0; j < C; ++j)
          {
            a += M(i, j) * u[j];
            b += N(i, j) * u[j];
          }
        put(i, a, b);
      }
  }
  /// The next direction of such a pair: one row of M and N (`m(j)`, `n(j)`) against the fiber s
  /// of the function's values and of M against the fiber ds of its derivative, all read through
  /// callables (shared memory): ms = Σ m s, ns = Σ n s, mds = Σ m ds.
  template <int C, typename Number, class RowM, class RowN, class Fiber, class DFiber>
  TPMG_HD TPMG_FORCEINLINE void contract_row_pair(RowM &&m, RowN &&n, Fiber &&s, DFiber &&ds, Number &ms, Number &ns,
                                                  Number &mds)
  {
    ms = ns = mds = 0;
    TPMG_UNROLL
    for (int j = 0; j < C; ++j)
      {
        const Number sj = s(j);
        const Number mj = m(j);
        ms += mj * sj;
        ns += n(j) * sj;
        mds += mj * ds(j);
      }
  }

  /// A k×k (or rows×cols) matrix of compile-time size, held by value in a kernel's arguments
  /// or constants (so in the constant bank on the GPU), or a compile-time constant (the fiber
  /// kernels' 1D data): use it where all threads read the same entry.
  template <typename Number, int rows, int cols = rows>
  struct SmallMatrix
  {
    Number                   v[rows * cols];
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
  /// registers with half the FMAs (the even-odd decomposition of Świrydowicz, Chalmers, Karakus and
  /// Warburton's tensor-product kernels and deal.II's
  /// EvaluatorTensorProduct<evaluate_symmetric>): with e_j = u_j + u_{C-1-j}, o_j = u_j - u_{C-1-j},
  ///   ev_i = Σ_j E(i, j) e_j (+ M(i, mid) u_mid for odd C),  od_i = Σ_j O(i, j) o_j,
  ///   out_i = ev_i + od_i,  out_{R-1-i} = parity (ev_i - od_i)    for i < R/2,
  /// and for odd R the middle row is ev (parity +1) or od (parity -1) alone.
  template <typename Number, int R, int C>
  struct EvenOddMatrix
  {
    static constexpr int hr = (R + 1) / 2, hc = C / 2;
    Number               e[hr][(C + 1) / 2];     ///< ½ (M(i, j) + M(i, C-1-j)); column hc: M(i, hc)
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

  /// An n × n matrix (n odd) whose first ne = (n+1)/2 columns are even vectors,
  /// S(n-1-i, a) = S(i, a), and whose other no = n/2 columns are odd, S(n-1-i, a) = -S(i, a):
  /// the eigenvectors of a 1D problem that is symmetric about its middle node, ordered by
  /// parity (patch_data_1d). Only the upper halves of the columns are stored, and S and Sᵀ act
  /// on a fiber with ne² + no² FMAs and 2·no additions instead of n² FMAs (n = 13: 85 + 12
  /// instead of 169). Unlike EvenOddMatrix, rows and columns are not both mirrored.
  template <typename Number, int n>
  struct ParityColumns
  {
    static_assert(n % 2 == 1, "a middle node");
    static constexpr int ne = (n + 1) / 2, no = n / 2, mid = n / 2;
    Number               e[ne][ne];                           ///< e[i][a] = S(i, a), i <= mid
    Number               o[no > 0 ? no : 1][no > 0 ? no : 1]; ///< o[i][a] = S(i, ne + a), i < mid

    /// From an n × n matrix with that parity (host side or at compile time; `S(i, a)` callable).
    template <typename Src>
    static constexpr ParityColumns from(const Src &S)
    {
      ParityColumns p{};
      for (int i = 0; i <= mid; ++i)
        for (int a = 0; a < ne; ++a)
          p.e[i][a] = Number(S(i, a));
      for (int i = 0; i < mid; ++i)
        for (int a = 0; a < no; ++a)
          p.o[i][a] = Number(S(i, ne + a));
      return p;
    }
  };

  namespace internal
  {
    /// out[g][o + a] = Σ_{i < m} H[i][a] in[g][i], a < m: one parity half of Sᵀ (ParityColumns)
    template <int m, int o, typename Number, int R, int C, int G, int n_in, int n_out>
    TPMG_HD TPMG_FORCEINLINE void parity_half_transposed(const Number (&H)[R][C], const Number (&in)[G][n_in],
                                                         Number (&out)[G][n_out])
    {
      TPMG_UNROLL
      for (int a = 0; a < m; ++a)
        {
          Number v[G] = {};
          TPMG_UNROLL
          for (int i = 0; i < m; ++i)
            {
              TPMG_UNROLL
              for (int g = 0; g < G; ++g)
                v[g] += H[i][a] * in[g][i];
            }
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            out[g][o + a] = v[g];
        }
    }
  } // namespace internal

  /// out = Sᵀ in for G fibers: even modes from the sums in_i + in_{n-1-i}, odd modes from the
  /// differences. The fiber index is the inner loop, so each entry of S feeds G FMAs.
  template <typename Number, int n, int G>
  TPMG_HD TPMG_FORCEINLINE void apply_parity_columns_transposed(const ParityColumns<Number, n> &S,
                                                                const Number (&in)[G][n], Number (&out)[G][n])
  {
    using P = ParityColumns<Number, n>;
    Number s[G][P::ne], d[G][P::no > 0 ? P::no : 1];
    TPMG_UNROLL
    for (int g = 0; g < G; ++g)
      {
        TPMG_UNROLL
        for (int i = 0; i < P::mid; ++i)
          {
            s[g][i] = in[g][i] + in[g][n - 1 - i];
            d[g][i] = in[g][i] - in[g][n - 1 - i];
          }
        s[g][P::mid] = in[g][P::mid];
      }
    internal::parity_half_transposed<P::ne, 0>(S.e, s, out);
    internal::parity_half_transposed<P::no, P::ne>(S.o, d, out);
  }

  /// out = S in for G fibers: the even modes give the symmetric part of each node pair, the
  /// odd modes the antisymmetric part.
  template <typename Number, int n, int G>
  TPMG_HD TPMG_FORCEINLINE void apply_parity_columns(const ParityColumns<Number, n> &S, const Number (&in)[G][n],
                                                     Number (&out)[G][n])
  {
    using P = ParityColumns<Number, n>;
    TPMG_UNROLL
    for (int i = 0; i <= P::mid; ++i)
      {
        Number ev[G] = {}, od[G] = {};
        TPMG_UNROLL
        for (int a = 0; a < P::ne; ++a)
          {
            TPMG_UNROLL
            for (int g = 0; g < G; ++g)
              ev[g] += S.e[i][a] * in[g][a];
          }
        if (i < P::mid)
          {
            TPMG_UNROLL
            for (int a = 0; a < P::no; ++a)
              {
                TPMG_UNROLL
                for (int g = 0; g < G; ++g)
                  od[g] += S.o[i][a] * in[g][P::ne + a];
              }
          }
        TPMG_UNROLL
        for (int g = 0; g < G; ++g)
          {
            if (i < P::mid)
              {
                out[g][i]         = ev[g] + od[g];
                out[g][n - 1 - i] = ev[g] - od[g];
              }
            else
              out[g][i] = ev[g];
          }
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
  /// The layout of a tensor of extents (E0, E1, E2) in shared memory (CuTe-style): entry
  /// (i0, i1, i2) at O + i0 + S1 i1 + S2 i2, one tensor (a cell's or a patch's) in `size` words,
  /// so that the tensors of a block lie `size` apart. Strides beyond the extents are padding
  /// against bank conflicts (the padded layouts: patch_layout.h, bp_layouts.h, TransferLayout);
  /// O > 0 makes a view into a larger tensor (PatchLayouts). A 2D tensor has E2 = 1 (and any S2,
  /// 0 making the third index vanish at compile time).
  template <int E0_, int E1_, int E2_, int S1_, int S2_, int O = 0, int size_ = 0>
  struct TensorLayout
  {
    static_assert(S1_ >= E0_ && (E2_ == 1 || S2_ >= S1_ * E1_),
                  "strides shorter than the extents (no conflict-free layout found)");
    static constexpr int         E0 = E0_, E1 = E1_, E2 = E2_, S1 = S1_, S2 = S2_;
    static constexpr int         size = size_ ? size_ : E2 > 1 ? S2 *E2 : S1 *E1; ///< words one tensor occupies
    static TPMG_HD constexpr int at(int i0, int i1, int i2 = 0) { return O + i0 + S1 * i1 + S2 * i2; }
  };
} // namespace tpmg
