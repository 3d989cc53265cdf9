// Element-wise vector operations as forall functors (one body for CPU and GPU).
#pragma once

#include <limits>

#include <tpmg/config.h>
#include <tpmg/numbering.h>

#include <kernels/common/cell_grid.h>
#include <kernels/common/double_double.h>

namespace tpmg
{
  namespace vector_kernels
  {
    /// y += a x
    template <typename N>
    struct Axpy
    {
      N            a;
      const N     *x;
      N           *y;
      TPMG_HD void operator()(index_t i) const { y[i] += a * x[i]; }
    };

    /// y = s y + a x
    template <typename N>
    struct Sadd
    {
      N            s, a;
      const N     *x;
      N           *y;
      TPMG_HD void operator()(index_t i) const { y[i] = s * y[i] + a * x[i]; }
    };

    /// y = x in another precision
    template <typename To, typename From>
    struct Convert
    {
      const From  *x;
      To          *y;
      TPMG_HD void operator()(index_t i) const { y[i] = To(x[i]); }
    };

    /// y_i += c
    template <typename N>
    struct AddConstant
    {
      N            c;
      N           *y;
      TPMG_HD void operator()(index_t i) const { y[i] += c; }
    };

    /// x_i, accumulated in double by reduce_sum
    template <typename N>
    struct SumTerm
    {
      const N       *x;
      TPMG_HD double operator()(index_t i) const { return double(x[i]); }
    };

    /// y = a x
    template <typename N>
    struct Equ
    {
      N            a;
      const N     *x;
      N           *y;
      TPMG_HD void operator()(index_t i) const { y[i] = a * x[i]; }
    };

    /// Vectors that one pass of MultiAxpy reads besides its target.
    constexpr int multi_vectors = 8;

    /// y += Σ_{c < count} a_c v_c in one pass.
    template <typename N>
    struct MultiAxpy
    {
      N            a[multi_vectors];
      const N     *v[multi_vectors];
      int          count;
      N           *y;
      TPMG_HD void operator()(index_t i) const
      {
        N s = y[i];
        TPMG_UNROLL
        for (int c = 0; c < multi_vectors; ++c)
          if (c < count)
            s += a[c] * v[c][i];
        y[i] = s;
      }
    };

    /// y += Σ_{c < count} a_c v_c, and y_i² of the result: the last pass of a batched
    /// projection, with the norm of what is left (reduce_sum over i).
    template <typename N>
    struct MultiAxpyNorm
    {
      MultiAxpy<N>   update;
      TPMG_HD double operator()(index_t i) const
      {
        update(i);
        const double y = double(update.y[i]);
        return y * y;
      }
    };

    /// The terms w_i v_c,i of the inner products (w, v_c), c < count, for the sums of
    /// reduce_sum_accurate<multi_vectors> (one pass over w for up to multi_vectors of them).
    template <typename N>
    struct MultiDot
    {
      const N     *v[multi_vectors];
      int          count;
      const N     *w;
      TPMG_HD void operator()(index_t i, double (&t)[multi_vectors]) const
      {
        const double wi = double(w[i]);
        TPMG_UNROLL
        for (int c = 0; c < multi_vectors; ++c)
          t[c] = c < count ? wi * double(v[c][i]) : 0.0;
      }
    };

    /// x_i y_i, accumulated in double by reduce_sum
    template <typename N>
    struct DotTerm
    {
      const N       *x;
      const N       *y;
      TPMG_HD double operator()(index_t i) const { return double(x[i]) * double(y[i]); }
    };

    /// w += a x, and the term w_i v_i (v = nullptr: w_i²) of the updated w, accumulated in double
    /// by reduce_sum: one pass for an axpy and the dot product that follows it. Each i is
    /// transformed once (reduce_sum reads every item once), so w is updated once.
    template <typename N>
    struct AxpyDot
    {
      N              a;
      const N       *x;
      N             *w;
      const N       *v;
      TPMG_HD double operator()(index_t i) const
      {
        const N wi = w[i] + a * x[i];
        w[i]       = wi;
        return double(wi) * double(v ? v[i] : wi);
      }
    };

