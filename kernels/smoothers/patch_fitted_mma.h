// The fitted patch solves (patch_fitted.h) with their 1D products on the tensor cores
// (`Multigrid/Fitted patch kernel` = tensor_fp64 | tensor_tf32; docs/kernels.md, "Fitted patch
// kernels").
//
// A stage contracts a patch's ni^dim residual values along one direction d with that patch's
// own 1D eigenvectors: Out (ni × F) = A (ni × ni) · In (ni × F), F = ni^(dim-1) the fibers along
// d, A = Ŝ_dᵀ on the way in and Ŝ_d on the way out. A warp computes 16 × 8 tiles of Out: A
// padded to 16 × 16 (zero beyond ni) sits in registers as the lane's fragments for the whole
// stage, each tile reads its 16 × 8 block of In from shared memory and runs one or two 16×8×8
// tile products (mma.h). Against the scalar kernel, where every multiply-add loads its operand
// from shared memory, a tile product takes 2 loads per lane for 1024 multiply-adds (measured
// gains and losses by degree: docs/performance/solve.md, "Deformed meshes").
//
// Layouts: each stage reads a tensor laid out for it, fiber n at n and contraction index j at
// n + SF j, SF ≡ g/4 (mod g) with g the words of a wavefront, so that a B fragment (4
// contraction indices × 8 fibers) hits 32 distinct banks; a stage writes its output in the layout
// of the stage after it. The fibers of direction d number the other directions' indices in
// increasing order of direction (n = i_a + ni i_b).
//
// Products: `double` runs DMMA with exact products and double sums (the scalar kernel's
// results to rounding); `Tf32` rounds the operands to 10 mantissa bits and sums in float (about
// 7× the FP64 tensor rate on an H100; each operand then carries a relative error up to 2^-11:
// FittedPatches.TensorKernelsEqualTheDenseInverse bounds what that does to a patch solve). The
// CPU runner computes each lane's entries as dot products of the same (rounded) operands.
//
// Phases: 0 loads the patch's eigenpairs, widths and residual | 1..dim Ŝᵀ along x, y(, z), the
// last divided by the eigenvalue sums | dim+1..2dim Ŝ along z(, y), x, the last added to x.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/common/mma.h>
#include <kernels/smoothers/patch_common.h>
#include <kernels/smoothers/patch_fitted.h>

#include <type_traits>

namespace tpmg
{
  /// The tile products of FittedPatchSolveTensor in TF32 (10-bit mantissas, float sums).
  struct Tf32
  {};

  template <int dim, int k, typename Number, typename Products>
  struct FittedPatchSolveTensor : FittedPatchData<dim, k, Number>
  {
    static_assert(dim == 2 || dim == 3, "2D and 3D patches");
    using Shape                = PatchShape<dim, k>;
    static constexpr bool tf32 = std::is_same_v<Products, Tf32>;
    static_assert(tf32 || std::is_same_v<Products, double>, "products in double or TF32");
    /// what a fragment entry and a sum are
    using Operand = std::conditional_t<tf32, float, double>;

    static constexpr int ni = Shape::ni, nint = Shape::interior_dofs;
    static_assert(ni <= 16, "a direction's ni outputs in one 16-row tile");
    static constexpr int fibers = dim == 3 ? ni * ni : ni;
    /// the contraction stride of every stage's input (mma.h)
    static constexpr int SF = fragment_stride<Number>(fibers);
    /// tiles of 8 fibers, 16×8×8 products per tile (the contraction padded to 8 or 16)
    static constexpr int tiles = (fibers + 7) / 8, K8 = (ni + 7) / 8;
    /// warps of a patch: about six tiles each; patches of a block: about four warps in all
    static constexpr int warps                 = cmin(8, cmax(1, (tiles + 5) / 6));
    static constexpr int tiles_per_warp        = (tiles + warps - 1) / warps;
    static constexpr int P                     = cmax(1, 4 / warps);
    static constexpr int threads_per_patch     = 32 * warps;
    static constexpr int max_threads_per_block = threads_per_patch * P;
    static constexpr int n_phases              = 1 + 2 * dim;

