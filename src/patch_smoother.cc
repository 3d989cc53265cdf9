#include <tpmg/patch_smoother.h>


#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>

namespace tpmg
{
  bool patch_kernel_per_dof(ThreadStructure s, int dim, int degree, KernelOptimization opt, bool double_precision)
  {
    // automatic, as measured on the H100 (NOTES §4, "Thread structure"): per DoF in 2D from
    // k = 4 on (1.2-1.8x), column in 3D (per DoF 0.25-0.8x) except double k >= 7 (1.07-1.11x)
    if (s == ThreadStructure::automatic)
      return opt == KernelOptimization::basic && (dim == 2 ? degree >= 4 : double_precision && degree >= 7);
    return s == ThreadStructure::dof;
  }

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
    // kernels rely on it, ParityColumns in kernels/tensor.h): the k even modes first, then the
    // k-1 odd ones, each group by increasing eigenvalue.
    const int       mid = k - 1, ne = k, no = k - 1;
    const double    r   = std::sqrt(0.5);
    Eigen::MatrixXd Q   = Eigen::MatrixXd::Zero(ni, ni); // columns: orthonormal even, then odd basis
    for (int j = 0; j < mid; ++j)
      {
        Q(j, j) = Q(ni - 1 - j, j) = r;
        Q(j, ne + j)               = r;
        Q(ni - 1 - j, ne + j)      = -r;
      }
    Q(mid, mid) = 1;
    d.eigenvectors = Matrix1D(ni, ni);
    d.eigenvalues.resize(ni);
    for (int part = 0; part < 2; ++part)
      {
        const int       first = part == 0 ? 0 : ne, n = part == 0 ? ne : no;
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
                const double v = Q.row(i).segment(first, n).dot(es.eigenvectors().col(a));
                d.eigenvectors(i, first + a) = v;
                if (i < mid)
                  d.eigenvectors(ni - 1 - i, first + a) = part == 0 ? v : -v;
              }
          }
      }
    return d;
  }

  std::vector<double> patch_interior_matrix(int dim, int k, const std::array<double, 3> &coef, bool lumped_mass)
  {
    const PatchData1D d  = patch_data_1d(k, lumped_mass);
    const int         ni = 2 * k - 1;
    const int         n  = dim == 3 ? ni * ni * ni : ni * ni;
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
                t *= e == dir ? d.stiffness(i[e] + 1, j[e] + 1) : d.mass(i[e] + 1, j[e] + 1);
              v += t;
            }
          A[std::size_t(I) * n + J] = v;
        }
    return A;
  }
} // namespace tpmg
