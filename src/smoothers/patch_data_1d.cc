// The 1D data of the vertex-patch problems (patch matrices and their generalized
// eigenpairs). Compiled into the library and into tpmg_patch_data_table, the build-time
// program that writes them as compile-time constants for the fiber kernels
// (src/patch_data_table_writer.cc), so both see the same doubles.
#include <tpmg/fe_1d.h>
#include <tpmg/patch_data.h>

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  PatchData1D patch_data_1d(int k, bool lumped_mass)
  {
    const ElementMatrices1D e  = element_matrices_1d(k);
    const Matrix1D         &mc = lumped_mass ? e.lumped_mass : e.mass;
    const int               np = 2 * k + 1, ni = 2 * k - 1;
    PatchData1D             d;
    d.mass      = Matrix1D(np, np);
    d.stiffness = Matrix1D(np, np);
    for (int c = 0; c < 2; ++c) // the two cells of the patch
      for (int i = 0; i <= k; ++i)
        for (int j = 0; j <= k; ++j)
          {
            d.mass(c * k + i, c * k + j) += mc(i, j);
            d.stiffness(c * k + i, c * k + j) += e.stiffness(i, j);
          }
    // The patch matrices are persymmetric, P(r, j) = P(np-1-r, np-1-j) (the two cells mirror
    // each other), but the element matrices' rounding breaks that in the last bits (up to
    // 4e-14 relative at k = 8). Made exact: the fiber kernels' entries are compile-time
    // constants, and mirrored entries that are the same double are one constant to the
    // compiler (docs/performance/smoother.md, "Persymmetric patch matrices").
    for (Matrix1D *P : {&d.mass, &d.stiffness})
      for (int r = 0; r < np; ++r)
        for (int j = 0; j < np; ++j)
          if (r * np + j < (np - 1 - r) * np + (np - 1 - j))
            (*P)(r, j) = (*P)(np - 1 - r, np - 1 - j) = 0.5 * ((*P)(r, j) + (*P)(np - 1 - r, np - 1 - j));
    Eigen::MatrixXd Mi(ni, ni), Ai(ni, ni);
    for (int i = 0; i < ni; ++i)
      for (int j = 0; j < ni; ++j)
        {
          Mi(i, j) = d.mass(i + 1, j + 1);
          Ai(i, j) = d.stiffness(i + 1, j + 1);
        }
    // The patch is symmetric about its middle node (two cells of the same width), so the
    // reflection i -> ni-1-i commutes with Mi and Ai and the eigenproblem splits into an even
    // and an odd one. Solved apart, the eigenvectors have their parity exactly (the fiber
    // kernels rely on it, ParityColumns in kernels/common/tensor.h): the k even modes first, then the
    // k-1 odd ones, each group by increasing eigenvalue.
    const int       mid = k - 1, ne = k, no = k - 1;
    const double    r = std::sqrt(0.5);
    Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(ni, ni); // columns: orthonormal even, then odd basis
    for (int j = 0; j < mid; ++j)
      {
        Q(j, j) = Q(ni - 1 - j, j) = r;
        Q(j, ne + j)               = r;
        Q(ni - 1 - j, ne + j)      = -r;
      }
    Q(mid, mid)    = 1;
    d.eigenvectors = Matrix1D(ni, ni);
    d.eigenvalues.resize(ni);
    for (int part = 0; part < 2; ++part)
      {
        const int first = part == 0 ? 0 : ne, n = part == 0 ? ne : no;
        if (n == 0)
          continue;
        const Eigen::MatrixXd Qp = Q.middleCols(first, n);
        const Eigen::MatrixXd Mp = Qp.transpose() * Mi * Qp, Ap = Qp.transpose() * Ai * Qp;
        Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Ap, Mp);
        if (es.info() != Eigen::Success)
          throw std::runtime_error("generalized eigenproblem of the 1D patch matrices failed");
        for (int a = 0; a < n; ++a)
          {
            d.eigenvalues[first + a] = es.eigenvalues()(a);
            // upper half from the basis, lower half mirrored (exact parity)
            for (int i = 0; i <= mid; ++i)
              {
                const double v               = Q.row(i).segment(first, n).dot(es.eigenvectors().col(a));
                d.eigenvectors(i, first + a) = v;
                if (i < mid)
                  d.eigenvectors(ni - 1 - i, first + a) = part == 0 ? v : -v;
              }
          }
      }
    return d;
  }

  std::vector<double> kronecker_interior_matrix(int dim, int ni, const std::array<const Matrix1D *, 3> &mass,
                                                const std::array<const Matrix1D *, 3> &stiffness,
                                                const std::array<double, 3> &coef, double shift)
  {
    const int           n = dim == 3 ? ni * ni * ni : ni * ni;
    std::vector<double> A(std::size_t(n) * n, 0.0);
    for (int I = 0; I < n; ++I)
      for (int J = 0; J < n; ++J)
        {
          const int i[3] = {I % ni, (I / ni) % ni, I / (ni * ni)};
          const int j[3] = {J % ni, (J / ni) % ni, J / (ni * ni)};
          double    v    = 0;
          for (int dir = 0; dir < dim; ++dir)
            {
              double t = coef[dir];
              for (int e = 0; e < dim; ++e)
                t *= e == dir ? (*stiffness[e])(i[e] + 1, j[e] + 1) : (*mass[e])(i[e] + 1, j[e] + 1);
              v += t;
            }
          if (shift != 0)
            {
              double m = shift;
              for (int e = 0; e < dim; ++e)
                m *= (*mass[e])(i[e] + 1, j[e] + 1);
              v += m;
            }
          A[std::size_t(I) * n + J] = v;
        }
    return A;
  }

  std::vector<double> patch_interior_matrix(int dim, int k, const std::array<double, 3> &coef, bool lumped_mass,
                                            double shift)
  {
    const PatchData1D d = patch_data_1d(k, lumped_mass);
    return kronecker_interior_matrix(dim, 2 * k - 1, {&d.mass, &d.mass, &d.mass},
                                     {&d.stiffness, &d.stiffness, &d.stiffness}, coef, shift);
  }
  namespace
  {
    /// One kind of BoundaryPatchData1DLayout (t: 0 interior, 1 lower face, 2 upper face) into
    /// out, its eigenpairs those of K + β e eᵀ (e the face's node, t > 0).
    void boundary_kind_1d(int k, const ElementMatrices1D &e, const Matrix1D &mc, int t, double beta, double *out)
    {
      const int np = 2 * k + 1, ni = 2 * k - 1;
      // the kind's patch nodes, cells and unknowns along the direction (BoundaryPatchData1DLayout)
      const int       n = t == 0 ? np : k + 1, cells = t == 0 ? 2 : 1, first = t == 1 ? 0 : 1;
      const int       nu = t == 0 ? ni : k;
      Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n), A = Eigen::MatrixXd::Zero(n, n);
      for (int c = 0; c < cells; ++c)
        for (int i = 0; i <= k; ++i)
          for (int j = 0; j <= k; ++j)
            {
              M(c * k + i, c * k + j) += mc(unsigned(i), unsigned(j));
              A(c * k + i, c * k + j) += e.stiffness(unsigned(i), unsigned(j));
            }
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          {
            out[i * np + j]           = M(i, j);
            out[np * np + i * np + j] = A(i, j);
          }
      const Eigen::MatrixXd Mu = M.block(first, first, nu, nu);
      Eigen::MatrixXd       Au = A.block(first, first, nu, nu);
      if (t > 0) // the face's node: the first unknown on a lower face, the last on an upper one
        Au(t == 1 ? 0 : nu - 1, t == 1 ? 0 : nu - 1) += beta;
      const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(Au, Mu);
      if (es.info() != Eigen::Success)
        throw std::runtime_error("boundary_patch_data_1d: the eigenproblem of degree " + std::to_string(k) + " failed");
      for (int i = 0; i < nu; ++i)
        {
          for (int a = 0; a < nu; ++a)
            out[2 * np * np + i * ni + a] = es.eigenvectors()(i, a);
          out[2 * np * np + ni * ni + i] = es.eigenvalues()(i);
        }
    }
  } // namespace

  std::vector<double> boundary_patch_data_1d(int k, bool lumped_mass)
  {
    const ElementMatrices1D e  = element_matrices_1d(unsigned(k));
    const int               np = 2 * k + 1, ni = 2 * k - 1;
    const int               per_kind = 2 * np * np + ni * ni + ni;
    std::vector<double>     data(std::size_t(3 * per_kind), 0.0);
    for (int t = 0; t < 3; ++t)
      boundary_kind_1d(k, e, lumped_mass ? e.lumped_mass : e.mass, t, 0.0,
                       data.data() + std::size_t(t) * std::size_t(per_kind));
    return data;
  }

  std::vector<double> robin_patch_eigenpairs_1d(int k, bool lumped_mass, int t, double beta)
  {
    const ElementMatrices1D e  = element_matrices_1d(unsigned(k));
    const int               np = 2 * k + 1, ni = 2 * k - 1;
    const int               per_kind = 2 * np * np + ni * ni + ni;
    std::vector<double>     kind(std::size_t(per_kind), 0.0);
    boundary_kind_1d(k, e, lumped_mass ? e.lumped_mass : e.mass, t, beta, kind.data());
    return std::vector<double>(kind.begin() + 2 * np * np, kind.end());
  }
} // namespace tpmg
