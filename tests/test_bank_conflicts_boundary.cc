// The face-patch kernels (kernels/smoothers/boundary_patch.h, and the fitted one of
// kernels/smoothers/patch_fitted.h) under the bank recorder (kernels/runtime/bank_recorder.h):
// every patch kind of a level whose faces are all Neumann (faces, edges, corners), every degree,
// both precisions: no unordered shared-memory access, and at most about twice the wavefronts of a
// conflict-free layout (printed).
#include <tpmg/dispatch.h>
#include <tpmg/fitted_patches.h>
#include <tpmg/mesh.h>
#include <tpmg/patch_data.h>
#include <tpmg/robin_faces.h>

#include <gtest/gtest.h>

#include <kernels/runtime/bank_recorder.h>
#include <kernels/smoothers/boundary_patch.h>
#include <kernels/smoothers/patch_fitted.h>
#include <src/operators/robin_faces_impl.h>

#include <iomanip>
#include <iostream>
#include <vector>

using namespace tpmg;

namespace
{
  // A level of 3 cells per direction, all faces Neumann (or, with `robin`, all faces Robin),
  // and its boundary vertices: one block each.
  template <int dim, int k>
  CartesianLevel face_level(bool robin)
  {
    Domain d;
    d.dim             = dim;
    d.coarse_cells    = {3, 3, dim == 3 ? 3 : 1};
    d.dirichlet_faces = 0;
    d.robin_faces     = robin ? all_faces : 0u;
    return make_hierarchy(d, k, 0).back();
  }
  template <int dim>
  std::vector<index_t> face_vertices(std::vector<Dim3> &blocks)
  {
    std::vector<index_t> patches;
    const index_t        nv = 4, nz = dim == 3 ? 4 : 1;
    for (index_t v2 = 0; v2 < nz; ++v2)
      for (index_t v1 = 0; v1 < nv; ++v1)
        for (index_t v0 = 0; v0 < nv; ++v0)
          if (v0 % 3 == 0 || v1 % 3 == 0 || (dim == 3 && v2 % 3 == 0))
            {
              blocks.push_back(Dim3{unsigned(patches.size()), 0, 0});
              patches.push_back(v0 + nv * (v1 + nv * v2));
            }
    return patches;
  }

  // Every vertex on the boundary (face_vertices) with the Cartesian face-patch kernel (with
  // `robin`, the face term's shared arrays too).
  template <int dim, int k, typename Number, bool robin = false>
  BankConflictCounts face_patch_counts()
  {
    const CartesianLevel       level = face_level<dim, k>(robin);
    std::vector<Dim3>          blocks;
    const std::vector<index_t> patches = face_vertices<dim>(blocks);
    const index_t              nv      = 4;
    const std::vector<double>  d1      = boundary_patch_data_1d(k, false);
    const std::vector<Number>  data(d1.begin(), d1.end());
    // with `robin`, eigenpairs of the lower (entry 0) and upper (1) kind, per patch direction
    std::vector<Number> pairs;
    std::vector<int>    index;
    for (int t : {1, 2})
      for (const double v : robin_patch_eigenpairs_1d(k, false, t, 0.5))
        pairs.push_back(Number(v));
    for (const index_t p : patches)
      for (int e = 0; e < 3; ++e)
        {
          const index_t ve = e == 0 ? p % nv : e == 1 ? (p / nv) % nv : p / (nv * nv);
          index.push_back(e >= dim || (ve % 3) != 0 ? -1 : ve == 0 ? 0 : 1);
        }
    std::vector<Number>                        x(level.n_dofs(), Number(0.5)), b(level.n_dofs(), Number(1));
    const RobinFaces<Number>                   alpha(level, Expression(robin ? "1 + x" : "0", dim), Backend::cpu);
    BoundaryPatchKernel<dim, k, Number, robin> kern;
    if constexpr (robin)
      {
        for (int f = 0; f < 2 * dim; ++f)
          kern.robin_weights[f] = alpha.weights(f);
        kern.face_basis  = robin_face_basis<k, Number>();
        kern.robin_pairs = pairs.data();
        kern.robin_index = index.data();
      }
    kern.patches   = patches.data();
    kern.n_patches = index_t(patches.size());
    for (int e = 0; e < 3; ++e)
      {
        kern.cells[e] = e < dim ? level.cells[e] : 1;
        kern.nodes[e] = level.nodes(e);
        kern.coef[e]  = Number(1);
      }
    kern.data1d = data.data();
    kern.b      = b.data();
    kern.x      = x.data();
    return record_bank_conflicts(kern, kern.shape(), blocks);
  }

