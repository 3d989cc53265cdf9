// The coefficients of −∇·(a ∇u) + c u where both are numbers, as the Kronecker-form operator
// and the Cartesian patch problems take them (tpmg/geometry.h's Coefficients::constants makes
// them from the expressions).
#pragma once

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
} // namespace tpmg
