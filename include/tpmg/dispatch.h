// Run-time to compile-time dispatch of dimension and degree.
#pragma once

#include <tpmg/config.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tpmg
{
  namespace internal
  {
    template <int first, int last, class F>
    decltype(auto) dispatch_int(int value, F &&f)
    {
      if constexpr (first == last)
        return f(std::integral_constant<int, first>{});
      else
        {
          if (value == first)
            return f(std::integral_constant<int, first>{});
          return dispatch_int<first + 1, last>(value, std::forward<F>(f));
        }
    }
  } // namespace internal

  /// Calls f(std::integral_constant<int, k>) for k = degree in [1, max_deg].
  template <int max_deg = max_degree, class F>
  decltype(auto) dispatch_degree(int degree, F &&f)
  {
    if (degree < 1 || degree > max_deg)
      throw std::invalid_argument("polynomial degree " + std::to_string(degree) + " is outside 1.." +
                                  std::to_string(max_deg));
    return internal::dispatch_int<1, max_deg>(degree, std::forward<F>(f));
  }

  /// Calls f(std::integral_constant<int, dim>) for dim in {2, 3}.
  template <class F>
  decltype(auto) dispatch_dim(int dim, F &&f)
  {
    if (dim != 2 && dim != 3)
      throw std::invalid_argument("dimension must be 2 or 3, not " + std::to_string(dim));
    return internal::dispatch_int<2, 3>(dim, std::forward<F>(f));
  }

  /// Calls f(D, K) (std::integral_constant dimension and degree) for dimension 2 and 3 and every
  /// degree the multigrid solver is built for in it (max_solver_degree).
  template <class F>
  void for_each_solver_degree(F &&f)
  {
    for (int dim : {2, 3})
      for (int k = 1; k <= max_solver_degree(dim); ++k)
        dispatch_dim(dim, [&](auto D) {
          dispatch_degree(k, [&](auto K) {
            if constexpr (decltype(K)::value <= max_solver_degree(std::decay_t<decltype(D)>::value))
              f(D, K);
          });
        });
  }
  /// The same for the given degrees alone (those the solver has in each dimension).
  template <typename F>
  void for_each_solver_degree(std::initializer_list<int> degrees, F &&f)
  {
    for_each_solver_degree([&](auto D, auto K) {
      if (std::find(degrees.begin(), degrees.end(), int(decltype(K)::value)) != degrees.end())
        f(D, K);
    });
  }
} // namespace tpmg
