// Deformed-mesh geometry for the CEED bake-off operators (BP1 mass, BP3/BP5 Laplacian):
// smooth deformations of a level's box, deformed vertex coordinates, and the geometric
// factors at the quadrature points of the multilinear cell maps.
#pragma once

#include <tpmg/constant_coefficients.h>
#include <tpmg/expression.h>
#include <tpmg/fe_1d.h>
#include <tpmg/mesh.h>
#include <tpmg/options.h>

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpmg
{
  // GeometryMode (tpmg/options.h): where an operator's geometric factors come from: `stored` per quadrature point (any
  // mapping; 6 numbers per point for the Laplacian), computed `on_the_fly` from each cell's
  // 2^d vertices (multilinear cells, as every deformation here produces), or, for the mass
  // operator only, w|J| along each column of quadrature points (all reference coordinates
  // fixed but the last, t) stored as the `polynomial` in t it is on a multilinear cell: |J|
  // has degree d-1 in each reference coordinate (J's column c does not depend on ξ_c and is
  // affine in the others), so d values per column, at the nodes t = 0, ½, 1 (2D 0, 1), replace
  // the column's k+2 factors (3D: 3 (k+2)² numbers per cell instead of (k+2)³). The
  // Laplacian's factors are rational in t, so that mode is the mass operator's.

  // column_polynomial_numbers (tpmg/option_enums.h): the numbers per cell of that mode.

  // Deformation (tpmg/options.h): how the vertices of a Cartesian level are moved.
  //   none:    identity.
  //   sine:    with ξ_d = (x_d - a_d)/L_d ∈ [0,1] on the level's box [a, a+L] (L_d = h_d cells_d),
  //            x'_d = x_d + amplitude L_d Π_e sin(π ξ_e) (e over the dim directions); the identity on
  //            the boundary. The map's Jacobian determinant is 1 + amplitude π f(ξ) with
  //            min f = -1 (2D) and -2/√3 (3D), so it is invertible for amplitude < 1/π ≈ 0.318 (2D)
  //            and < √3/(2π) ≈ 0.276 (3D); amplitude must be in [0, 0.3] (2D) or [0, 0.27] (3D).
  //   kershaw: the generalized Kershaw transformation of the CEED benchmarks with ε = amplitude
  //            in (0,1] (1 = identity): x is unchanged; the x-range is split into 6 equal layers;
  //            the other coordinates (normalized t) are mapped by L_ε in layer 0, by R_ε in layer 5,
  //            blended linearly from L_ε to R_ε in layers 1 and 4 (layer-local coordinate) and
  //            from R_ε to L_ε across layers 2-3, with R_ε(t) = (2-ε) t for t <= 1/2,
  //            1 + ε (t-1) otherwise, and L_ε(t) = 1 - R_ε(1-t). Needs cells_x % 6 == 0 and even
  //            cells_y (and cells_z in 3D) so that all kinks lie on cell faces; then the
  //            multilinear cell maps reproduce the transformation exactly. Maps every boundary face
  //            onto itself but is not the identity on the faces.
  //   function: the user's map (x, y, z) -> (X, Y, Z) of the box's points, one expression per
  //            component (Mesh/Deformation function). With Mapping::exact (its default) every cell
  //            is the exact image of its box cell: positions and Jacobians at each point from the
  //            map and its symbolic derivatives (J = DF diag(h)); with Mapping::multilinear the
  //            cells are multilinear through the mapped vertices, as for sine and Kershaw.


  struct DeformationSettings
  {
    Deformation type      = Deformation::none;
    double      amplitude = 0.0;
    /// function: the components X, Y (, Z) of the map (make_deformation_map)
    std::vector<Expression> map{};
    Mapping                 mapping = Mapping::automatic;
  };

  /// Whether the cells are the exact images of the box's cells under a function map (else
  /// multilinear through the moved vertices, or the box).
  inline bool exact_mapping(const DeformationSettings &s)
  {
    return s.type == Deformation::function && s.mapping != Mapping::multilinear;
  }

  /// The map's components from "X; Y (; Z)" (components separated by ';' as deal.II's
  /// FunctionParser separates them), `dim` of them in x, y (, z); throws ExpressionError naming the
  /// component, std::invalid_argument for a wrong count.
  std::vector<Expression> make_deformation_map(const std::string &text, int dim);

  /// A function map's components F_r and then their derivatives ∂F_r/∂x_d at dim + r dim + d
  /// (symbolic): what the exact cells are computed from, on the host and in the kernels
  /// (problem_kernels::LevelMesh::map has this layout).
  std::vector<Expression> map_with_derivatives(const DeformationSettings &s, int dim);

  /// A point of the box where the map's Jacobian determinant det DF is not positive or not finite
  /// (sampled at `n` points per direction of the closed box, exact derivatives), described as
  /// "det DF = v at (x, y, z)"; "" where none is.
  std::string map_fold(const DeformationSettings &s, const std::array<double, 3> &lower,
                       const std::array<double, 3> &upper, int dim, int n = 17);

  /// The largest sine amplitude the parameters accept in `dim` dimensions: the smooth map has
  /// det = 1 + amplitude π f(ξ) with min f = -1 in 2D and -2/√3 in 3D, so it folds at 1/π ≈ 0.318
  /// (2D) and √3/(2π) ≈ 0.276 (3D).
  constexpr double max_sine_amplitude(int dim) { return dim == 3 ? 0.27 : 0.3; }

  /// Throws std::invalid_argument when `s` is not valid on `level` (amplitude range, Kershaw
  /// divisibility of the cell counts). Called by all functions below.
  void check_deformation(const CartesianLevel &level, const DeformationSettings &s);

  /// The deformed position of point x of the level's box (z ignored and returned unchanged in 2D).
  std::array<double, 3> deformed_point(const CartesianLevel &level, const DeformationSettings &s,
                                       const std::array<double, 3> &x);

  /// Deformed vertex coordinates of a level: (cells_x+1)(cells_y+1)(cells_z+1) vertices (2D: z
  /// extent 1), lexicographic x fastest, 3 doubles each (z = 0 in 2D).
  std::vector<double> deformed_vertices(const CartesianLevel &level, const DeformationSettings &s);

  /// The coefficient a(x) of −∇·(a ∇u) (Problem/Coefficient), a function of the physical
  /// (deformed) coordinates; none: a = 1, the operators without it.
  using Coefficient = std::optional<Expression>;
  /// The coefficient of `text` in `dim` dimensions: none for the constant 1 (the operators then
  /// run exactly as without a coefficient); throws ExpressionError.
  Coefficient make_coefficient(const std::string &text, int dim);
  /// The reaction coefficient c of −∇·(a ∇u) + c u of `text` (Problem/Reaction coefficient): none
  /// for the constant 0; throws ExpressionError.
  Coefficient make_reaction(const std::string &text, int dim);

  /// The coefficients of −∇·(a ∇u) + c u that an operator carries: a (none: 1) and c (none: 0),
  /// both functions of the physical position. Made from a alone where only a is given.
  struct Coefficients
  {
    Coefficient diffusion; ///< a
    Coefficient reaction;  ///< c
    Coefficients() = default;
    Coefficients(Coefficient a, Coefficient c = {}) : diffusion(std::move(a)), reaction(std::move(c)) {}
    /// Whether the operator differs from the Laplacian.
    bool any() const { return diffusion.has_value() || reaction.has_value(); }
    /// a and c where both are constants (the Laplacian's 1 and 0 included), else none.
    std::optional<ConstantCoefficients> constants() const
    {
      if ((diffusion && !diffusion->is_constant()) || (reaction && !reaction->is_constant()))
        return std::nullopt;
      return ConstantCoefficients{diffusion ? (*diffusion)(0, 0, 0) : 1.0, reaction ? (*reaction)(0, 0, 0) : 0.0};
    }
    /// Whether a or c depends on the position (the operators then evaluate them at their points).
    bool varying() const { return !constants().has_value(); }
  };

  enum class GeometricFactorKind
  {
    mass,
    laplace
  };

  /// 1 (mass), 3 (laplace, 2D) or 6 (laplace, 3D).
  int n_geometric_entries(int dim, GeometricFactorKind kind);

  /// Geometric factors at the tensor-product quadrature points of every cell, for the cell map
  /// that is multilinear (bilinear 2D / trilinear 3D) through the cell's deformed vertices, on
  /// the reference cell [0,1]^d:
  ///   mass:    w_q |J(ξ_q)|                                    (1 entry)
  ///   laplace: the symmetric entries of w_q |J| J^{-1} J^{-T}  (2D: xx, xy, yy; 3D: xx, xy, xz,
  ///            yy, yz, zz)
  /// where J = ∂x/∂ξ (rows physical, columns reference) and w_q the product of the 1D weights
  /// of `q` (a rule on [0,1]). Layout: factors[(cell * n_entries + entry) * n_points + point],
  /// cells lexicographic (x fastest) over all cells of the level, points lexicographic over the
  /// quadrature tensor (x fastest), n_points = q.size()^dim. With a coefficient every factor of
  /// a point is multiplied by a at the point's physical position (the operator's factors of
  /// −∇·(a ∇u), or a weighted mass). OpenMP over cells.
  /// Throws std::runtime_error if |J| <= 0 at some quadrature point or cell vertex (a folded
  /// cell: this happens on coarse levels with large sine amplitudes even where the smooth map is
  /// invertible; e.g. in 3D amplitude 0.2 folds meshes with 2 or 3 cells per direction).
  std::vector<double> geometric_factors(const CartesianLevel &level, const DeformationSettings &s,
                                        const Quadrature1D &q, GeometricFactorKind kind,
                                        const Coefficient &coefficient = {});

  /// Whether `s` folds a cell of `level` (a non-positive Jacobian determinant at a vertex or at
  /// a Gauss point of k+2 per direction: what geometric_factors refuses).
  bool mesh_folds(const CartesianLevel &level, const DeformationSettings &s);

  /// The largest amplitude of s.type up to s.amplitude that does not fold `level` (to 1e-4).
  double largest_unfolded_amplitude(const CartesianLevel &level, const DeformationSettings &s);
} // namespace tpmg
