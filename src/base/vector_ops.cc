#include <tpmg/box_layout.h>
#include <tpmg/vector_ops.h>

#include <kernels/linear_algebra/vector_kernels.h>
#include <kernels/runtime/forall.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace tpmg
{
  namespace
  {
    template <typename A, typename B>
    void check_compatible(const A &x, const B &y, const char *op)
    {
      if (x.size() != y.size() || x.backend() != y.backend())
        throw std::invalid_argument(std::string(op) + ": vectors differ in size or backend");
      if (x.layout() && y.layout() && x.layout() != y.layout())
        throw std::invalid_argument(std::string(op) + ": vectors of different levels' layouts");
    }

    /// The layout of a reduction: the first operand's that has one (null: a plain array).
    template <typename N>
    const BoxLayout *layout_of(const Vector<N> &x, const Vector<N> *y = nullptr)
    {
      return x.layout() ? x.layout() : y ? y->layout() : nullptr;
    }

    /// The nodes a rank owns of its stored part, for the kernels.
    vector_kernels::OwnedNodes owned_nodes(const BoxLayout &layout)
    {
      vector_kernels::OwnedNodes owned;
      for (int d = 0; d < 3; ++d)
        {
          owned.nodes[d] = layout.level().nodes(d);
          owned.begin[d] = layout.owned().begin[std::size_t(d)];
          owned.end[d]   = owned.begin[d] + layout.owned().extent[std::size_t(d)];
        }
      owned.divide_fast();
      return owned;
    }

    /// Every rank's double-double sums added in rank order, on every rank (one gather for all):
    /// the result does not depend on how the level is split.
    void combine_over_ranks(const BoxLayout *layout, std::vector<DoubleDouble> &sums)
    {
      // (a level that is not split lives on one rank: its sums are that rank's alone)
      if (!layout || !layout->split() || sums.empty())
        return;
      const Communicator &comm = layout->comm();
      const std::size_t   m    = sums.size();
      std::vector<double> mine(2 * m), all(2 * m * std::size_t(comm.size()));
      for (std::size_t c = 0; c < m; ++c)
        {
          mine[2 * c]     = sums[c].hi;
          mine[2 * c + 1] = sums[c].lo;
        }
      comm.all_gather(mine.data(), int(2 * m), all.data());
      for (std::size_t c = 0; c < m; ++c)
        {
          DoubleDouble s;
          for (std::size_t r = 0; r < std::size_t(comm.size()); ++r)
            s = s + DoubleDouble{all[2 * (r * m + c)], all[2 * (r * m + c) + 1]};
          sums[c] = s;
        }
    }

    /// reduce(term) where this rank owns all its entries, else reduce of the term restricted to
    /// the owned ones: the terms of a reduction over a level's owned nodes.
    template <class Term, class Reduce>
    void over_owned(const BoxLayout *layout, const Term &term, const Reduce &reduce)
    {
      if (!layout || layout->owns_all()) // (a level on rank 0 alone: the others add nothing)
        reduce(term);
      else
        reduce(vector_kernels::Owned<Term>{term, owned_nodes(*layout)});
    }

    /// Σ_i term(i) over the entries this rank owns, summed over the ranks of the layout, in
    /// double-double arithmetic (double_double.h): the same result for any split of the level
    /// over the ranks.
    template <class Term>
    double reduce_owned(Backend backend, index_t n, const BoxLayout *layout, const Term &term)
    {
      std::vector<DoubleDouble> sum(1);
      over_owned(layout, term, [&](const auto &t) { sum[0] = reduce_sum_accurate(backend, n, t); });
      combine_over_ranks(layout, sum);
      return sum[0].value();
    }

    /// The pass of multi_axpy over the vectors [first, first + 8) of v.
    template <typename N>
    vector_kernels::MultiAxpy<N> multi_axpy_pass(const double *a, const std::vector<Vector<N>> &v, int count, int first,
                                                 Vector<N> &y)
    {
      vector_kernels::MultiAxpy<N> op{};
      op.count = std::max(0, std::min(count - first, vector_kernels::multi_vectors));
      op.y     = y.data();
      for (int c = 0; c < op.count; ++c)
        {
          check_compatible(v[std::size_t(first + c)], y, "multi_axpy");
          op.a[c] = N(a[first + c]);
          op.v[c] = v[std::size_t(first + c)].data();
        }
      return op;
    }
  } // namespace

  template <typename N>
  void axpy(N a, const Vector<N> &x, Vector<N> &y)
  {
    check_compatible(x, y, "axpy");
    forall(y.backend(), y.size(), vector_kernels::Axpy<N>{a, x.data(), y.data()});
  }

  template <typename N>
  void sadd(N s, N a, const Vector<N> &x, Vector<N> &y)
  {
    check_compatible(x, y, "sadd");
    forall(y.backend(), y.size(), vector_kernels::Sadd<N>{s, a, x.data(), y.data()});
  }

  template <typename To, typename From>
  void convert(const Vector<From> &x, Vector<To> &y)
  {
    check_compatible(x, y, "convert");
    forall(y.backend(), y.size(), vector_kernels::Convert<To, From>{x.data(), y.data()});
  }

  template <typename N>
  double dot(const Vector<N> &x, const Vector<N> &y)
  {
    check_compatible(x, y, "dot");
    return reduce_owned(x.backend(), x.size(), layout_of(x, &y), vector_kernels::DotTerm<N>{x.data(), y.data()});
  }

  template <typename N>
  double sum(const Vector<N> &x)
  {
    return reduce_owned(x.backend(), x.size(), x.layout(), vector_kernels::SumTerm<N>{x.data()});
  }

  template <typename N>
  void add(N c, Vector<N> &y)
  {
    forall(y.backend(), y.size(), vector_kernels::AddConstant<N>{c, y.data()});
  }

  template <typename N>
  double axpy_dot(N a, const Vector<N> &x, Vector<N> &w, const Vector<N> *v)
  {
    check_compatible(x, w, "axpy_dot");
    if (v)
      check_compatible(*v, w, "axpy_dot");
    return reduce_owned(w.backend(), w.size(), layout_of(w, &x),
                        vector_kernels::AxpyDot<N>{a, x.data(), w.data(), v ? v->data() : nullptr});
  }

  template <typename N>
  void modified_gram_schmidt(const std::vector<Vector<N>> &v, int j, Vector<N> &w, double *h, Vector<double> &slots)
  {
    const BoxLayout *layout = layout_of(w, &v[0]);
    if (layout && layout->split())
      {
        // every coefficient summed over the ranks on the host (combine_over_ranks)
        double next = dot(w, v[0]);
        for (int i = 0; i <= j; ++i)
          {
            h[i] = next;
            next = axpy_dot(N(-h[i]), v[std::size_t(i)], w, i < j ? &v[std::size_t(i) + 1] : nullptr);
          }
        h[j + 1] = std::sqrt(next);
        return;
      }
    const std::size_t count = std::size_t(j) + 2;
    if (slots.size() < index_t(2 * count) || slots.backend() != w.backend())
      slots.reinit(index_t(2 * count), w.backend(), false);
    auto *const sums = reinterpret_cast<DoubleDouble *>(slots.data());
    // the same terms as reduce_owned's (a part with ghost copies counts the nodes it owns)
    auto reduce_into = [&](const auto &term, DoubleDouble *out) {
      over_owned(layout, term, [&](const auto &t) { reduce_sum_accurate_into(w.backend(), w.size(), t, out); });
    };
    check_compatible(v[0], w, "modified_gram_schmidt");
    reduce_into(vector_kernels::DotTerm<N>{w.data(), v[0].data()}, &sums[0]);
    for (int i = 0; i <= j; ++i)
      {
        const Vector<N> *next = i < j ? &v[std::size_t(i) + 1] : nullptr;
        if (next)
          check_compatible(*next, w, "modified_gram_schmidt");
        reduce_into(
          vector_kernels::AxpyDotFrom<N>{&sums[i], v[std::size_t(i)].data(), w.data(), next ? next->data() : nullptr},
          &sums[i + 1]);
      }
    std::vector<DoubleDouble> host(count);
    copy_bytes(host.data(), Backend::cpu, sums, w.backend(), count * sizeof(DoubleDouble)); // the one wait
    for (std::size_t i = 0; i + 1 < count; ++i)
      h[i] = host[i].value();
    h[j + 1] = std::sqrt(host[count - 1].value());
  }

  template <typename N>
  double norm_l2(const Vector<N> &x)
  {
    return std::sqrt(dot(x, x));
  }

  template <typename N>
  index_t count_non_finite(const Vector<N> &x)
  {
    return index_t(reduce_owned(x.backend(), x.size(), x.layout(), vector_kernels::NonFinite<N>{x.data()}) + 0.5);
  }

  template <typename N>
  std::array<double, 2> min_max(const Vector<N> &x)
  {
    const BoxLayout *layout     = x.layout();
    const bool       owned_only = layout && !layout->owns_all();
    const auto       owned      = owned_only ? owned_nodes(*layout) : vector_kernels::OwnedNodes{};
    double           lowest =
      -reduce_max(x.backend(), x.size(), vector_kernels::SignedOwnedValue<N>{x.data(), -1.0, owned_only, owned});
    double highest =
      reduce_max(x.backend(), x.size(), vector_kernels::SignedOwnedValue<N>{x.data(), 1.0, owned_only, owned});
    if (layout && layout->split())
      {
        lowest  = -layout->comm().max(-lowest);
        highest = layout->comm().max(highest);
      }
    return {lowest, highest};
  }

  template <typename N>
  void equ(N a, const Vector<N> &x, Vector<N> &y)
  {
    check_compatible(x, y, "equ");
    forall(y.backend(), y.size(), vector_kernels::Equ<N>{a, x.data(), y.data()});
  }

  template <typename N>
  void multi_axpy(const double *a, const std::vector<Vector<N>> &v, int count, Vector<N> &y)
  {
    for (int first = 0; first < count; first += vector_kernels::multi_vectors)
      forall(y.backend(), y.size(), multi_axpy_pass(a, v, count, first, y));
  }

  template <typename N>
  double multi_axpy_norm(const double *a, const std::vector<Vector<N>> &v, int count, Vector<N> &y)
  {
    const int last = count > 0 ? (count - 1) / vector_kernels::multi_vectors * vector_kernels::multi_vectors : 0;
    for (int first = 0; first < last; first += vector_kernels::multi_vectors)
      forall(y.backend(), y.size(), multi_axpy_pass(a, v, count, first, y));
    return std::sqrt(
      std::max(0.0, reduce_owned(y.backend(), y.size(), y.layout(),
                                 vector_kernels::MultiAxpyNorm<N>{multi_axpy_pass(a, v, count, last, y)})));
  }

  template <typename N>
  void multi_dot(const std::vector<Vector<N>> &v, int count, const Vector<N> &w, double *out)
  {
    constexpr int             K = vector_kernels::multi_vectors;
    std::vector<DoubleDouble> sums(std::size_t(std::max(count, 0)));
    for (int first = 0; first < count; first += K)
      {
        vector_kernels::MultiDot<N> op{};
        op.count = std::min(count - first, K);
        op.w     = w.data();
        for (int c = 0; c < op.count; ++c)
          {
            check_compatible(v[first + c], w, "multi_dot");
            op.v[c] = v[first + c].data();
          }
        DoubleDouble     s[K];
        const BoxLayout *layout = layout_of(w, &v[first]);
        if (!layout || layout->owns_all())
          reduce_sum_accurate<K>(w.backend(), w.size(), op, s);
        else
          reduce_sum_accurate<K>(w.backend(), w.size(),
                                 vector_kernels::OwnedTerms<vector_kernels::MultiDot<N>, K>{op, owned_nodes(*layout)},
                                 s);
        for (int c = 0; c < op.count; ++c)
          sums[std::size_t(first + c)] = s[c];
      }
    const BoxLayout *layout = count > 0 ? layout_of(w, &v[0]) : w.layout();
    combine_over_ranks(layout, sums);
    for (int c = 0; c < count; ++c)
      out[c] = sums[std::size_t(c)].value();
  }

#define TPMG_INSTANTIATE(N)                                                                                            \
  template void                  axpy<N>(N, const Vector<N> &, Vector<N> &);                                           \
  template void                  sadd<N>(N, N, const Vector<N> &, Vector<N> &);                                        \
  template double                dot<N>(const Vector<N> &, const Vector<N> &);                                         \
  template double                sum<N>(const Vector<N> &);                                                            \
  template void                  add<N>(N, Vector<N> &);                                                               \
  template double                axpy_dot<N>(N, const Vector<N> &, Vector<N> &, const Vector<N> *);                    \
  template void                  modified_gram_schmidt<N>(const std::vector<Vector<N>> &, int, Vector<N> &, double *,  \
                                         Vector<double> &);                                           \
  template double                norm_l2<N>(const Vector<N> &);                                                        \
  template index_t               count_non_finite<N>(const Vector<N> &);                                               \
  template std::array<double, 2> min_max<N>(const Vector<N> &);                                                        \
  template void                  equ<N>(N, const Vector<N> &, Vector<N> &);                                            \
  template void                  multi_axpy<N>(const double *, const std::vector<Vector<N>> &, int, Vector<N> &);      \
  template double                multi_axpy_norm<N>(const double *, const std::vector<Vector<N>> &, int, Vector<N> &); \
  template void                  multi_dot<N>(const std::vector<Vector<N>> &, int, const Vector<N> &, double *);
  TPMG_INSTANTIATE(float)
  TPMG_INSTANTIATE(double)
#undef TPMG_INSTANTIATE
  template void convert<float, double>(const Vector<double> &, Vector<float> &);
  template void convert<double, float>(const Vector<float> &, Vector<double> &);
  template void convert<float, float>(const Vector<float> &, Vector<float> &);
  template void convert<double, double>(const Vector<double> &, Vector<double> &);
} // namespace tpmg
