// The patch solves of the geometry-fitted surrogates (docs/method.md, "Fitted patch solves").
//
// Each vertex patch of a deformed level is replaced by the patch of a Cartesian but non-uniform
// tensor grid: in direction d its two cells have the widths a_d (left) and a_d r_d (right), fitted
// to the deformed cells (src/smoothers/fitted_patches.cc). With the two-cell 1D matrices
// M(a, ar) = a M(1, r), K(a, ar) = K(1, r) / a, the generalized eigenpairs are those of the ratio
// alone, S(a, ar) = S(1, r) / √a, Λ(a, ar) = Λ(1, r) / a², so
//   Ã⁻¹ = (Π_d a_d)⁻¹ (⊗_d Ŝ_d) (Σ_d Λ̂_d / a_d²)⁻¹ (⊗_d Ŝ_dᵀ),
// with Ŝ_d, Λ̂_d read from a table of ratios (FittedRatioTable) at the patch's ratio index; with a
// coefficient the surrogate is σ times that Laplacian (σ the patch's mean coefficient), its inverse
// 1/σ times the above. A reaction term adds γ times the patch's mass matrix (γ its mean reaction
// coefficient), which the scaled eigenvectors turn into the identity: the eigenvalue sums become
// Σ_d Λ̂_d / a_d² + γ/σ.
//
// FittedPatchSolve adds Ã⁻¹ applied to the residual r to x on the interior nodes of the patches
// of one colour (which do not overlap, so the additions need no atomics). Threads (ni, ni) per
// patch, each walking one direction; P patches per block. Phases: 0 loads the patch's
// table entries and its residual into shared memory; 1..dim apply Ŝᵀ along x, y(, z) and divide
// by the eigenvalue sums; dim+1..2dim apply Ŝ along z(, y), x and add to x.
#pragma once

#include <kernels/smoothers/patch_common.h>

namespace tpmg
{
  template <int dim, int k, typename Number>
  struct FittedPatchSolve
  {
    using Shape             = PatchShape<dim, k>;
    static constexpr int ni = Shape::ni, nzi = Shape::nzi, nint = Shape::interior_dofs;
    /// about 128 threads a block; at most 64 patches (a block's z extent)
    static constexpr int P                     = cmin(64, cmax(1, 128 / (ni * ni)));
    static constexpr int n_phases              = 1 + 2 * dim;
    static constexpr int max_threads_per_block = ni * ni * P;

    struct Registers
    {};

    PatchColorGeometry geo;
    index_t            vertices[3];  ///< the level's vertices per direction (cells + 1; 1 beyond dim)
    const Number      *ratio_index;  ///< per vertex and direction: the row of the ratio table (an integer)
    const Number      *left_width;   ///< per vertex dim + 2 numbers: a_d, then 1 / (σ Π_d a_d), γ / σ
    const Number      *eigenvectors; ///< table: per ratio Ŝ (ni × ni, row = node, column = mode)
    const Number      *eigenvalues;  ///< table: per ratio Λ̂ (ni)
    const Number      *r;            ///< residual (read on the patch interiors)
    Number            *x;            ///< x += Ã⁻¹ r on the patch interiors

    static constexpr std::size_t off_s     = 0;
    static constexpr std::size_t off_l     = off_s + std::size_t(dim) * ni * ni;
    static constexpr std::size_t off_b1    = off_l + std::size_t(dim) * ni;
    static constexpr std::size_t off_b2    = off_b1 + nint;
    static constexpr std::size_t off_w     = off_b2 + nint;   ///< 1/a_d², then 1/(σ Π a_d), γ/σ
    static constexpr std::size_t per_patch = off_w + dim + 2; ///< Numbers of shared memory per patch

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((geo.n_patches + P - 1) / P);
      s.block        = Dim3{unsigned(ni), unsigned(ni), unsigned(P)};
      s.shared_bytes = std::size_t(P) * per_patch * sizeof(Number);
      return s;
    }

    static TPMG_HD int idx(int i0, int i1, int i2) { return i0 + ni * (i1 + ni * i2); }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      const int     tx = ctx.thread.x, ty = ctx.thread.y, p = ctx.thread.z;
      const index_t patch = index_t(ctx.block.x) * P + p;
      if (patch >= geo.n_patches)
        return;
      Number       *base = sh.template array<Number>(std::size_t(p) * per_patch * sizeof(Number));
      Number       *S = base + off_s, *L = base + off_l, *B1 = base + off_b1, *B2 = base + off_b2, *W = base + off_w;
      const index_t first = geo.first_index(patch);
      if constexpr (phase == 0)
        {
          unsigned q[3];
          geo.patches.coordinates(unsigned(patch), q);
          index_t v = 0;
          for (int d = dim - 1; d >= 0; --d)
            v = v * vertices[d] + geo.first_vertex[d] + 2 * index_t(q[d]);
          const int t = tx + ni * ty;
          for (int d = 0; d < dim; ++d)
            {
              const index_t row = index_t(ratio_index[v * dim + d]);
              for (int e = t; e < ni * ni; e += ni * ni)
                S[d * ni * ni + e] = eigenvectors[row * ni * ni + e];
              if (t < ni)
                L[d * ni + t] = eigenvalues[row * ni + t];
            }
          if (t == 0)
            {
              const Number *a = left_width + v * (dim + 2);
              for (int d = 0; d < dim; ++d)
                W[d] = Number(1) / (a[d] * a[d]);
              W[dim]     = a[dim];
              W[dim + 1] = a[dim + 1];
            }
          for (int z = 0; z < nzi; ++z)
            B1[idx(tx, ty, z)] = r[first + geo.offset(tx + 1, ty + 1, z + (dim == 3))];
        }
      else
        {
          // phases 1..dim: Ŝᵀ along x, y(, z); phases dim+1..2dim: Ŝ along z(, y), x. The thread
          // owns one index along the contracted direction (tx for x, ty for y and z) and keeps
          // that row of Ŝ in registers while it walks the direction it does not own (z for x
          // and y, y for z): one shared load per multiply-add instead of two.
          constexpr int  s       = phase - 1;
          constexpr bool forward = s < dim;
          constexpr int  dir     = forward ? s : 2 * dim - 1 - s;
          const Number  *in      = (s % 2 == 0) ? B1 : B2;
          Number        *out     = (s % 2 == 0) ? B2 : B1;
          const Number  *Sd      = S + dir * ni * ni;
          constexpr int  stride  = dir == 0 ? 1 : dir == 1 ? ni : ni * ni; // between nodes along dir
          const int      own     = dir == 0 ? tx : ty;
          Number         row[ni];
          for (int j = 0; j < ni; ++j)
            row[j] = forward ? Sd[j * ni + own] : Sd[own * ni + j];
          for (int w = 0; w < nzi; ++w)
            {
              int i[3] = {tx, ty, w};
              if (dir == 2)
                i[1] = w, i[2] = ty;
              const Number *line = in + idx(i[0], i[1], i[2]) - own * stride; // the node line along dir
              Number        v    = 0;
              for (int j = 0; j < ni; ++j)
                v += row[j] * line[j * stride];
              if constexpr (s == dim - 1)
                {
                  Number lambda = W[dim + 1];
                  for (int d = 0; d < dim; ++d)
                    lambda += L[d * ni + i[d]] * W[d];
                  v /= lambda;
                }
              if constexpr (s == 2 * dim - 1)
                x[first + geo.offset(i[0] + 1, i[1] + 1, i[2] + (dim == 3))] += W[dim] * v;
              else
                out[idx(i[0], i[1], i[2])] = v;
            }
        }
    }
  };
} // namespace tpmg