    /// AxpyDot with a = -c, c a sum in the backend's memory that an earlier reduction of the
    /// stream wrote (modified Gram-Schmidt without a wait on the host: modified_gram_schmidt).
    template <typename N>
    struct AxpyDotFrom
    {
      const DoubleDouble *c;
      const N            *x;
      N                  *w;
      const N            *v;
      TPMG_HD double      operator()(index_t i) const { return AxpyDot<N>{N(-c->value()), x, w, v}(i); }
    };

    /// Whether entry i of a rank's stored part of a level (nodes per direction `nodes`) is one
    /// of the nodes it owns, the box [begin, end).
    struct OwnedNodes
    {
      index_t nodes[3]{1, 1, 1};
      index_t begin[3]{0, 0, 0}, end[3]{1, 1, 1};
      /// The test without 64-bit divisions (divide_fast), which in a reduction cost several times
      /// the reading of the entries (a CPU core: 185 against 42 ms for a dot of 29 M doubles): a
      /// part owning whole planes of its stored nodes (split along z alone) owns one index range
      /// [first, last); other parts of fewer than 2^31 nodes find the coordinates by two
      /// multiply-highs (cell_grid.h's FastDivisor).
      FastDivisor row, plane;
      index_t     first = 0, last = 0;
      int         mode = 0; ///< 0: divisions, 1: one index range, 2: multiply-highs
      /// (host) takes the cheapest test the part allows
      void divide_fast()
      {
        if (begin[0] == 0 && end[0] == nodes[0] && begin[1] == 0 && end[1] == nodes[1])
          {
            first = begin[2] * nodes[0] * nodes[1];
            last  = end[2] * nodes[0] * nodes[1];
            mode  = 1;
          }
        else if (nodes[0] * nodes[1] * nodes[2] < (index_t(1) << 31))
          {
            row   = FastDivisor(nodes[0]);
            plane = FastDivisor(nodes[0] * nodes[1]);
            mode  = 2;
          }
      }
      TPMG_HD bool operator()(index_t i) const
      {
        if (mode == 1)
          return i >= first && i < last;
        index_t x, y, z;
        if (mode == 2)
          {
            const unsigned j = unsigned(i), zz = plane.quotient(j), r = j - zz * plane.d, yy = row.quotient(r);
            x = index_t(r - yy * row.d), y = index_t(yy), z = index_t(zz);
          }
        else
          {
            const index_t q = i / nodes[0];
            x = i - q * nodes[0], y = q % nodes[1], z = q / nodes[1];
          }
        return x >= begin[0] && x < end[0] && y >= begin[1] && y < end[1] && z >= begin[2] && z < end[2];
      }
    };

    /// A reduction term counted on the owned entries only (it is evaluated on every entry, so
    /// that the updates of AxpyDot reach the ghost copies too).
    template <class Term>
    struct Owned
    {
      Term           term;
      OwnedNodes     owned;
      TPMG_HD double operator()(index_t i) const
      {
        const double v = term(i);
        return owned(i) ? v : 0.0;
      }
    };

    /// The same for the K terms of a multiple sum.
    template <class Term, int K>
    struct OwnedTerms
    {
      Term         term;
      OwnedNodes   owned;
      TPMG_HD void operator()(index_t i, double (&t)[K]) const
      {
        term(i, t);
        if (!owned(i))
          for (int c = 0; c < K; ++c)
            t[c] = 0.0;
      }
    };

    /// max-free check for non-finite entries: 1 where x_i is NaN or inf
    template <typename N>
    struct NonFinite
    {
      const N       *x;
      TPMG_HD double operator()(index_t i) const
      {
        const N v = x[i];
        return (v - v != N(0)) ? 1.0 : 0.0;
      }
    };

    /// sign x_i on the owned entries (all entries without `owned_only`), -inf elsewhere: the
    /// terms of max (sign 1) and -min (sign -1).
    template <typename N>
    struct SignedOwnedValue
    {
      const N       *x;
      double         sign;
      bool           owned_only;
      OwnedNodes     owned;
      TPMG_HD double operator()(index_t i) const
      {
        return !owned_only || owned(i) ? sign * double(x[i]) : -std::numeric_limits<double>::infinity();
      }
    };
  } // namespace vector_kernels
} // namespace tpmg
