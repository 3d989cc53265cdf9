// The exact coarse solve of a Cartesian level by fast diagonalization (docs/method.md, "Coarse
// solve"). The level operator in Kronecker form (tpmg/laplace_operator.h),
//   A = Σ_d a c_d (K_d ⊗ M_e ⊗ M_f) + c Π_d h_d (M_2 ⊗ M_1 ⊗ M_0)   (c_d = Π_{e≠d} h_e / h_d),
// with the assembled unit-width 1D mass and stiffness matrices M_d, K_d restricted to the
// unknowns along d, is diagonalized by the 1D generalized eigenvectors K_d S_d = M_d S_d Λ_d,
// S_dᵀ M_d S_d = I:  A⁻¹ = S Λ⁻¹ Sᵀ with S = S_2 ⊗ S_1 ⊗ S_0 and Λ = Σ_d a c_d Λ_d + c Π h_d.
// Applied as 2 dim contractions of the level's unknowns along one direction each
// (FastDiagonalizationStep): m_d multiply-adds per unknown and step, no dense matrix, and a
// setup of dim eigenproblems of m_d unknowns. Whole levels only (not a rank's part), without
// periodic directions or Robin faces, and not singular (coarse_solve_by_fast_diagonalization in
// tpmg/multigrid.h says where it applies).
#pragma once

#include <tpmg/constant_coefficients.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <kernels/linear_algebra/dense_coarse.h>
#include <kernels/linear_algebra/fast_diagonalization.h>

#include <cstddef>

namespace tpmg
{
  /// The unknowns of a whole level: the nodes off its Dirichlet faces. The one rule that the
  /// fast diagonalization's extents, a rank's coarse unknowns and the dense coarse problem take.
  inline CoarseUnknowns level_unknowns(const CartesianLevel &level)
  {
    const index_t nodes[3] = {level.nodes(0), level.nodes(1), level.nodes(2)};
    return CoarseUnknowns::on(nodes, level.dim, level.dirichlet_faces);
  }

  /// The unknowns along d of a whole level.
  inline index_t fast_diagonalization_unknowns(const CartesianLevel &level, int d)
  {
    return level_unknowns(level).count[d];
  }

  /// Bytes a LevelFastDiagonalization of `level` holds (the memory check before setup): two
  /// work tensors and, per direction, the two 1D matrices and the eigenvalues.
  std::size_t fast_diagonalization_memory_bytes(const CartesianLevel &level, std::size_t number_bytes);

  template <typename Number>
  class LevelFastDiagonalization
  {
  public:
    /// The 1D eigenpairs of `level` (whole, Cartesian) for −∇·(a ∇u) + c u with these constants.
    LevelFastDiagonalization(const CartesianLevel &level, const ConstantCoefficients &constants, Backend backend);

    /// x_I = A_II⁻¹ b_I on the unknowns; x's other entries (the Dirichlet nodes) are left as they are.
    void solve(Vector<Number> &x, const Vector<Number> &b) const;

    /// The unknowns per direction (1 beyond the dimension).
    index_t extent(int d) const { return extent_[d]; }
    index_t unknowns() const { return extent_[0] * extent_[1] * extent_[2]; }

  private:
    Backend                backend_;
    int                    dim_;
    index_t                extent_[3] = {1, 1, 1};
    TensorLayout3          level_layout_;   ///< the unknowns in a level vector
    TensorLayout3          compact_;        ///< the work tensors
    Vector<Number>         towards_[3];     ///< Sᵀ along d: entry (i, a) = S_d(a, i) at [a m + i]
    Vector<Number>         back_[3];        ///< S along d: entry (i, a) = S_d(i, a) at [a m + i]
    Vector<Number>         eigenvalues_[3]; ///< a c_d Λ_d
    Number                 shift_ = 0;      ///< c Π h_d
    mutable Vector<Number> work_[2];
  };
} // namespace tpmg
