// Geometry-fitted surrogates of the vertex-patch problems on deformed meshes (docs/method.md,
// "Fitted patch solves"): each patch is replaced by the patch of a Cartesian, non-uniform tensor
// grid whose cell widths are fitted to the deformed cells, so that its inverse is a fast
// diagonalization again (kernels/smoothers/patch_fitted.h).
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/mesh.h>

#include <array>
#include <vector>

namespace tpmg
{
  /// The two-cell 1D patch matrices ((2k+1)², all nodes) for cell widths a (left) and b (right):
  /// mass a M̂ ⊕ b M̂ and stiffness K̂/a ⊕ K̂/b from the unit-cell matrices.
  void two_cell_patch_matrices(int k, bool lumped_mass, double a, double b, Matrix1D &mass, Matrix1D &stiffness);

  /// The generalized eigenpairs K S = M S Λ, Sᵀ M S = I, of the interior blocks of the two-cell
  /// patch matrices with widths (1, r), for ratios r = 2^(j/steps_per_octave - octaves),
  /// j = 0..n-1 (r from 2^-octaves to 2^octaves; r = 1 is row j = n/2). A patch with widths
  /// (a, a r) has the eigenvectors S(1, r)/√a and eigenvalues Λ(1, r)/a².
  struct FittedRatioTable
  {
    static constexpr int octaves = 4, steps_per_octave = 64, n = 2 * octaves * steps_per_octave + 1;
    int                  k           = 1;
    bool                 lumped_mass = false;
    std::vector<double>  eigenvectors; ///< n × ni × ni (row = node, column = mode)
    std::vector<double>  eigenvalues;  ///< n × ni
    /// The row of the ratio nearest to r in log scale (clamped to the table's range).
    static int    row(double r);
    static double ratio(int row);
  };
  FittedRatioTable fitted_ratio_table(int k, bool lumped_mass);

  /// The widths of one patch's surrogate: in direction d, a[d] (left cell) and a[d] ratio(row[d])
  /// (right cell); the surrogate's matrix is `scale` times the Laplacian of that grid (the mean
  /// coefficient of the patch's cells, 1 without a coefficient) plus `reaction` times its mass
  /// matrix (the mean reaction coefficient, 0 without one). The mass is the identity in the
  /// eigenbasis of every direction, so the reaction only shifts the eigenvalue sums.
  struct FittedPatchWidths
  {
    std::array<int, 3>    row{{FittedRatioTable::n / 2, FittedRatioTable::n / 2, FittedRatioTable::n / 2}};
    std::array<double, 3> a{{1, 1, 1}};
    double                scale    = 1;
    double                reaction = 0;
  };

  /// The fitted widths of every cell of `level` (deformed by `s`), dim numbers per cell
  /// (lexicographic cells): with Ḡ the cell average of G = |J| J⁻¹ J⁻ᵀ, a Cartesian cell of
  /// widths h has Ḡ_dd = Π_e h_e / h_d², so in 3D h_d = √(Ḡ_ee Ḡ_ff) ({d, e, f} = {x, y, z}); in
  /// 2D Ḡ fixes the aspect ratio only, and the widths take the cell's area: h_x = √(|K| Ḡ_yy),
  /// h_y = √(|K| Ḡ_xx). Exact on undeformed cells. With `largest_shear`, also the largest
  /// off-diagonal term of Ḡ against its diagonal over the cells, max |Ḡ_de| / √(Ḡ_dd Ḡ_ee)
  /// (d ≠ e): 0 on boxes and mapped cells whose edges meet at right angles, towards 1 on sheared
  /// cells; the coupling a separable surrogate leaves out (fitted_chebyshev_polynomial).
  /// The points' factors are computed on `backend` (geometric_factors_on in
  /// src/discretization/level_mesh.h: the GPU's kernel where the solver runs there).
  std::vector<double> fitted_cell_widths(const CartesianLevel &level, const DeformationSettings &s,
                                         double *largest_shear = nullptr, Backend backend = Backend::cpu);

  /// What the surrogates read per cell of a level (lexicographic cells): the fitted widths
  /// (fitted_cell_widths, dim per cell) and the cells' mean coefficient and reaction coefficient
  /// (∫_K a / |K| with Gauss 3 points per direction; 1 and 0 without them). Made once per level for the interior and
  /// the face patches; the cells' largest shear (fitted_cell_widths) and, where a coefficient
  /// varies in space, its largest contrast within a patch: over the vertex patches, the ratio of
  /// the largest to the smallest cell scale a_K / h_K² + c_K among the patch's cells (h_K² the
  /// squared geometric mean of the fitted widths). A surrogate holds one scale per patch (the
  /// means), so this is what it misses of the coefficients (fitted_chebyshev_polynomial); 1 where
  /// the coefficients are constant.
  struct FittedCellData
  {
    std::vector<double> widths, diffusion, reaction;
    double              shear    = 0;
    double              contrast = 1;
  };
  FittedCellData fitted_cell_data(const CartesianLevel &level, const DeformationSettings &s,
                                  const Coefficients &coefficients = {}, Backend backend = Backend::cpu);

