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
// of one colour (which share no unknown: each addition is the node's only one, made by a
// fire-and-forget reduction, exclusive_add, that does not wait for the old x), or of all colours
// at once with atomic additions (the additive Schwarz step, FittedPatchLaunch). Threads (ni, ni) per
// patch, each walking one direction; P patches per block. Phases: 0 loads the patch's
// table entries and its residual into shared memory; 1..dim apply Ŝᵀ along x, y(, z) and divide
// by the eigenvalue sums; dim+1..2dim apply Ŝ along z(, y), x and add to x.
//
// FittedBoundaryPatchSolve does the same on the patches of the Neumann and Robin faces, whose
// surrogates are truncated along the faces' normals: there a direction has the one cell inside,
// of the fitted width a, and its unknowns are the face's node and the k - 1 inside the cell (the
// Cartesian boundary patches' kinds, boundary_patch.h); a Robin face adds α̅ ∫_F u v with α̅ the
// patch's mean α, which enters the direction's 1D problem as K̂ + β e eᵀ, β = α̅ a / σ, so that
// the widths scale its eigenpairs as an interior direction's. Every direction of such a patch
// reads its own eigenpairs (a ratio-table row, a free end or a Robin end): few patches, one block
// each, on the shared patch tensors of the Cartesian boundary patches.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/smoothers/boundary_patch.h>
#include <kernels/smoothers/patch_common.h>

namespace tpmg
{
  /// The arguments of the interior patches' solves (FittedPatchSolve, and FittedPatchSolveTensor
  /// in patch_fitted_mma.h), and what both load first: a patch's eigenpairs and scales.
  template <int dim, int k, typename Number>
  struct FittedPatchData
  {
    static constexpr int ni = PatchShape<dim, k>::ni;

    PatchColorGeometry geo;
    index_t            vertices[3];  ///< the level's vertices per direction (cells + 1; 1 beyond dim)
    const Number      *ratio_index;  ///< per vertex and direction: the row of the ratio table (an integer)
    const Number      *left_width;   ///< per vertex dim + 2 numbers: a_d, then 1 / (σ Π_d a_d), γ / σ
    const Number      *eigenvectors; ///< table: per ratio Ŝ (ni × ni, row = node, column = mode)
    const Number      *eigenvalues;  ///< table: per ratio Λ̂ (ni)
    const Number      *r;            ///< residual (read on the patch interiors)
    Number            *x;            ///< x += Ã⁻¹ r on the patch interiors
    /// the patches of all colours in one launch (geo of all_colours), whose unknowns overlap:
    /// atomic additions on the CPU as well
    bool atomic = false;

    /// *p += v, v a patch's term for one of its interior nodes: a fire-and-forget reduction where
    /// the launch's patches share no unknown, else an atomic addition (the same instruction on
    /// the GPU).
    TPMG_HD TPMG_FORCEINLINE void add_to_x(Number *p, Number v) const
    {
      if (atomic)
        atomic_add(p, v);
      else
        exclusive_add(p, v);
    }

    /// Offset of interior node i (0 ≤ i_d < ni) from the patch's first node, in 32 bits
    /// (PatchColorGeometry::offset32; with patch_pointer for the base).
    TPMG_HD TPMG_FORCEINLINE unsigned interior_offset(const int (&i)[3]) const
    {
      return geo.offset32(i[0] + 1, i[1] + 1, i[2] + (dim == 3));
    }

    /// The eigenvalue sum of mode i of the patch: γ/σ + Σ_d Λ̂_d(i_d) / a_d² (L and W as
    /// load_tables leaves them).
    static TPMG_HD TPMG_FORCEINLINE Number eigenvalue_sum(const Number *L, const Number *W, const int (&i)[3])
    {
      Number lambda = W[dim + 1];
      for (int d = 0; d < dim; ++d)
        lambda += L[d * ni + i[d]] * W[d];
      return lambda;
    }

    /// Thread t of n (n >= ni) copies the patch's Ŝ_d (S: dim × ni², row = node), Λ̂_d (L: dim ×
    /// ni) and scales (W: 1/a_d², then 1/(σ Π a_d), γ/σ) into shared memory.
    TPMG_HD TPMG_FORCEINLINE void load_tables(index_t patch, int t, int n, Number *S, Number *L, Number *W) const
    {
      unsigned q[3];
      geo.patches.coordinates(unsigned(patch), q);
      index_t v = 0;
      for (int d = dim - 1; d >= 0; --d)
        v = v * vertices[d] + geo.first_vertex[d] + geo.vertex_step * index_t(q[d]);
      TPMG_UNROLL
      for (int d = 0; d < dim; ++d)
        {
          const index_t row = index_t(ratio_index[v * dim + d]);
          for (int e = t; e < ni * ni; e += n)
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
    }
  };

  template <int dim, int k, typename Number>
  struct FittedPatchSolve : FittedPatchData<dim, k, Number>
  {
    using Shape             = PatchShape<dim, k>;
    static constexpr int ni = Shape::ni, nzi = Shape::nzi, nint = Shape::interior_dofs;
    /// about 128 threads a block; at most 64 patches (a block's z extent)
    static constexpr int P                     = cmin(64, cmax(1, 128 / (ni * ni)));
    static constexpr int n_phases              = 1 + 2 * dim;
    static constexpr int max_threads_per_block = ni * ni * P;
    using Base                                 = FittedPatchData<dim, k, Number>;
    using Base::geo;
    using Base::r;
    using Base::x;

