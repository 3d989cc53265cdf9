#include <tpmg/box_layout.h>
#include <tpmg/chebyshev_smoother.h>
#include <tpmg/fe_1d.h>
#include <tpmg/vector_ops.h>

#include <kernels/runtime/forall.h>
#include <kernels/smoothers/chebyshev.h>

#include <Eigen/Dense>

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  namespace ck = chebyshev_kernels;

  template <typename Number>
  void laplace_diagonal(const CartesianLevel &level, Backend backend, bool lumped_mass, Vector<Number> &diag,
                        const ConstantCoefficients &constants)
  {
    const int k = level.degree;
    if (level.dim != 2 && level.dim != 3)
      throw std::invalid_argument("laplace_diagonal: dimension must be 2 or 3");
    if (k < 1)
      throw std::invalid_argument("laplace_diagonal: degree must be positive");
    const ElementMatrices1D e    = element_matrices_1d(unsigned(k));
    const Matrix1D         &mass = lumped_mass ? e.lumped_mass : e.mass;

    // Global 1D diagonals (reference cell width) of all directions, one after the other.
    ck::LaplaceDiagonal<Number> f{};
    std::vector<double>         s1d, m1d;
    const KroneckerScaling      scaling = kronecker_scaling(level, constants); // c_d = a (1/h_d) Π_{e≠d} h_e
    for (int d = 0; d < 3; ++d)
      {
        f.nodes[d]  = level.nodes(d);
        f.offset[d] = index_t(s1d.size());
        f.coef[d]   = 0;
        if (d >= level.dim)
          continue;
        s1d.resize(s1d.size() + std::size_t(level.nodes(d)), 0.0);
        m1d.resize(m1d.size() + std::size_t(level.nodes(d)), 0.0);
        for (index_t c = 0; c < level.cells[d]; ++c)
          for (int i = 0; i <= k; ++i)
            {
              s1d[std::size_t(f.offset[d] + c * k + i)] += e.stiffness(i, i);
              m1d[std::size_t(f.offset[d] + c * k + i)] += mass(i, i);
            }
        f.coef[d] = scaling.direction[std::size_t(d)];
      }
    f.shift = scaling.shift; // c Π h_d
    Vector<double> stiffness(index_t(s1d.size()), backend), masses(index_t(m1d.size()), backend);
    stiffness.from_host(s1d);
    masses.from_host(m1d);
    diag.reinit(level.n_dofs(), backend, false);
    f.stiffness   = stiffness.data();
    f.mass        = masses.data();
    f.dim         = level.dim;
    f.diag        = diag.data();
    f.constrained = level.dirichlet_faces;
    forall(backend, diag.size(), f);
  }

  template <typename Number>
  void ChebyshevSmoother<Number>::check_settings() const
  {
    if (settings_.degree < 1)
      throw std::invalid_argument("ChebyshevSmoother: degree must be at least 1");
    if (!(settings_.smoothing_range > 1.0))
      throw std::invalid_argument("ChebyshevSmoother: smoothing range must exceed 1");
    if (settings_.eigenvalue_iterations < 1)
      throw std::invalid_argument("ChebyshevSmoother: need at least one eigenvalue iteration");
  }

  template <typename Number>
  void ChebyshevSmoother<Number>::finish_setup()
  {
    make_vector(ax_);
    make_vector(update_);
    synchronize(backend_);
    const auto start = std::chrono::steady_clock::now();
    estimate_max_eigenvalue();
    synchronize(backend_);
    estimate_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    upper_            = 1.2 * lambda_max_;
    lower_            = lambda_max_ / settings_.smoothing_range;
  }

  template <typename Number>
  ChebyshevSmoother<Number>::ChebyshevSmoother(const LinearOperator<Number> &op, Vector<Number> diag,
                                               const ChebyshevSettings &settings, Backend backend)
    : op_(&op), settings_(settings), backend_(backend)
  {
    check_settings();
    const index_t n = op.size();
    if (diag.size() != n || diag.backend() != backend)
      throw std::invalid_argument("ChebyshevSmoother: the diagonal does not fit the operator/backend");

    // Inverse diagonal, 0 on the identity (boundary) rows, found with one generic probe.
    Vector<Number> probe, a_probe;
    make_vector(probe);
    forall(backend, n, ck::HashFill<Number>{nullptr, probe.data(), 1.0, 1.0, 1u, numbering()});
    op.vmult(a_probe, probe);
    make_vector(inverse_diagonal_);
    forall(backend, n,
           ck::InverseDiagonal<Number>{diag.data(), probe.data(), a_probe.data(), inverse_diagonal_.data()});
    finish_setup();
  }

  template <typename Number>
  ChebyshevSmoother<Number>::ChebyshevSmoother(const LinearOperator<Number> &op,
                                               const LinearOperator<Number> &preconditioner,
                                               const ChebyshevSettings &settings, Backend backend)
    : op_(&op), preconditioner_(&preconditioner), settings_(settings), backend_(backend)
  {
    check_settings();
    if (preconditioner.size() != op.size())
      throw std::invalid_argument("ChebyshevSmoother: the preconditioner does not fit the operator");
    make_vector(z_);
    finish_setup();
  }

  template <typename Number>
  void ChebyshevSmoother<Number>::precondition(Vector<Number> &z, const Vector<Number> &r) const
  {
    if (preconditioner_)
      preconditioner_->vmult(z, r);
    else
      forall(backend_, r.size(), ck::JacobiApply<Number>{inverse_diagonal_.data(), r.data(), z.data()});
  }

  template <typename Number>
  void ChebyshevSmoother<Number>::make_vector(Vector<Number> &v) const
  {
    if (op_->layout())
      v.reinit(op_->layout());
    else
      v.reinit(op_->size(), backend_);
  }

  template <typename Number>
  NodeNumbering ChebyshevSmoother<Number>::numbering() const
  {
    return op_->layout() ? op_->layout()->level().numbering() : NodeNumbering{};
  }

  template <typename Number>
  void ChebyshevSmoother<Number>::estimate_max_eigenvalue()
  {
    // Jacobi-preconditioned CG on A u = r0 (u0 = 0) with a deterministic start residual that
    // vanishes on the identity rows; the CG coefficients give the Lanczos tridiagonal matrix
    // of D^{-1}A whose largest eigenvalue approximates λ_max from below.
    const index_t  n = op_->size();
    Vector<Number> r, z, p, ap;
    make_vector(r);
    make_vector(z);
    make_vector(p);
    const Number *inv = inverse_diagonal_.data(); // null with an inner preconditioner
    forall(backend_, n, ck::HashFill<Number>{inv, r.data(), -1.0, 2.0, 2u, numbering()});
    precondition(z, r);
    p.copy_from(z);

    double              rz  = dot(r, z);
    const double        rz0 = rz;
    const double        eps = std::numeric_limits<Number>::epsilon();
    std::vector<double> alphas, betas;
    if (rz0 > 0)
      for (int it = 0; it < settings_.eigenvalue_iterations; ++it)
        {
          op_->vmult(ap, p);
          const double pap = dot(p, ap);
          if (!(pap > 0) || !(rz > 0))
            break;
          const double alpha = rz / pap;
          if (preconditioner_)
            {
              axpy(Number(-alpha), ap, r);
              precondition(z, r);
            }
          else
            forall(backend_, n, ck::CgResidualUpdate<Number>{Number(alpha), ap.data(), inv, r.data(), z.data()});
          const double rz_new = dot(r, z);
          alphas.push_back(alpha);
          betas.push_back(rz_new / rz);
          if (!(rz_new > 100 * eps * eps * rz0)) // converged: the Krylov space is exhausted
            break;
          forall(backend_, n, ck::CgDirectionUpdate<Number>{Number(betas.back()), z.data(), p.data()});
          rz = rz_new;
        }

    cg_steps_   = int(alphas.size());
    const int m = cg_steps_;
    if (m == 0)
      {
        lambda_max_ = 1.0; // no interior rows: the smoother does nothing anyway
        return;
      }
    Eigen::VectorXd diagonal(m), off(std::max(m - 1, 1));
    for (int j = 0; j < m; ++j)
      {
        diagonal(j) = 1.0 / alphas[j] + (j > 0 ? betas[j - 1] / alphas[j - 1] : 0.0);
        if (j + 1 < m)
          off(j) = std::sqrt(betas[j]) / alphas[j];
      }
    if (m == 1)
      lambda_max_ = diagonal(0);
    else
      {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es;
        es.computeFromTridiagonal(diagonal, off.head(m - 1), Eigen::EigenvaluesOnly);
        if (es.info() != Eigen::Success)
          throw std::runtime_error("ChebyshevSmoother: Lanczos eigenvalue computation failed");
        lambda_max_ = es.eigenvalues().maxCoeff();
      }
    if (!(lambda_max_ > 0) || !std::isfinite(lambda_max_))
      throw std::runtime_error("ChebyshevSmoother: invalid eigenvalue estimate " + std::to_string(lambda_max_));
  }

  template <typename Number>
  void ChebyshevSmoother<Number>::smooth(Vector<Number> &x, const Vector<Number> &b) const
  {
    const index_t n = op_->size();
    if (x.size() != n || b.size() != n || x.backend() != backend_ || b.backend() != backend_)
      throw std::invalid_argument("ChebyshevSmoother::smooth: vectors do not fit");

    // Saad, Iterative Methods for Sparse Linear Systems, Alg. 12.1 (Chebyshev acceleration),
    // with residual b - A x recomputed every step.
    const double theta = 0.5 * (upper_ + lower_), delta = 0.5 * (upper_ - lower_);
    const double sigma = theta / delta;
    double       rho   = 1.0 / sigma;
    for (int step = 0; step < settings_.degree; ++step)
      {
        op_->vmult(ax_, x);
        double factor1 = 0, factor2 = 1.0 / theta;
        if (step > 0)
          {
            const double rho_new = 1.0 / (2.0 * sigma - rho);
            factor1              = rho_new * rho;
            factor2              = 2.0 * rho_new / delta;
            rho                  = rho_new;
          }
        if (preconditioner_)
          {
            sadd(Number(-1), Number(1), b, ax_); // the residual
            preconditioner_->vmult(z_, ax_);
            forall(backend_, n,
                   ck::ChebyshevUpdate<Number>{Number(factor1), Number(factor2), step == 0, z_.data(), update_.data(),
                                               x.data()});
          }
        else
          forall(backend_, n,
                 ck::ChebyshevStep<Number>{Number(factor1), Number(factor2), step == 0, inverse_diagonal_.data(),
                                           b.data(), ax_.data(), update_.data(), x.data()});
      }
  }

  template void laplace_diagonal<float>(const CartesianLevel &, Backend, bool, Vector<float> &,
                                        const ConstantCoefficients &);
  template void laplace_diagonal<double>(const CartesianLevel &, Backend, bool, Vector<double> &,
                                         const ConstantCoefficients &);
  template class ChebyshevSmoother<float>;
  template class ChebyshevSmoother<double>;
} // namespace tpmg