  /// The surrogate widths of the patch around every vertex of `level` ((cells + 1) per direction,
  /// lexicographic; boundary vertices get the defaults): in direction d the mean fitted width of the
  /// 2^(dim-1) cells on each side, a and b, with the ratio rounded to the table's nearest, r̃, and
  /// the left width a√(b/(a r̃)) so that the product of the two widths stays ab. With a
  /// coefficient the scale is the mean of the cells' coefficient means over the patch's 2^dim cells: the
  /// separable surrogate of a patch whose cells carry (near) constant coefficients; the widths stay
  /// the geometry's (in 2D a uniform scaling of the widths leaves the Laplacian unchanged, so the
  /// coefficient cannot hide in them). The reaction is the same mean of the reaction coefficient.
  std::vector<FittedPatchWidths> fitted_patch_widths(const CartesianLevel &level, const DeformationSettings &s,
                                                     const Coefficients &coefficients = {});
  /// The same from the level's cell data.
  std::vector<FittedPatchWidths> fitted_patch_widths(const CartesianLevel &level, const FittedCellData &cells);

  /// The surrogate of a vertex patch on the Neumann and Robin faces of a deformed level
  /// (kernels/smoothers/patch_fitted.h, FittedBoundaryPatchSolve): per direction its kind (0 both
  /// cells, 1 on a lower face with the cell above, 2 on an upper face with the cell below, as the
  /// Cartesian boundary patches'), the width a_d (kind 0: the left cell's, the right one a_d
  /// times the ratio of table row row[d]; else the one cell's) and on a Robin face β_d = α̅ a_d / σ
  /// (α̅ the patch's mean α, its 1D stiffness K̂ + β e eᵀ); the scale σ and reaction γ as an
  /// interior patch's, over the patch's cells.
  struct FittedBoundaryPatch
  {
    index_t               vertex = 0; ///< lexicographic among the level's vertices
    std::array<int, 3>    kind{{0, 0, 0}};
    std::array<int, 3>    row{{FittedRatioTable::n / 2, FittedRatioTable::n / 2, FittedRatioTable::n / 2}};
    std::array<double, 3> a{{1, 1, 1}};
    std::array<double, 3> beta{{0, 0, 0}};
    double                scale    = 1;
    double                reaction = 0;
  };

  /// The surrogates of the patches on `level`'s Neumann and Robin faces (boundary_patch_vertices'
  /// patches, by colour): in each direction the mean fitted width of the patch's cells on each
  /// side (fitted_cell_widths), an interior direction's ratio rounded to the table as for the
  /// interior patches; on a Robin face f, α̅ = Σ ∫_F α / Σ |F̃| over the patch's cells on f, with
  /// `robin_integrals`[f] the level's per face cell ∫ α (RobinFaces::cell_integrals; null where f
  /// is no Robin face) and |F̃| the face cell's fitted area (the product of its tangential
  /// widths), so that the surrogate's face term integrates what the level's does.
  std::array<std::vector<FittedBoundaryPatch>, 8>
  fitted_boundary_patches(const CartesianLevel &level, const DeformationSettings &s, const Coefficients &coefficients,
                          const std::array<const std::vector<double> *, 6> &robin_integrals);
  /// The same from the level's cell data.
  std::array<std::vector<FittedBoundaryPatch>, 8>
  fitted_boundary_patches(const CartesianLevel &level, const FittedCellData &cells,
                          const std::array<const std::vector<double> *, 6> &robin_integrals);

  /// The dense matrix of one boundary patch's surrogate over its unknowns (lexicographic, per
  /// direction 2k - 1 unknowns of kind 0 and k of the others): the tests' reference.
  std::vector<double> fitted_boundary_patch_matrix(int dim, int k, bool lumped_mass, const FittedBoundaryPatch &p);

  /// The 1D eigenpairs of direction d of boundary patch p at unit width (the degree and mass of
  /// `table`; an interior direction's are its table row): (2k - 1)² vectors with rows of 2k - 1,
  /// the direction's unknowns, then 2k - 1 values, the unused padded with 0.
  std::vector<double> fitted_boundary_eigenpairs_1d(const FittedRatioTable &table, const FittedBoundaryPatch &p, int d);

  /// The dense interior matrix of one patch's surrogate (lexicographic, (2k-1)^dim rows): the
  /// reference the tests compare the fitted patch solve with.
  std::vector<double> fitted_patch_matrix(int dim, int k, bool lumped_mass, const FittedPatchWidths &w);
} // namespace tpmg
