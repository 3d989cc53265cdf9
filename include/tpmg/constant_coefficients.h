// The coefficients of −∇·(a ∇u) + c u where both are numbers, as the Kronecker-form operator
// and the Cartesian patch problems take them (tpmg/geometry.h's Coefficients::constants makes
// them from the expressions), and the one rule that scales the unit-width 1D matrices by them.
#pragma once

#include <tpmg/mesh.h>

#include <array>

namespace tpmg
{
  /// a and c as numbers, where neither depends on the position: the Kronecker-form operator
  /// (`cartesian`) and the Cartesian patch problems carry them exactly, as a factor of the
  /// stiffness and a multiple of the mass (the fast diagonalization's eigenvalue sums shift by
  /// c Π h_d, since its eigenvectors make every 1D mass the identity).
  struct ConstantCoefficients
  {
    double diffusion = 1; ///< a
    double reaction  = 0; ///< c
    bool   laplacian() const { return diffusion == 1 && reaction == 0; }
  };

  /// How a level's Kronecker-form operator scales the unit-width 1D matrices K and M:
  ///   A = Σ_d direction[d] (K ⊗ M ⊗ M along d) + shift (M ⊗ M ⊗ M),
  /// direction[d] = a (1/h_d) Π_{e≠d} h_e and shift = c Π_d h_d. The level operator, the vertex
  /// patches' eigenvalue sums and the level's fast diagonalization all take it from here.
  struct KroneckerScaling
  {
    std::array<double, 3> direction{{0, 0, 0}};
    double                shift = 0;
  };

  inline KroneckerScaling kronecker_scaling(const CartesianLevel &level, const ConstantCoefficients &constants = {})
  {
    KroneckerScaling s;
    s.shift = constants.reaction;
    for (int d = 0; d < level.dim; ++d)
      {
        double c = 1.0 / level.h[std::size_t(d)];
        for (int e = 0; e < level.dim; ++e)
          if (e != d)
            c *= level.h[std::size_t(e)];
        s.direction[std::size_t(d)] = c * constants.diffusion;
        s.shift *= level.h[std::size_t(d)];
      }
    return s;
  }
} // namespace tpmg