    struct Registers
    {};

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
          this->load_tables(patch, tx + ni * ty, ni * ni, S, L, W);
          const Number *rp = patch_pointer(r, first);
          for (int z = 0; z < nzi; ++z)
            B1[idx(tx, ty, z)] = rp[this->interior_offset({tx, ty, z})];
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
          Number *const  xp      = s == 2 * dim - 1 ? patch_pointer(x, first) : nullptr;
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
                v /= Base::eigenvalue_sum(L, W, i);
              if constexpr (s == 2 * dim - 1)
                this->add_to_x(xp + this->interior_offset(i), W[dim] * v);
              else
                out[idx(i[0], i[1], i[2])] = v;
            }
        }
    }
  };

  /// x += Ã⁻¹ r on the unknowns of the fitted patches on the Neumann and Robin faces of one
  /// colour (one block per patch; their unknowns are disjoint within a colour), or of all colours
  /// with `atomic` additions.
  template <int dim, int k, typename Number>
  struct FittedBoundaryPatchSolve : BoundaryPatchTensor<dim, k, Number>
  {
    using Base = BoundaryPatchTensor<dim, k, Number>;
    using L    = typename Base::L;
    using Base::at;
    using Base::contract;
    using Base::cube;
    using Base::n_patches;
    using Base::patch;
    using Base::unknowns;
    using Patch                                = typename Base::Patch;
    static constexpr int ni                    = L::ni;
    static constexpr int pair_size             = ni * ni + ni; ///< one direction's eigenvectors, then values
    static constexpr int max_threads_per_block = 64;
    static constexpr int n_phases              = 2 * dim + 2;
    static constexpr int per_patch             = dim + 2; ///< 1/a_d², 1/(σ Π_d a_d), γ/σ

    struct Registers
    {};

    const int    *pair   = nullptr; ///< per patch of the launch and direction (3): its entry in `pairs`
    const Number *scales = nullptr; ///< per patch of the launch: per_patch numbers
    /// per entry the eigenvectors at unit width (ni × ni, row = the direction's unknown, column =
    /// mode; a truncated direction uses k rows and columns) and then the ni eigenvalues
    const Number *pairs = nullptr;
    const Number *r     = nullptr;
    Number       *x     = nullptr;
    /// patches of several colours in one launch, whose unknowns overlap: atomic additions to x
    bool atomic = false;

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned(n_patches);
      s.block        = Dim3{max_threads_per_block, 1, 1};
      s.shared_bytes = std::size_t(3 * cube) * sizeof(Number);
      return s;
    }

    /// 0 gather r | 1..dim Ŝᵀ along x, y(, z) | dim+1 divided by the eigenvalue sums | dim+2..2dim
    /// Ŝ along z(, y) | 2dim+1 Ŝ along x, scaled and added to x. The contractions cycle through
    /// three tensors: stage s reads T[(s-1) % 3] and writes T[s % 3].
    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &) const
    {
      auto          X = sh.template array<Number>(0);
      decltype(X)   T[3]{X, X + cube, X + 2 * cube};
      const Patch   P    = patch(index_t(ctx.block.x));
      const int     u[3] = {unknowns(P, 0), unknowns(P, 1), unknowns(P, 2)};
      const int     f[3] = {L::first(P.kind[0]), L::first(P.kind[1]), dim == 3 ? L::first(P.kind[2]) : 0};
      auto          S    = [&](int d) { return pairs + index_t(pair[3 * P.index + d]) * pair_size; };
      const Number *W    = scales + P.index * per_patch;
      if constexpr (phase == 0)
        Base::each(ctx, u,
                   [&](int i, int j, int l) { X[at(i, j, l)] = r[Base::node(P, f[0] + i, f[1] + j, f[2] + l)]; });
      else if constexpr (phase <= dim)
        contract(ctx, T[phase % 3], T[(phase - 1) % 3], S(phase - 1), ni, true, phase - 1, u, u[phase - 1], Number(1),
                 false);
      else if constexpr (phase == dim + 1)
        Base::each(ctx, u, [&](int i, int j, int l) {
          const int i3[3] = {i, j, l};
          Number    sum   = W[dim + 1];
          for (int d = 0; d < dim; ++d)
            sum += S(d)[ni * ni + i3[d]] * W[d];
          const auto B = T[dim % 3];
          const int  p = at(i, j, l);
          B[p]         = Number(B[p]) / sum;
        });
      else if constexpr (phase < n_phases - 1)
        {
          constexpr int s = phase - 1, d = 2 * dim - s;
          contract(ctx, T[s % 3], T[(s - 1) % 3], S(d), ni, false, d, u, u[d], Number(1), false);
        }
      else
        {
          constexpr int s = 2 * dim; // reads T[(s - 1) % 3]
          const auto    Z = T[(s - 1) % 3];
          Base::each(ctx, u, [&](int i, int j, int l) {
            Number v = 0;
            for (int a = 0; a < u[0]; ++a)
              v += S(0)[i * ni + a] * Z[at(a, j, l)];
            Number *target = &x[Base::node(P, f[0] + i, f[1] + j, f[2] + l)];
            if (atomic)
              atomic_add(target, W[dim] * v);
            else
              *target += W[dim] * v;
          });
        }
    }
  };
} // namespace tpmg
