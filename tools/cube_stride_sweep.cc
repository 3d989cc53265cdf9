// Shared-memory wavefronts of one block of the fused 3D linear_indexing fiber kernel, counted
// by the CPU runner's bank recorder, for the plane stride the build gives the in-place patch
// cube (TPMG_FIBER_CUBE_PLANE_STRIDE); tools/cube_stride_sweep.sh builds it per stride.
// Prints: plane stride, wavefronts, ideal wavefronts.
#include <tpmg/laplace_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/patch_smoother.h>

#include <kernels/runtime/bank_recorder.h>
#include <kernels/smoothers/patch_fiber.h>
#include <src/smoothers/patch_builders.h>
#include <src/smoothers/patch_geometry.h>

#include <cstdio>
#include <vector>

using namespace tpmg;

int main()
{
  constexpr int k = SWEEP_DEGREE;
  using Number    = SWEEP_NUMBER;
  const int P     = SWEEP_PATCHES;
  Domain    d;
  d.dim                         = 3;
  d.coarse_cells                = {2 * P + 4, 4, 4};
  const CartesianLevel     lev  = make_hierarchy(d, k, 0).back();
  const PatchColorGeometry geo  = patch_color_geometry(lev, 7);
  const auto               coef = CartesianLaplaceOperator<3, k, Number>::direction_coefficients(lev);
  std::vector<Number>      x(lev.n_dofs(), Number(0.5)), b(lev.n_dofs(), Number(1)), r(lev.n_dofs(), Number(0));
  const auto sums = fiber_inverse_eigenvalue_sums<3, k, Number, KernelOptimization::linear_indexing>(coef);
  const auto kern = make_fiber_kernel<3, k, Number, PatchKernelKind::fused, KernelOptimization::linear_indexing>(
    geo, x.data(), b.data(), r.data(), coef, P, sums.data());
  const BankConflictCounts c = record_bank_conflicts(kern, kern.shape(), {Dim3{0, 0, 0}});
  std::printf("%d %zu %zu\n", int(decltype(kern)::L::X::S2), c.wavefronts, c.ideal);
}
