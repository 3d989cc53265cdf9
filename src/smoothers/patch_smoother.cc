#include <tpmg/patch_smoother.h>

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
