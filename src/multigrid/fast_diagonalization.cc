// Setup and application of the coarse solve by fast diagonalization (fast_diagonalization.h).
#include <src/multigrid/fast_diagonalization.h>

#include <tpmg/fe_1d.h>

#include <kernels/runtime/forall.h>

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  std::size_t fast_diagonalization_memory_bytes(const CartesianLevel &level, std::size_t number_bytes)
  {
    std::size_t n = 1, matrices = 0;
    for (int d = 0; d < level.dim; ++d)
      {
        const std::size_t m = std::size_t(std::max<index_t>(fast_diagonalization_unknowns(level, d), 0));
        n *= m;
        matrices += 2 * m * m + m;
      }
    return (2 * n + matrices) * number_bytes;
  }

  template <typename Number>
  LevelFastDiagonalization<Number>::LevelFastDiagonalization(const CartesianLevel       &level,
                                                             const ConstantCoefficients &constants, Backend backend)
    : backend_(backend), dim_(level.dim)
  {
    if (level.part || level.periodic != 0 || (level.robin_faces & ~level.dirichlet_faces) != 0)
      throw std::invalid_argument("LevelFastDiagonalization: a whole level without periodic directions or Robin "
                                  "faces is needed, not " +
                                  level.describe());
    if (level.singular() && constants.reaction == 0)
      throw std::invalid_argument("LevelFastDiagonalization: the level's problem is singular (no Dirichlet face)");
    // the scaling of each direction's term, as the Kronecker-form operator has it
    const KroneckerScaling       scaling = kronecker_scaling(level, constants);
    const std::array<double, 3> &coef    = scaling.direction;
    shift_                               = Number(scaling.shift);

    const ElementMatrices1D e        = element_matrices_1d(unsigned(level.degree));
    const int               k        = level.degree;
    const CoarseUnknowns    on_level = level_unknowns(level);
    const index_t          *first    = on_level.first;
    for (int d = 0; d < dim_; ++d)
      {
        const index_t count = on_level.count[d];
        if (count <= 0)
          throw std::invalid_argument("LevelFastDiagonalization: no unknowns along direction " + std::to_string(d));
        extent_[d] = count;
        // the assembled unit-width 1D matrices, restricted to the unknowns
        const index_t   n = level.nodes(d);
        Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n), K = Eigen::MatrixXd::Zero(n, n);
        for (index_t c = 0; c < level.cells[d]; ++c)
          for (int i = 0; i <= k; ++i)
            for (int j = 0; j <= k; ++j)
              {
                M(c * k + i, c * k + j) += e.mass(unsigned(i), unsigned(j));
                K(c * k + i, c * k + j) += e.stiffness(unsigned(i), unsigned(j));
              }
        const Eigen::MatrixXd                                           Mi = M.block(first[d], first[d], count, count);
        const Eigen::MatrixXd                                           Ki = K.block(first[d], first[d], count, count);
        const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> eig(Ki, Mi);
        if (eig.info() != Eigen::Success)
          throw std::runtime_error("LevelFastDiagonalization: the 1D eigenproblem along direction " +
                                   std::to_string(d) + " did not converge");
        const Eigen::MatrixXd &S = eig.eigenvectors(); // Sᵀ M S = I
        const std::size_t      m = std::size_t(count);
        std::vector<Number>    to(m * m), from(m * m), lambda(m);
        for (index_t a = 0; a < count; ++a)
          {
            lambda[std::size_t(a)] = Number(coef[d] * eig.eigenvalues()(a));
            for (index_t i = 0; i < count; ++i)
              {
                to[std::size_t(a * count + i)]   = Number(S(a, i));
                from[std::size_t(a * count + i)] = Number(S(i, a));
              }
          }
        towards_[d].reinit(count * count, backend, false);
        towards_[d].from_host(to);
        back_[d].reinit(count * count, backend, false);
        back_[d].from_host(from);
        eigenvalues_[d].reinit(count, backend, false);
        eigenvalues_[d].from_host(lambda);
      }
    const index_t stride1 = level.nodes(0), stride2 = level.nodes(0) * level.nodes(1);
    level_layout_ = TensorLayout3{first[0] + stride1 * first[1] + stride2 * first[2], {1, stride1, stride2}};
    compact_      = TensorLayout3{0, {1, extent_[0], extent_[0] * extent_[1]}};
    for (Vector<Number> &w : work_)
      w.reinit(unknowns(), backend, false);
  }

  template <typename Number>
  void LevelFastDiagonalization<Number>::solve(Vector<Number> &x, const Vector<Number> &b) const
  {
    // towards the eigenbasis along 0, 1, 2 (the last step divides by the eigenvalues), back
    // along 2, 1, 0: b -> work 0 -> work 1 -> ... -> x
    const int steps = 2 * dim_;
    for (int s = 0; s < steps; ++s)
      {
        const bool                      towards = s < dim_;
        const int                       d       = towards ? s : steps - 1 - s;
        FastDiagonalizationStep<Number> step;
        step.matrix     = (towards ? towards_[d] : back_[d]).data();
        step.in         = s == 0 ? b.data() : work_[(s - 1) % 2].data();
        step.out        = s == steps - 1 ? x.data() : work_[s % 2].data();
        step.in_layout  = s == 0 ? level_layout_ : compact_;
        step.out_layout = s == steps - 1 ? level_layout_ : compact_;
        for (int e = 0; e < 3; ++e)
          step.extent[e] = extent_[e];
        step.direction = d;
        if (s == dim_ - 1)
          {
            for (int e = 0; e < dim_; ++e)
              step.eigenvalues[e] = eigenvalues_[e].data();
            step.shift = shift_;
          }
        forall(backend_, unknowns(), step);
      }
  }

  template class LevelFastDiagonalization<float>;
  template class LevelFastDiagonalization<double>;
} // namespace tpmg
