// BP3 and BP5, the Laplacian v = Gᵀ (w|J| J⁻¹J⁻ᵀ) G u, in 3D: at the k+2 Gauss points after
// the interpolation (BPOperatorKernel::interpolate_3d), or at the k+1 Gauss-Lobatto nodes (B = I);
// with a reaction term also + Bᵀ (c w|J|) B u, added at the points of each z fiber.
#pragma once

#include <kernels/operators/bp_operator.h>

namespace tpmg
{
  /// BP3 after the interpolation and the x derivative: d/dy, d/dz and the flux, Dᵀ along z, y,
  /// x, then Bᵀ along x, y, z and the scatter along z.
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo, bool reaction_term>
  template <int phase, class Array, class MapArray>
  TPMG_HD TPMG_FORCEINLINE void BPOperatorKernel<dim, k, Number, kind, geo, reaction_term>::gauss_laplace_3d(
    int a, int b, index_t cell, const index_t (&c0)[3], Array &X0, Array &X1, Array &X2, MapArray &Map,
    Registers &reg) const
  {
    Number un[n], u[nq], v[nq], w[nq];
    if constexpr (phase == 3)
      derivative_fiber<1>(X0, X1, a, b); // d/dy
    else if constexpr (phase == 4)
      {
        // d/dz, the flux; Dᵀ_z of its z component replaces the values in X0
        load<2>(X0, a, b, u);
        derivative(u, w);
        flux_z(factor_column(cell, reg.cc, a, b, Map), a, b, w, X2, X1, v);
        derivative_t(v, w);
        // the values from X0 again (this fiber's, intact until the store below): holding u in
        // registers across the flux made BP3 without a reaction 4-10% slower (H200, k = 2..7)
        add_reaction(
          cell, reg.cc, a, b, [&](int q) { return X0[fiber_index<2>(a, b, q)]; }, w);
        store<2>(X0, a, b, w);
      }
    else if constexpr (phase == 5)
      {
        derivative_t_plus<1>(X1, X0, a, b, v);
        store<1>(X0, a, b, v);
      }
    else if constexpr (phase == 6)
      {
        // Dᵀ_x of the x component plus the rest, then Bᵀ along x: (n, nq, nq)
        derivative_t_plus<0>(X2, X0, a, b, v);
        integrate(v, un);
        store<0>(X1, a, b, un);
      }
    else if constexpr (phase == 7)
      {
        if (a < n)
          integrate_fiber<1>(X1, X2, a, b); // (n, n, nq)
      }
    else
      {
        if (a < n && b < n)
          {
            load<2>(X2, a, b, v);
            integrate(v, un);
            scatter<2>(c0, a, b, un);
          }
      }
    (void)u;
    (void)w;
  }

  /// BP5, B = I: derivatives of the nodal values along z (kept), y, x; flux; Dᵀ back. The y and x
  /// derivatives read X0 and write X1, X2, the transposes read X1 and X2 and write X0 and X2 (in
  /// place: a thread reads and writes only its own x fiber), so each pair shares a phase: two
  /// independent fibers per thread and 4 barriers (7 phases measured up to 2.5% slower;
  /// docs/performance/bp_operators.md).
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo, bool reaction_term>
  template <int phase, class Array, class MapArray>
  TPMG_HD TPMG_FORCEINLINE void BPOperatorKernel<dim, k, Number, kind, geo, reaction_term>::gll_laplace_3d(
    int a, int b, index_t cell, const index_t (&c0)[3], Array &X0, Array &X1, Array &X2, MapArray &Map,
    Registers &reg) const
  {
    Number u[nq], v[nq];
    if constexpr (phase == 0)
      {
        gather_z(c0, a, b, u);
        store<2>(X0, a, b, u);
        derivative(u, reg.a);
      }
    else if constexpr (phase == 1)
      {
        derivative_fiber<1>(X0, X1, a, b); // d/dy
        derivative_fiber<0>(X0, X2, a, b); // d/dx
      }
    else if constexpr (phase == 2)
      {
        flux_z(factor_column(cell, reg.cc, a, b, Map), a, b, reg.a, X2, X1, v);
        derivative_t(v, reg.a);
        // the nodal values stay in X0 until phase 3
        add_reaction(
          cell, reg.cc, a, b, [&](int q) { return X0[fiber_index<2>(a, b, q)]; }, reg.a);
      }
    else if constexpr (phase == 3)
      {
        derivative_fiber<1, true>(X1, X0, a, b);
        derivative_fiber<0, true>(X2, X2, a, b);
      }
    else
      {
        load<2>(X0, a, b, u);
        load<2>(X2, a, b, v);
        TPMG_UNROLL
        for (int q = 0; q < nq; ++q)
          u[q] += v[q] + reg.a[q];
        scatter<2>(c0, a, b, u);
      }
  }
} // namespace tpmg
