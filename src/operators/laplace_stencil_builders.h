// The host side of the k = 1 stencil kernel (kernels/operators/laplace_stencil.h): its weights
// from the 1D element matrices, shared with the k = 1 patch smoother's tile kernel.
#pragma once

#include <tpmg/fe_1d.h>

#include <kernels/operators/laplace_stencil.h>

#include <array>

namespace tpmg
{
  /// The 3^dim weights (offsets -1..1, x fastest) of c_x A⊗M⊗M + c_y M⊗A⊗M (+ c_z M⊗M⊗A)
  /// + s M⊗M(⊗M) at a vertex, from the vertex rows m, a (offsets -1, 0, 1) of the 1D mass and
  /// stiffness; s = c Π h_d for a constant reaction coefficient c. Shared by the Q1 operator and
  /// the k = 1 patch smoother (patch_smoother_tile.h).
  template <int dim, typename Number>
  void vertex_stencil(const double (&m)[3], const double (&a)[3], const std::array<double, 3> &coef, double shift,
                      Number *w)
  {
    for (int q = 0; q < (dim == 3 ? 27 : 9); ++q)
      {
        const int x = q % 3, y = (q / 3) % 3, z = q / 9;
        w[q] = Number(dim == 3 ? coef[0] * a[x] * m[y] * m[z] + coef[1] * m[x] * a[y] * m[z] +
                                   coef[2] * m[x] * m[y] * a[z] + shift * m[x] * m[y] * m[z]
                               : coef[0] * a[x] * m[y] + coef[1] * m[x] * a[y] + shift * m[x] * m[y]);
      }
  }

  /// The k = 1 stencil of a level: 1D element matrices on the unit interval (`mass`,
  /// `stiffness`, 2×2) assembled to the vertex row, scaled per direction by `coef`.
  template <int dim, typename Number>
  LaplaceStencilKernel<dim, Number> make_laplace_stencil(const Matrix1D &mass, const Matrix1D &stiffness,
                                                         const std::array<double, 3> &coef, double shift = 0)
  {
    LaplaceStencilKernel<dim, Number> kern{};
    // row of an interior vertex: left cell's last row, both cells' shared diagonal, right cell's first row
    const double m[3] = {mass(1, 0), mass(1, 1) + mass(0, 0), mass(0, 1)};
    const double a[3] = {stiffness(1, 0), stiffness(1, 1) + stiffness(0, 0), stiffness(0, 1)};
    vertex_stencil<dim>(m, a, coef, shift, kern.constants.w);
    return kern;
  }
} // namespace tpmg
