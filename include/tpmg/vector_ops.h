// BLAS-1 style operations on Vector, on the vector's backend.
#pragma once

#include <tpmg/vector.h>

#include <array>
#include <vector>

namespace tpmg
{
  template <typename N>
  void axpy(N a, const Vector<N> &x, Vector<N> &y); ///< y += a x
  template <typename N>
  void sadd(N s, N a, const Vector<N> &x, Vector<N> &y); ///< y = s y + a x
  template <typename To, typename From>
  void convert(const Vector<From> &x, Vector<To> &y); ///< y = x (precision change)
  template <typename N>
  double dot(const Vector<N> &x, const Vector<N> &y); ///< accumulated in double
  template <typename N>
  double sum(const Vector<N> &x); ///< Σ x_i, accumulated in double
  template <typename N>
  void add(N c, Vector<N> &y); ///< y_i += c for every i (ghost copies included)
  /// w += a x, then returns (w, v) of the updated w, or (w, w) for v = nullptr: one pass over
  /// w, x and v (modified Gram-Schmidt: each orthogonalization fused with the next dot product).
  template <typename N>
  double axpy_dot(N a, const Vector<N> &x, Vector<N> &w, const Vector<N> *v = nullptr);
  template <typename N>
  double norm_l2(const Vector<N> &x);
  template <typename N>
  index_t count_non_finite(const Vector<N> &x);
  template <typename N>
  std::array<double, 2> min_max(const Vector<N> &x); ///< {min_i x_i, max_i x_i} over every rank's owned entries
  template <typename N>
  void equ(N a, const Vector<N> &x, Vector<N> &y); ///< y = a x

  /// Modified Gram-Schmidt of w against v[0..j]: h[i] = (w, v[i]) with w -= h[i] v[i] in turn,
  /// then h[j + 1] = ‖w‖ (w is not scaled); each projection fused with the next dot product
  /// (axpy_dot): j + 2 reductions, the same bits as calling axpy_dot in turn. On a level that is
  /// not split over ranks each coefficient stays in the backend's memory, in `slots` (2 (j + 2)
  /// values, resized here), where the next kernel reads it: the host waits once, not j + 2 times.
  template <typename N>
  void modified_gram_schmidt(const std::vector<Vector<N>> &v, int j, Vector<N> &w, double *h, Vector<double> &slots);
  /// y += Σ_{c < count} a[c] v[c], one pass over y and up to 8 of the v[c] at a time (GMRES's
  /// solution update: j + 2 vector passes instead of 3j).
  template <typename N>
  void multi_axpy(const double *a, const std::vector<Vector<N>> &v, int count, Vector<N> &y);
  /// multi_axpy, and returns ‖y‖ of the result (its last pass computes the norm).
  template <typename N>
  double multi_axpy_norm(const double *a, const std::vector<Vector<N>> &v, int count, Vector<N> &y);
  /// out[c] = (w, v[c]) for c < count: one pass over w per 8 of the v[c], and one reduction over
  /// the ranks for all of them (GMRES's classical Gram-Schmidt).
  template <typename N>
  void multi_dot(const std::vector<Vector<N>> &v, int count, const Vector<N> &w, double *out);
} // namespace tpmg
