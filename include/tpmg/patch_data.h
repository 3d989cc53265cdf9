// The 1D data of the vertex-patch problems (docs/method.md, "Fast diagonalization"), shared by
// the smoother, its kernels and the build-time table of the fiber kernels.
#pragma once

#include <tpmg/fe_1d.h>

#include <array>
#include <vector>

namespace tpmg
{
  /// Host-side 1D data of the patch problems: patch matrices ((2k+1)², reference width)
  /// and the generalized eigenpairs of their interior blocks, A S = M S Λ, Sᵀ M S = I.
  struct PatchData1D
  {
    Matrix1D            mass, stiffness, eigenvectors;
    std::vector<double> eigenvalues;
  };
  PatchData1D patch_data_1d(int degree, bool lumped_mass);

  /// Σ_d coef_d (⊗ of the interior blocks ((2k-1)², rows and columns 1..np-2) of mass[e] for e ≠ d
  /// and stiffness[d]) + shift ⊗_d mass[d]: the dense interior matrix of a separable patch problem
  /// (lexicographic), with a reaction term's mass where shift ≠ 0.
  std::vector<double> kronecker_interior_matrix(int dim, int ni, const std::array<const Matrix1D *, 3> &mass,
                                                const std::array<const Matrix1D *, 3> &stiffness,
                                                const std::array<double, 3> &coef, double shift = 0);

  /// The 1D data of the patches on Neumann faces (kernels/smoothers/boundary_patch.h,
  /// BoundaryPatchData1DLayout): for the patch directions with both cells, the cell above the
  /// vertex and the cell below, the reference mass and stiffness over the direction's patch nodes
  /// and the generalized eigenpairs of the unknowns' block (Sᵀ M S = I), padded to the layout.
  std::vector<double> boundary_patch_data_1d(int degree, bool lumped_mass);
  /// The eigenpairs of a patch direction on a Robin face (BoundaryPatchData1DLayout::robin_pair):
  /// those of K + β e eᵀ over the unknowns of the truncated kind t (1: a lower face, 2: an upper
  /// one; e the face's node, β = α̅ h, the patch's mean Robin coefficient times the cell width
  /// along the face's normal), vectors (rows of 2k - 1) then values.
  std::vector<double> robin_patch_eigenpairs_1d(int degree, bool lumped_mass, int t, double beta);

  /// Dense local matrix A_j (interior rows and columns of a patch, lexicographic), with `shift`
  /// times the mass (PatchProblem::coefficients: c Π h_d).
  std::vector<double> patch_interior_matrix(int dim, int degree, const std::array<double, 3> &coef, bool lumped_mass,
                                            double shift = 0);

} // namespace tpmg