    struct Registers
    {
      index_t first; ///< global index of the patch's first node
    };

    using Base = FittedPatchData<dim, k, Number>;
    using Base::geo;
    using Base::r;
    using Base::x;

    /// shared memory per patch, in Numbers: Ŝ_d, Λ̂_d, the scales (1/a_d², 1/(σ Π a_d), γ/σ),
    /// two tensors (each stage reads one and writes the other)
    static constexpr int off_s       = 0;
    static constexpr int off_l       = off_s + dim * ni * ni;
    static constexpr int off_w       = off_l + dim * ni;
    static constexpr int off_t       = (off_w + dim + 2 + 3) / 4 * 4;
    static constexpr int tensor_size = SF * ni;
    static constexpr int per_patch   = off_t + 2 * tensor_size;

    LaunchShape shape() const
    {
      LaunchShape s;
      s.grid.x       = unsigned((geo.n_patches + P - 1) / P);
      s.block        = Dim3{unsigned(threads_per_patch), unsigned(P), 1};
      s.shared_bytes = std::size_t(P) * per_patch * sizeof(Number);
      return s;
    }

    /// Where node i of the patch interior sits in the tensor read by the stage along d.
    static TPMG_HD int at(int d, const int (&i)[3])
    {
      const int n = dim == 2 ? i[1 - d] : d == 0 ? i[1] + ni * i[2] : d == 1 ? i[0] + ni * i[2] : i[0] + ni * i[1];
      return n + SF * i[d];
    }

    /// The direction of stage s (0..2 dim - 1) and whether it applies Ŝᵀ.
    static constexpr int  direction(int s) { return s < dim ? s : 2 * dim - 1 - s; }
    static constexpr bool forward(int s) { return s < dim; }

    template <int phase, class Shared>
    TPMG_HD void run(const KernelCtx &ctx, Shared &sh, Registers &reg) const
    {
      const int     tid = int(ctx.thread.x), p = int(ctx.thread.y);
      const index_t patch = index_t(ctx.block.x) * P + p;
      if (patch >= geo.n_patches) // (all warps of a patch alike)
        return;
      Number *base = sh.template array<Number>(std::size_t(p) * per_patch * sizeof(Number));
      Number *S = base + off_s, *L = base + off_l, *W = base + off_w, *T0 = base + off_t, *T1 = T0 + tensor_size;
      if constexpr (phase == 0)
        load(tid, patch, S, L, W, T0, reg);
      else
        {
          constexpr int s = phase - 1;
          stage<s>(tid, s % 2 == 0 ? T0 : T1, s % 2 == 0 ? T1 : T0, S + direction(s) * ni * ni, L, W, reg.first);
        }
    }

    /// The patch's eigenpairs and scales, and its residual in the layout of the x stage.
    TPMG_HD TPMG_FORCEINLINE void load(int tid, index_t patch, Number *S, Number *L, Number *W, Number *T,
                                       Registers &reg) const
    {
      reg.first = geo.first_index(patch);
      this->load_tables(patch, tid, threads_per_patch, S, L, W);
      const Number *rp = patch_pointer(r, reg.first);
      for (int e = tid; e < nint; e += threads_per_patch)
        {
          const int i[3] = {e % ni, (e / ni) % ni, dim == 3 ? e / (ni * ni) : 0};
          T[at(0, i)]    = rp[this->interior_offset(i)];
        }
    }

    /// An operand as the products take it.
    static TPMG_HD TPMG_FORCEINLINE Operand operand(Number v)
    {
      if constexpr (tf32)
        return round_to_tf32(float(v));
      else
        return double(v);
    }