  // The same vertices with the fitted patches' solve (every direction its own eigenpairs: the
  // table's ratio 1 inside, the free ends on the faces).
  template <int dim, int k, typename Number>
  BankConflictCounts fitted_face_patch_counts()
  {
    using Kernel                     = FittedBoundaryPatchSolve<dim, k, Number>;
    const CartesianLevel       level = face_level<dim, k>(false);
    std::vector<Dim3>          blocks;
    const std::vector<index_t> patches = face_vertices<dim>(blocks);
    const index_t              nv      = 4;
    const FittedRatioTable     table   = fitted_ratio_table(k, false);
    std::vector<Number>        pairs;
    for (int t = 0; t < 3; ++t) // entry t: kind t
      {
        FittedBoundaryPatch p;
        p.kind[0] = t;
        for (const double v : fitted_boundary_eigenpairs_1d(table, p, 0))
          pairs.push_back(Number(v));
      }
    std::vector<int> index;
    for (const index_t p : patches)
      for (int e = 0; e < 3; ++e)
        {
          const index_t ve = e == 0 ? p % nv : e == 1 ? (p / nv) % nv : p / (nv * nv);
          index.push_back(e >= dim ? 0 : ve == 0 ? 1 : ve == 3 ? 2 : 0);
        }
    std::vector<Number> scales(patches.size() * Kernel::per_patch, Number(1));
    std::vector<Number> r(level.n_dofs(), Number(1)), x(level.n_dofs(), Number(0));
    Kernel              kern;
    kern.patches   = patches.data();
    kern.n_patches = index_t(patches.size());
    for (int e = 0; e < 3; ++e)
      {
        kern.cells[e] = e < dim ? level.cells[e] : 1;
        kern.nodes[e] = level.nodes(e);
      }
    kern.pair   = index.data();
    kern.scales = scales.data();
    kern.pairs  = pairs.data();
    kern.r      = r.data();
    kern.x      = x.data();
    return record_bank_conflicts(kern, kern.shape(), blocks);
  }
} // namespace

TEST(BankConflicts, FacePatchKernelHasNoHazardsAndFewConflicts)
{
  for_each_solver_degree([](auto D, auto K) {
    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
    auto          check = [&](auto number, const char *what) {
      const BankConflictCounts c = face_patch_counts<dd, kk, decltype(number)>();
      EXPECT_GT(c.instructions, 0u);
      EXPECT_EQ(c.hazards, 0u) << what << " " << dd << "D k=" << kk;
      // (measured: 2D at most 1.16x, 3D 1.0x-2.0x: the fibers' odd stride 2k + 1 is
      // conflict-free along x; across y and z the rows of a patch tensor overlap banks)
      EXPECT_LE(double(c.wavefronts), 2.05 * double(c.ideal)) << what << " " << dd << "D k=" << kk;
      std::cout << std::setw(6) << what << " " << dd << "D k=" << std::setw(2) << kk << " face patches: wavefronts "
                << std::setw(7) << c.wavefronts << " ideal " << std::setw(7) << c.ideal << " (" << std::fixed
                << std::setprecision(2) << double(c.wavefronts) / double(c.ideal) << "x)\n";
    };
    check(float(), "float");
    check(double(), "double");
  });
}

// The kernel of Robin faces (the face term in shared memory beside phases 1 and 2): no hazards;
// the face term's arrays are small beside the patch tensors, so the wavefronts stay within the
// Neumann kernel's bound.
TEST(BankConflicts, RobinFacePatchKernelHasNoHazards)
{
  for_each_solver_degree([](auto D, auto K) {
    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
    auto          check = [&](auto number, const char *what) {
      const BankConflictCounts c = face_patch_counts<dd, kk, decltype(number), true>();
      EXPECT_GT(c.instructions, 0u);
      EXPECT_EQ(c.hazards, 0u) << what << " " << dd << "D k=" << kk;
      EXPECT_LE(double(c.wavefronts), 2.05 * double(c.ideal)) << what << " " << dd << "D k=" << kk;
      std::cout << std::setw(6) << what << " " << dd << "D k=" << std::setw(2) << kk
                << " Robin face patches: wavefronts " << std::setw(7) << c.wavefronts << " ideal " << std::setw(7)
                << c.ideal << " (" << std::fixed << std::setprecision(2) << double(c.wavefronts) / double(c.ideal)
                << "x)\n";
    };
    check(float(), "float");
    check(double(), "double");
  });
}

// The fitted patches' solve on the faces (the Cartesian kernel's patch tensors and contractions):
// no hazards, and the same bound.
TEST(BankConflicts, FittedFacePatchKernelHasNoHazards)
{
  for_each_solver_degree([](auto D, auto K) {
    constexpr int dd = decltype(D)::value, kk = decltype(K)::value;
    auto          check = [&](auto number, const char *what) {
      const BankConflictCounts c = fitted_face_patch_counts<dd, kk, decltype(number)>();
      EXPECT_GT(c.instructions, 0u);
      EXPECT_EQ(c.hazards, 0u) << what << " " << dd << "D k=" << kk;
      EXPECT_LE(double(c.wavefronts), 2.05 * double(c.ideal)) << what << " " << dd << "D k=" << kk;
      std::cout << std::setw(6) << what << " " << dd << "D k=" << std::setw(2) << kk
                << " fitted face patches: wavefronts " << std::setw(7) << c.wavefronts << " ideal " << std::setw(7)
                << c.ideal << " (" << std::fixed << std::setprecision(2) << double(c.wavefronts) / double(c.ideal)
                << "x)\n";
    };
    check(float(), "float");
    check(double(), "double");
  });
}
