// The model problem: right-hand sides and discretization errors against the manufactured
// solution (docs/method.md, "Right-hand side and errors").
//
// Manufactured solution on the level's box [a, a+L] (L_d = h_d * cells_d):
//   u(x) = Π_d sin(π (x_d - a_d) / L_d),   f = -Δu = (Σ_d (π/L_d)^2) u,
// which vanishes on the boundary; on the unit box it is the paper's u = Π sin(π x_i).
#pragma once

#include <tpmg/config.h>
#include <tpmg/expression.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <optional>
#include <string>

namespace tpmg
{


  /// b_i = ∫ f φ_i at interior nodes, 0 at boundary nodes (for ones_vector: 1 at interior
  /// nodes). b is resized to level.n_dofs() on `backend`. The integrals are exact to rounding:
  /// f is separable, so b = C ⊗_d b1d_d with 1D integrals computed on the host in double
  /// (k+12 Gauss points per cell), then expanded on the backend.
  template <typename Number>
  void assemble_rhs(const CartesianLevel &level, RightHandSide rhs, Backend backend, Vector<Number> &b);

  /// Nodal interpolant of the manufactured solution (boundary nodes 0), resized to
  /// level.n_dofs() on `backend`.
  template <typename Number>
  void interpolate_exact_solution(const CartesianLevel &level, Backend backend, Vector<Number> &u);

  struct ErrorNorms
  {
    double l2      = 0; ///< ‖u - u_h‖_L2
    double h1_semi = 0; ///< |u - u_h|_H1 = ‖∇(u - u_h)‖_L2
  };

  /// ‖u - u_h‖_L2 and |u - u_h|_H1 against the manufactured solution over the cells of the
  /// level's owned box, with n_quadrature Gauss points per direction per cell (DESIGN §7:
  /// k+3, the default; the authors' code uses k+1). Supported: n_quadrature in
  /// {degree+1, degree+2, degree+3}. Computed in double on u_h's backend by one phased kernel
  /// (sum factorization to the quadrature points) and reduce_sum. u_h is read as stored,
  /// boundary nodes included (they should be zero).
  template <int dim, int degree>
  ErrorNorms compute_errors(const CartesianLevel &level, const Vector<double> &u_h, int n_quadrature = degree + 3);

  /// Run-time dispatch on level.dim and level.degree; n_quadrature <= 0 means degree + 3.
  ErrorNorms compute_errors(const CartesianLevel &level, const Vector<double> &u_h, int n_quadrature = 0);

  struct DeformationSettings;
  /// On a deformed mesh (cells mapped multilinearly through their deformed vertices, see
  /// geometry.h): b_i = ∫ f φ_i with the manufactured f (or f = 1) at the mapped points,
  /// k+3 Gauss points per direction; host loop over cells (setup work), result copied to
  /// `backend`. `ones_vector` is mesh-independent and handled by assemble_rhs.
  template <typename Number>
  void assemble_rhs_deformed(const CartesianLevel &level, const DeformationSettings &deformation, RightHandSide rhs,
                             Backend backend, Vector<Number> &b);
  /// The manufactured solution u = Π_d sin(π (x_d − a_d)/L_d) of the level's box [a, a + L].
  Expression manufactured_solution(const CartesianLevel &level);
  /// The built-in f as an expression: (Σ_d (π/L_d)²) times manufactured_solution, or 1 for
  /// RightHandSide::one. With it the solver assembles the built-in right-hand side of a deformed
  /// mesh through assemble_rhs(..., ProblemFunctions, ...), on the vector's backend (Gauss k+2);
  /// assemble_rhs_deformed is the host reference (k+3).
  Expression manufactured_right_hand_side(const CartesianLevel &level, RightHandSide rhs);
  /// ‖u - u_h‖_L2 and |u - u_h|_H1 on a deformed mesh (k+3 points; a host loop over cells, on
  /// the GPU compute_errors with manufactured_solution).
  ErrorNorms compute_errors_deformed(const CartesianLevel &level, const DeformationSettings &deformation,
                                     const Vector<double> &u_h);

  // ------------------------------------------------------------------ problems given by functions
  // -Δu = f in the box (deformed or not), u = g on its boundary, with f, g (and, to measure the
  // error, u) functions of the coordinates (expression.h). Non-zero g is lifted: with g_h the
  // nodal interpolant of g on the boundary nodes (zero inside), the solver finds the homogeneous
  // part u_0 of A u_0 = b - A g_h and the solution is u_h = u_0 + g_h. Every function below runs
  // on the vectors' backend, one loop body for the CPU and the GPU (function_kernels.h).

  /// What defines the problem besides the mesh.
  struct ProblemFunctions
  {
    Expression                rhs;               ///< f
    Expression                boundary_values;   ///< Dirichlet data g (the zero function by default)
    Expression                boundary_flux;     ///< h on the level's other faces: ∂u/∂n (+ α u) = h
    Expression                robin_coefficient; ///< α on the level's Robin faces (CartesianLevel::robin_faces)
    std::optional<Expression> exact_solution;    ///< u, for the error norms (optional)
    /// a of −∇·(a ∇u) = f (none: a = 1; make_coefficient in geometry.h): the lifting's a(g_h, φ_i)
    std::optional<Expression> coefficient;
    /// c of −∇·(a ∇u) + c u = f (none: c = 0; make_reaction in geometry.h): the lifting's c (g_h, φ_i)
    std::optional<Expression> reaction;
  };

  /// b_i = ∫ f φ_i + ∫_Γ h φ_i - a(g_h, φ_i) at the unknowns (Γ: the faces that are not the
  /// level's Dirichlet faces; undeformed levels; a includes the Robin faces' α ∫ u v, which
  /// couples g_h on their edges to the unknowns), 0 at the Dirichlet nodes; b is resized to
  /// level.n_dofs() on `backend`. ∫ f φ_i uses Gauss quadrature with k+2 points per direction
  /// on each (multilinear) cell; a(g_h, φ_i) uses the quadrature of `level_operator` (Gauss k+2
  /// for cartesian and bp3, the k+1 Gauss–Lobatto nodes for bp5), so that it is the operator's
  /// own coupling to the boundary nodes. Computed in double.
  template <typename Number>
  void assemble_rhs(const CartesianLevel &level, const DeformationSettings &deformation,
                    const ProblemFunctions &problem, LevelOperatorType level_operator, Backend backend,
                    Vector<Number> &b);

  /// g_h: g at the boundary nodes (their positions under the cell maps), 0 inside.
  void interpolate_boundary_values(const CartesianLevel &level, const DeformationSettings &deformation,
                                   const Expression &g, Backend backend, Vector<double> &g_h);

  /// ∫(u - u_h) and the volume over a level's owned cells: u_h + integral / volume has u's mean.
  struct MeanDifference
  {
    double integral = 0;
    double volume   = 0;
  };

  /// ∫(u - u_h) and |Ω| over the level's owned cells, with the quadrature of compute_errors below
  /// (u = 0: minus u_h's integral).
  MeanDifference mean_difference(const CartesianLevel &level, const DeformationSettings &deformation,
                                 const Expression &u, const Vector<double> &u_h);

  /// ‖u - u_h‖_L2 and |u - u_h|_H1 (gradient of u by symbolic differentiation) with Gauss
  /// quadrature of k+3 points per direction, on u_h's backend; u_h holds all nodes (boundary
  /// values included).
  ErrorNorms compute_errors(const CartesianLevel &level, const DeformationSettings &deformation, const Expression &u,
                            const Vector<double> &u_h);
} // namespace tpmg