    /// Stage s: Out = A In along direction(s) with A = Ŝᵀ (forward) or Ŝ, the tiles t = w,
    /// w + warps, ... of the warp w; then the epilogue of each output: the eigenvalue sums after
    /// the last forward stage, the addition to x after the last stage, else a store in the
    /// layout of the next stage.
    template <int s>
    TPMG_HD TPMG_FORCEINLINE void stage(int tid, const Number *in, Number *out, const Number *Sd, const Number *L,
                                        const Number *W, index_t first) const
    {
      constexpr int  d = direction(s), next = s + 1 < 2 * dim ? direction(s + 1) : -1;
      constexpr bool fw = forward(s);
      const int      w = tid >> 5, lane = tid & 31, gr = lane >> 2, tc = lane & 3;
      Number *const  xp = next < 0 ? patch_pointer(x, first) : nullptr; // (the last stage adds to x)
      // A(m, j): mode m from node j (Ŝᵀ) or node m from mode j (Ŝ), zero beyond ni
      auto A = [&](int m, int j) {
        return m < ni && j < ni ? operand(fw ? Sd[j * ni + m] : Sd[m * ni + j]) : Operand(0);
      };
      // B(j, n): rows beyond ni (zero columns of A) read the last node, columns beyond the
      // fibers the last fiber (their outputs are not stored): no predicates
      auto B = [&](int j, int n) { return operand(in[cmin(n, fibers - 1) + SF * cmin(j, ni - 1)]); };
#if TPMG_DEVICE_CODE
      Operand a[K8][4];
      TPMG_UNROLL
      for (int q = 0; q < K8; ++q)
        {
          a[q][0] = A(gr, 8 * q + tc);
          a[q][1] = A(gr + 8, 8 * q + tc);
          a[q][2] = A(gr, 8 * q + 4 + tc);
          a[q][3] = A(gr + 8, 8 * q + 4 + tc);
        }
      // the B values of all the warp's tiles loaded ahead, so that their latencies overlap
      Operand b[tiles_per_warp][K8][2];
      TPMG_UNROLL
      for (int u = 0; u < tiles_per_warp; ++u)
        {
          const int n = 8 * (w + u * warps) + gr;
          TPMG_UNROLL
          for (int q = 0; q < K8; ++q)
            {
              b[u][q][0] = B(8 * q + tc, n);
              b[u][q][1] = B(8 * q + 4 + tc, n);
            }
        }
#endif
      TPMG_UNROLL
      for (int u = 0; u < tiles_per_warp; ++u)
        {
          const int t = w + u * warps;
          if (t >= tiles)
            break;
          // c[2h + e] = Out(8h + gr, 8t + 2tc + e)
          Operand c[4] = {};
#if TPMG_DEVICE_CODE
          TPMG_UNROLL
          for (int q = 0; q < K8; ++q)
            {
              if constexpr (tf32)
                mma_16x8x8_tf32(c, a[q], b[u][q][0], b[u][q][1]);
              else
                mma_16x8x8(c[0], c[1], c[2], c[3], a[q][0], a[q][1], a[q][2], a[q][3], b[u][q][0], b[u][q][1]);
            }
#else
          for (int h = 0; h < 2; ++h)
            for (int e = 0; e < 2; ++e)
              for (int j = 0; j < ni; ++j)
                c[2 * h + e] += A(8 * h + gr, j) * B(j, 8 * t + 2 * tc + e);
#endif
          TPMG_UNROLL
          for (int e = 0; e < 2; ++e)
            {
              const int n = 8 * t + 2 * tc + e;
              if (n >= fibers)
                continue;
              // the fiber's indices along the other directions da < db (n = i_da + ni i_db)
              constexpr int da = d == 0 ? 1 : 0, db = dim == 2 ? da : d == 2 ? 1 : 2;
              int           i[3] = {0, 0, 0};
              i[da]              = n % ni;
              if constexpr (dim == 3)
                i[db] = n / ni;
              TPMG_UNROLL
              for (int h = 0; h < 2; ++h)
                {
                  const int m = 8 * h + gr;
                  if (m >= ni)
                    continue;
                  i[d]     = m;
                  Number v = Number(c[2 * h + e]);
                  if constexpr (s == dim - 1)
                    v /= Base::eigenvalue_sum(L, W, i);
                  if constexpr (next < 0)
                    this->add_to_x(xp + this->interior_offset(i), W[dim] * v);
                  else
                    out[at(next, i)] = v;
                }
            }
        }
    }
  };
} // namespace tpmg
