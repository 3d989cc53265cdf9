// Chebyshev smoother with a point-Jacobi inner preconditioner (docs/method.md, "Chebyshev smoother"), the standard
// alternative to the vertex-patch smoother that deal.II users know from PreconditionChebyshev.
#pragma once

#include <tpmg/constant_coefficients.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

namespace tpmg
{
  /// Diagonal of the Cartesian Laplace level operator, boundary rows 1. On a uniform Cartesian
  /// level the assembled matrix is Σ_d c_d (global 1D stiffness in d ⊗ global 1D masses in the
  /// other directions) with the reference (unit-width) 1D matrices and
  /// c_d = (1/h_d) Π_{e≠d} h_e, so its diagonal is a sum of products of 1D global diagonals.
  /// `lumped_mass` takes the GLL-lumped 1D masses (the diagonal of the `bp5` operator);
  /// `constants` a and c of −∇·(a ∇u) + c u (a scales the sum, c Π h_d Π_d mass_d adds to it).
  /// `diag` is resized to level.n_dofs() on `backend`.
  template <typename Number>
  void laplace_diagonal(const CartesianLevel &level, Backend backend, bool lumped_mass, Vector<Number> &diag,
                        const ConstantCoefficients &constants = {});

  struct ChebyshevSettings
  {
    /// Number of operator applications per smoothing step (degree of the polynomial).
    int degree = 3;
    /// The polynomial targets the interval [λ_max / smoothing_range, 1.2 λ_max] (> 1).
    double smoothing_range = 15.0;
    /// Steps of the Jacobi-preconditioned CG (Lanczos) estimate of λ_max(D^{-1}A).
    int eigenvalue_iterations = 12;
  };

  /// x <- x + p(D^{-1}A) D^{-1} (b - A x) with the Chebyshev polynomial p of the interval
  /// [λ_max/range, 1.2 λ_max] (Saad, Alg. 12.1; deal.II's PreconditionChebyshev::step), so the
  /// error is multiplied by T_deg((θ - D^{-1}A)/δ) / T_deg(θ/δ), θ and δ the interval's
  /// center and half width.
  ///
  /// Rows of `op` that act as the identity (the boundary rows; detected at construction as the
  /// rows with diagonal 1 that reproduce a generic probe vector exactly) get inverse diagonal 0,
  /// so the smoother never changes them, whatever x and b hold there.
  template <typename Number>
  class ChebyshevSmoother
  {
  public:
    /// op: the level operator (boundary rows identity, interior rows not coupled to boundary
    /// values), diag: its diagonal (on `backend`, size op.size()). λ_max of D^{-1}A is estimated
    /// here by `eigenvalue_iterations` steps of Jacobi-preconditioned CG on a deterministic
    /// start vector with zero boundary (largest eigenvalue of the Lanczos tridiagonal matrix).
    /// `op` must outlive the smoother.
    ChebyshevSmoother(const LinearOperator<Number> &op, Vector<Number> diag, const ChebyshevSettings &settings,
                      Backend backend);
    /// The same with an inner preconditioner P in place of D⁻¹ (symmetric positive definite, zero
    /// on the identity rows; the additive Schwarz of the fitted patch solves): x <- x + p(PA) P
    /// (b - A x), λ_max of PA estimated by P-preconditioned CG. `preconditioner` must outlive the
    /// smoother.
    ChebyshevSmoother(const LinearOperator<Number> &op, const LinearOperator<Number> &preconditioner,
                      const ChebyshevSettings &settings, Backend backend);

    /// One smoothing step (`degree` operator applications). x and b on the smoother's backend.
    void smooth(Vector<Number> &x, const Vector<Number> &b) const;

    /// The estimate of λ_max(D^{-1}A) (before the safety factor 1.2).
    double max_eigenvalue() const { return lambda_max_; }
    /// Wall seconds the setup's estimate of λ_max took (its device work finished).
    double estimate_seconds() const { return estimate_seconds_; }
    /// The interval the polynomial is built for: [λ_max/range, 1.2 λ_max].
    double interval_lower() const { return lower_; }
    double interval_upper() const { return upper_; }
    /// CG steps actually done by the estimate (fewer when CG converged or broke down).
    int eigenvalue_iterations_done() const { return cg_steps_; }

    const ChebyshevSettings &settings() const { return settings_; }
    /// The inverse diagonal (0 on identity rows).
    const Vector<Number> &inverse_diagonal() const { return inverse_diagonal_; }

  private:
    void check_settings() const;
    void finish_setup();
    void estimate_max_eigenvalue();
    /// z = P r (the inner preconditioner, D⁻¹ where there is none)
    void precondition(Vector<Number> &z, const Vector<Number> &r) const;
    /// A vector of the operator's level (with its layout where it has one).
    void make_vector(Vector<Number> &v) const;
    /// The whole level's numbering of the nodes (the start vectors must not depend on the ranks).
    NodeNumbering numbering() const;

    const LinearOperator<Number> *op_;
    const LinearOperator<Number> *preconditioner_ = nullptr;
    ChebyshevSettings             settings_;
    Backend                       backend_;
    Vector<Number>                inverse_diagonal_;
    double                        lambda_max_ = 1.0, lower_ = 0.0, upper_ = 1.0;
    double                        estimate_seconds_ = 0;
    int                           cg_steps_         = 0;
    mutable Vector<Number>        ax_, update_, z_;
  };
} // namespace tpmg
