// BP1, the mass operator v = Bᵀ (w|J|) B u, in 3D after the interpolation to the points
// (BPOperatorKernel::interpolate_3d): the geometric factor along z fibers, then Bᵀ along z, x, y
// and the scatter along y.
#pragma once

#include <kernels/operators/bp_operator.h>

namespace tpmg
{
  template <int dim, int k, typename Number, BakeOff kind, GeometryMode geo, bool reaction_term>
  template <int phase, class Array, class MapArray>
  TPMG_HD TPMG_FORCEINLINE void
  BPOperatorKernel<dim, k, Number, kind, geo, reaction_term>::mass_3d(int a, int b, index_t cell,
                                                                      const index_t (&c0)[3], Array &X0, Array &X1,
                                                                      Array &X2, MapArray &Map, Registers &reg) const
  {
    Number un[n], v[nq];
    if constexpr (phase == 3)
      {
        // times w|J| along the z fiber, Bᵀ along z: (nq, nq, n)
        load<2>(X2, a, b, v);
        const FactorColumn fc = factor_column(cell, reg.cc, a, b, Map);
        TPMG_UNROLL
        for (int q = 0; q < nq; ++q)
          {
            Number jw;
            fc.at(q, &jw);
            v[q] *= jw;
          }
        integrate(v, un);
        store<2>(X0, a, b, un);
      }
    else if constexpr (phase == 4)
      {
        if (b < n)
          integrate_fiber<0>(X0, X1, a, b); // (n, nq, n)
      }
    else
      {
        if (a < n && b < n)
          {
            load<1>(X1, a, b, v);
            integrate(v, un);
            scatter<1>(c0, a, b, un);
          }
      }
  }
} // namespace tpmg
