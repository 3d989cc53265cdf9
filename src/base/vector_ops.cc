#include <tpmg/box_layout.h>
#include <tpmg/vector_ops.h>

#include <kernels/linear_algebra/vector_kernels.h>
#include <kernels/runtime/forall.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

    /// Σ_i term(i) over the entries this rank owns, summed over the ranks of the layout, in
    /// double-double arithmetic (double_double.h): the same result for any split of the level
    /// over the ranks. The ranks' partial sums are gathered and added in rank order on every rank.
    template <class Term>
    double reduce_owned(Backend backend, index_t n, const BoxLayout *layout, const Term &term)
    {
      if (!layout || layout->owns_all())
        {
          const DoubleDouble local = reduce_sum_accurate(backend, n, term);
          if (!layout || layout->comm().size() == 1)
            return local.value();
          return layout->comm().sum(local.value()); // a level on rank 0 alone: the others have 0
        }
      vector_kernels::OwnedNodes owned;
      for (int d = 0; d < 3; ++d)
        {
          owned.nodes[d] = layout->level().nodes(d);
          owned.begin[d] = layout->owned().begin[std::size_t(d)];
          owned.end[d]   = owned.begin[d] + layout->owned().extent[std::size_t(d)];
        }
      const DoubleDouble  local   = reduce_sum_accurate(backend, n, vector_kernels::Owned<Term>{term, owned});
      const Communicator &comm    = layout->comm();
      const double        pair[2] = {local.hi, local.lo};
      std::vector<double> all(2 * std::size_t(comm.size()));
      comm.all_gather(pair, 2, all.data());
      DoubleDouble sum;
      for (int r = 0; r < comm.size(); ++r)
        sum = sum + DoubleDouble{all[2 * std::size_t(r)], all[2 * std::size_t(r) + 1]};
      return sum.value();
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
  double axpy_dot(N a, const Vector<N> &x, Vector<N> &w, const Vector<N> *v)
  {
    check_compatible(x, w, "axpy_dot");
    if (v)
      check_compatible(*v, w, "axpy_dot");
    return reduce_owned(w.backend(), w.size(), layout_of(w, &x),
                        vector_kernels::AxpyDot<N>{a, x.data(), w.data(), v ? v->data() : nullptr});
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
  void equ(N a, const Vector<N> &x, Vector<N> &y)
  {
    check_compatible(x, y, "equ");
    forall(y.backend(), y.size(), vector_kernels::Equ<N>{a, x.data(), y.data()});
  }

  template <typename N>
  void multi_axpy(const double *a, const std::vector<Vector<N>> &v, int count, Vector<N> &y)
  {
    for (int first = 0; first < count; first += vector_kernels::multi_vectors)
      {
        vector_kernels::MultiAxpy<N> op{};
        op.count = std::min(count - first, vector_kernels::multi_vectors);
        op.y     = y.data();
        for (int c = 0; c < op.count; ++c)
          {
            check_compatible(v[first + c], y, "multi_axpy");
            op.a[c] = N(a[first + c]);
            op.v[c] = v[first + c].data();
          }
        forall(y.backend(), y.size(), op);
      }
  }

#define TPMG_INSTANTIATE(N)                                                           \
  template void    axpy<N>(N, const Vector<N> &, Vector<N> &);                        \
  template void    sadd<N>(N, N, const Vector<N> &, Vector<N> &);                     \
  template double  dot<N>(const Vector<N> &, const Vector<N> &);                      \
  template double  axpy_dot<N>(N, const Vector<N> &, Vector<N> &, const Vector<N> *); \
  template double  norm_l2<N>(const Vector<N> &);                                     \
  template index_t count_non_finite<N>(const Vector<N> &);                            \
  template void    equ<N>(N, const Vector<N> &, Vector<N> &);                         \
  template void    multi_axpy<N>(const double *, const std::vector<Vector<N>> &, int, Vector<N> &);
  TPMG_INSTANTIATE(float)
  TPMG_INSTANTIATE(double)
#undef TPMG_INSTANTIATE
  template void convert<float, double>(const Vector<double> &, Vector<float> &);
  template void convert<double, float>(const Vector<float> &, Vector<double> &);
  template void convert<float, float>(const Vector<float> &, Vector<float> &);
  template void convert<double, double>(const Vector<double> &, Vector<double> &);
} // namespace tpmg
