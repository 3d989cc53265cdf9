// The host side of the vertex-patch kernels (kernels/smoothers/): each kernel's arguments and
// tables made from the level's 1D patch data (PatchData1D) and direction coefficients, for one
// colour's patches (PatchColorGeometry, src/smoothers/patch_geometry.h).
#pragma once

#include <tpmg/patch_data.h>

#include <kernels/smoothers/patch_basic.h>
#include <kernels/smoothers/patch_fiber.h>
#include <kernels/smoothers/patch_mma.h>
#include <kernels/smoothers/patch_tile.h>
#include <src/operators/laplace_stencil_builders.h>

#include <array>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tpmg
{
  /// The 1D data packed in PatchData1DLayout order, in the kernel's precision.
  template <int k, typename Number>
  std::vector<Number> pack_patch_data_1d(const PatchData1D &d)
  {
    using L = PatchData1DLayout<k>;
    std::vector<Number> packed(L::size);
    for (int i = 0; i < L::np * L::np; ++i)
      {
        packed[L::mass + i]      = Number(d.mass.data[i]);
        packed[L::stiffness + i] = Number(d.stiffness.data[i]);
      }
    for (int i = 0; i < L::ni * L::ni; ++i)
      packed[L::eigenvectors + i] = Number(d.eigenvectors.data[i]);
    for (int i = 0; i < L::ni; ++i)
      packed[L::eigenvalues + i] = Number(d.eigenvalues[i]);
    return packed;
  }

  /// A fiber kernel for one color (host side); `mass_term` for a reaction term's shift ≠ 0.
  template <int dim, int k, typename Number, PatchKernelKind kind, KernelOptimization opt, bool lumped_mass = false,
            bool mass_term = false>
  FiberPatchKernel<dim, k, Number, kind, opt, lumped_mass, mass_term>
  make_fiber_kernel(const PatchColorGeometry &geo, Number *x, const Number *b, Number *r,
                    const std::array<double, 3> &coef, int P, const Number *inverse_sums, double shift = 0)
  {
    FiberPatchKernel<dim, k, Number, kind, opt, lumped_mass, mass_term> kern;
    kern.geo = geo;
    kern.x   = x;
    kern.b   = b;
    kern.r   = r;
    kern.set_patches_per_block(P);
    kern.kernel_coefficients(coef, kern.coef);
    if (kern.inverse_sums_table && inverse_sums == nullptr)
      throw std::logic_error("fiber patch kernel: the table of inverse eigenvalue sums is missing");
    kern.inverse_sums = inverse_sums;
    kern.shift        = Number(shift);
#if TPMG_FIBER_STAGGER
    for (auto [name, value] :
         {std::pair{"TPMG_STAGGER_NS", &kern.stagger_ns}, {"TPMG_STAGGER_BLOCKS", &kern.stagger_blocks}})
      if (const char *e = std::getenv(name))
        *value = unsigned(std::strtoul(e, nullptr, 10));
#endif
    if (shift != 0 && !mass_term && kind != PatchKernelKind::solve)
      throw std::logic_error("fiber patch kernel: a reaction term needs the kernel with the mass term");
    return kern;
  }

  /// The table FiberPatchKernel::inverse_sums of a level with direction coefficients `coef`, in
  /// the kernel's directions (the turned kernels permute them) and with its eigenvalues (those
  /// of the lumped mass differ); the same for every kind of the kernel. Empty where the kernel
  /// divides instead.
  template <int dim, int k, typename Number, KernelOptimization opt, bool lumped_mass = false>
  std::vector<Number> fiber_inverse_eigenvalue_sums(const std::array<double, 3> &coef, double shift = 0)
  {
    using Kernel = FiberPatchKernel<dim, k, Number, PatchKernelKind::fused, opt, lumped_mass>;
    if (!Kernel::inverse_sums_table)
      return {};
    constexpr int ni = Kernel::ni, nb = dim == 3 ? ni : 1;
    Number        c[3];
    Kernel::kernel_coefficients(coef, c);
    std::vector<Number> table(std::size_t(ni) * ni * nb);
    for (int bb = 0; bb < nb; ++bb)
      for (int a = 0; a < ni; ++a)
        {
          const Number base = Kernel::eigenvalue_sum_base(c, Number(shift), a, bb); // as the dividing kernels form it
          for (int e = 0; e < ni; ++e)
            table[Kernel::inverse_sum_index(a + ni * bb, e)] = Number(1) / Kernel::eigenvalue_sum(c, base, e);
        }
    return table;
  }

  /// The matrices of MmaPatchKernel<k, Number> (its `mats`, on the backend): the 1D cell and patch
  /// matrices, the eigenvectors, their tensor-core fragments and the eigenvalues.
  template <int k, typename Number>
  std::vector<double> mma_patch_matrices(const PatchData1D &d)
  {
    using K = MmaPatchKernel<k, Number>;
    std::vector<double> m(K::n_matrix_entries, 0.0);
    for (int mat = 0; mat < 2; ++mat)
      {
        const Matrix1D &P = mat == 0 ? d.mass : d.stiffness;
        for (int c = 0; c < 2; ++c)
          for (int r = 0; r <= k; ++r)
            for (int j = 0; j <= k; ++j)
              {
                const bool middle                        = c == 0 ? (r == k && j == k) : (r == 0 && j == 0);
                m[K::off_cell(mat, c) + r * K::ld_c + j] = middle ? P(k, k) / 2 : P(c * k + r, c * k + j);
              }
        for (int r = 0; r < K::np; ++r)
          for (int j = 0; j < K::np; ++j)
            m[(mat == 0 ? K::off_M : K::off_A) + r * K::np + j] = P(r, j);
      }
    const Matrix1D &S = d.eigenvectors;
    for (int i = 0; i < K::ni; ++i)
      for (int c = 0; c < K::ni; ++c)
        m[K::off_S + i * K::ni + c] = S(i, c);
    // fragment f of the tile entry(row, col), rows 8 mt.., columns 4 s..
    auto tile = [&](int f, int mt, int s, auto entry) {
      for (int l = 0; l < 32; ++l)
        m[K::off_frag + 32 * f + l] = entry(8 * mt + MmaLane{l}.a_row(), 4 * s + MmaLane{l}.a_col());
    };
    for (int mat = 0; mat < 2; ++mat)
      for (int c = 0; c < 2; ++c)
        for (int mt = 0; mt < K::MTc; ++mt)
          for (int s = 0; s < K::KSc; ++s)
            tile(K::frag_cell(mat, c, mt, s), mt, s,
                 [&](int r, int j) { return m[K::off_cell(mat, c) + r * K::ld_c + j]; });
    auto eigen = [&](int i, int c) { return i < K::ni && c < K::ni ? S(i, c) : 0.0; };
    for (int s = 0; s < K::KSd; ++s)
      for (int h = 0; h < 2; ++h)
        {
          tile(K::frag_Sf + 2 * s + h, h, s, [&](int r, int j) { return eigen(j, r); });
          tile(K::frag_Sb + 2 * s + h, h, s, [&](int r, int j) { return eigen(r, j); });
        }
    for (int i = 0; i < K::ni; ++i)
      m[K::off_frag + 32 * K::n_frag + i] = d.eigenvalues[i];
    return m;
  }

  /// A tensor-core kernel for one color (host side); `mats` holds mma_patch_matrices() on the backend.
  template <int k, typename Number>
  MmaPatchKernel<k, Number> make_mma_kernel(const PatchColorGeometry &geo, Number *x, const Number *b,
                                            const double *mats, const std::array<double, 3> &coef)
  {
    MmaPatchKernel<k, Number> kern;
    kern.geo  = geo;
    kern.x    = x;
    kern.b    = b;
    kern.mats = mats;
    for (int i = 0; i < 3; ++i)
      kern.coef[i] = Number(coef[i]);
    return kern;
  }

  /// The tile kernel of one color with its stencil from the 1D patch matrices (host side).
  template <int dim, typename Number, bool reduced>
  PatchTileKernel<dim, Number, reduced> make_tile_kernel(const PatchColorGeometry &geo, Number *x, const Number *b,
                                                         const PatchData1D &d, const std::array<double, 3> &coef,
                                                         double shift)
  {
    PatchTileKernel<dim, Number, reduced> kern;
    kern.geo = geo;
    kern.x   = x;
    kern.b   = b;
    // rows of the vertex (index 1) of the 3×3 patch matrices
    const double m[3] = {d.mass(1, 0), d.mass(1, 1), d.mass(1, 2)};
    const double a[3] = {d.stiffness(1, 0), d.stiffness(1, 1), d.stiffness(1, 2)};
    double       w[27];
    vertex_stencil<dim>(m, a, coef, shift, w);
    double row_sum = 0;
    for (int q = 0; q < (dim == 3 ? 27 : 9); ++q)
      {
        kern.constants.w[q] = Number(w[q]);
        row_sum += w[q];
      }
    kern.constants.inv_diag = Number(1.0 / w[dim == 3 ? 13 : 4]); // the centre
    // the stiffness rows sum to zero, the mass term's to s Π m: exactly 0 without a reaction term
    kern.constants.row_sum = shift == 0 ? Number(0) : Number(row_sum);
    return kern;
  }
} // namespace tpmg
