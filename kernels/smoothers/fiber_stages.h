// The stages of the fiber patch kernels (patch_fiber.h): the vertex-patch smoother's local
// residual and local solve as register-tiled 1D contractions (docs/kernels.md, "Fiber kernels").
//
// Each stage contracts along one direction: thread f of a patch owns fiber f (the f-th line of
// nodes along that direction; with two fibers per thread also f + T), loads the whole fiber
// into registers and produces every output of that fiber with all loop indices known at compile
// time. So the 1D matrices, compile-time constants (fiber_data.h), reach the FMAs as immediate
// operands, and each shared-memory load feeds 2k-1 (or 2k+1) FMAs instead of one. Zero entries
// of the 1D patch matrices (nodes in different cells; the off-diagonal lumped masses) are skipped
// at compile time, and the eigenvectors are applied by parity (ParityColumns, tensor.h: about
// half the FMAs of a dense product).
//
// Stages, 3D (2D drops z): load x | z: T = M_z X, A_z X | y: U | x: r = b - Ā x, Sᵀ_x |
// Sᵀ_y | z: Sᵀ_z, divide by eigenvalue sums, S_z | S_y | S_x, update x.
// `conflict_free` and `boundary` pad the shared layouts (patch_layout.h) so that no access has
// a bank conflict; `boundary` computes the reduced residual b_I - A_IB x_B (x_I taken as zero)
// and assigns x_I = A_j^{-1} r instead of adding, so the old interior values are never loaded.
// How each kernel is tuned is fiber_policy.h.
#pragma once

#include <kernels/common/atomic.h>
#include <kernels/measurement_knobs.h>
#include <kernels/smoothers/fiber_data.h>
#include <kernels/smoothers/fiber_policy.h>
#include <kernels/smoothers/patch_common.h>
#include <kernels/smoothers/patch_layout.h>

#include <tpmg/option_enums.h>

#include <type_traits>

namespace tpmg
{
  /// `lumped_mass`: the 1D masses of the patch problems are the GLL-lumped ones (with the bp5
  /// level operator), diagonal per cell, whose zeros the contractions skip. `mass_term`: the
  /// residual stages add a constant reaction coefficient's mass term (see `shift`).
  template <int dim, int k, typename Number, PatchKernelKind kind, KernelOptimization opt, bool lumped_mass,
            bool mass_term = false>
  struct FiberStages
  {
    static_assert(opt != KernelOptimization::basic, "basic is PatchKernel");
    static_assert(!mass_term || (kind != PatchKernelKind::solve && opt != KernelOptimization::conflict_free),
                  "the mass term is compiled for the residual stages of linear_indexing and reduced_residual");
    static constexpr bool padded  = opt != KernelOptimization::linear_indexing;
    static constexpr bool reduced = opt == KernelOptimization::reduced_residual;
    static constexpr int  np = 2 * k + 1, ni = 2 * k - 1;

    /// this kernel's row of the tuning table
    static constexpr FiberKernelKey key{dim, k, int(sizeof(Number)), kind, opt};
    static constexpr FiberPolicy    policy = fiber_policy(key);

    static constexpr int  fibers_per_thread     = policy.fibers_per_thread;
    static constexpr int  threads_per_patch     = policy.threads_per_patch;
    static constexpr bool in_place_layout       = policy.in_place;
    static constexpr int  max_patches_per_block = policy.max_patches_per_block;
    using L = PatchLayouts<dim, k, padded, max_patches_per_block, in_place_layout, policy.cube_plane_stride,
                           policy.cube_row_stride>;
    static constexpr int  nzp = L::nzp, nzi = L::nzi;
    static constexpr bool in_place = L::in_place; ///< the stages overwrite the patch cubes (patch_layout.h)

    /// Kernel direction d is the mesh's direction axis(d). The residual's x-stage (b) and the
    /// update (x) touch global memory by x-fibers, one fiber per thread; a turned kernel
    /// (policy.turned) makes the lanes of those stages neighbours along the mesh's x, so a
    /// warp's access is one row of the mesh: kernel x is the mesh's z (2D: y), kernel y the
    /// mesh's x, kernel z the mesh's y. The shared layouts and the 1D data are the same in every
    /// direction; the coefficients c_d go with their directions (kernel_coefficients).
    static constexpr bool        turned = policy.turned;
    static constexpr TPMG_HD int axis(int d) { return !turned ? d : dim == 3 ? (d + 2) % 3 : 1 - d; }
    /// offset from the patch's first node of the node with kernel coordinates (i0, i1, i2)
    TPMG_HD TPMG_FORCEINLINE unsigned node_offset(int i0, int i1, int i2) const
    {
      int m[3]   = {0, 0, 0};
      m[axis(0)] = i0;
      m[axis(1)] = i1;
      if constexpr (dim == 3)
        m[axis(2)] = i2;
      return geo.offset32(m[0], m[1], m[2]);
    }
    /// The global nodes of a line of the patch, node t at base + off0 + t·step (unit: step 1,
    /// immediate offsets). With policy.pointer_chain they are indexed by 64-bit multiples of the
    /// step, which ptxas walks as a chain of pointer increments, one instruction per node;
    /// 32-bit offsets (off0 + t·step, which may wrap, so they cannot be chained) cost an addition
    /// and a widening per node.
    static constexpr bool pointer_chain = policy.pointer_chain;
    template <typename T, bool unit>
    struct NodeLine
    {
      T                          *base;
      unsigned                    off0, step;
      TPMG_HD TPMG_FORCEINLINE T &operator[](int t) const
      {
        if constexpr (unit)
          return base[off0 + unsigned(t)];
        else if constexpr (pointer_chain)
          return (base + off0)[std::size_t(step) * unsigned(t)];
        else
          return base[off0 + step * unsigned(t)];
      }
    };
    /// the patch nodes along kernel x from node (0, i1, i2): the mesh's z (2D: y) when turned
    template <typename T>
    TPMG_HD TPMG_FORCEINLINE NodeLine<T, !turned> x_line(T *patch, int i1, int i2) const
    {
      return {patch, node_offset(0, i1, i2), geo.node_stride[dim - 1]};
    }
    /// node i + 1 of interior x-fiber fg = (yi, zi) is x_fiber_line(patch, fg)[i + 1]
    template <typename T>
    TPMG_HD TPMG_FORCEINLINE NodeLine<T, !turned> x_fiber_line(T *patch, int fg) const
    {
      return x_line(patch, fg % ni + 1, dim == 3 ? fg / ni + 1 : 0);
    }

    /// Where the update re-reads x (solve kind, in place), add by exclusive_add (atomic.h: the
    /// patches of a color have disjoint interiors), which does not wait for the old value, or
    /// by a load and a store.
    static constexpr bool exclusive_update = policy.exclusive_update;
    /// The residual's x-stage reads b on its x-fiber, a wait for global memory in the middle of
    /// the stage; thread f owns x-fiber f there and is a thread of the stage before, so with
    /// prefetch_b it loads its b at the start of the stage before (registers across one barrier).
    static constexpr bool prefetch_b = policy.prefetch_b;
    /// The local solve divides by the eigenvalue sums c_0 λ_a + c_1 λ_b + c_2 λ_c (stage_turn).
    /// In double the IEEE division costs about 19 instructions with a slow-path test; the first
    /// inverse_sums_entries entries of a fiber instead multiply by the reciprocals from
    /// `inverse_sums`, ni^dim values per level (fiber_inverse_eigenvalue_sums), which all patches
    /// read, so they stay in L1.
    static constexpr int  inverse_sums_entries = policy.inverse_sums_entries;
    static constexpr bool inverse_sums_table   = inverse_sums_entries > 0;
    /// entry c n + fg of the table: 1 / (c_0 λ_a + c_1 λ_b + c_2 λ_c) for fiber fg = a + ni b of
    /// stage_turn's n fibers (2D: fg = a, no b) and its entry c
    static TPMG_HD TPMG_FORCEINLINE int inverse_sum_index(int fg, int c) { return c * (dim == 3 ? ni * ni : ni) + fg; }
    /// The eigenvalue sums with the kernel's coefficients c (coef) and the reaction term's shift
    /// s (Sᵀ M S = I in every direction, so s M⊗M⊗M adds s to each): c_0 λ_a + c_1 λ_b + s,
    /// shared by the entries of fiber (a, b) of stage_turn (2D: c_0 λ_a + s), and the sum of its
    /// entry e
    static TPMG_HD TPMG_FORCEINLINE Number eigenvalue_sum_base(const Number (&c)[3], Number s, int a, int bb)
    {
      return c[0] * C().lambda[a] + (dim == 3 ? c[1] * C().lambda[bb] : Number(0)) + s;
    }
    static TPMG_HD TPMG_FORCEINLINE Number eigenvalue_sum(const Number (&c)[3], Number base, int e)
    {
      return base + c[dim - 1] * C().lambda[e];
    }
    /// The kernel's coefficients from the mesh's (three doubles, mesh[d] for direction d): kernel
    /// direction d is mesh direction axis(d)
    template <class MeshCoefficients>
    static void kernel_coefficients(const MeshCoefficients &mesh, Number (&c)[3])
    {
      for (int i = 0; i < 3; ++i)
        c[i] = Number(mesh[i < dim ? axis(i) : i]);
    }

    // arguments
    PatchColorGeometry geo;
    Number            *x;
    const Number      *b;
    Number            *r;
    Number             coef[3];
    const Number      *inverse_sums; ///< inverse_sums_table: the reciprocals (inverse_sum_index)
    /// A constant reaction coefficient c: the patch problems add s M⊗M⊗M, s = c Π h_d (0: none).
    /// s M⊗M⊗M x = M_x M_y (s M_z x) joins the z flux: the z-stage stores c_z A_z X + s M_z X as
    /// T_a (the factor c_z, which the y-stage applied, moves here), so the x-stage is unchanged
    /// (at k = 7 in double a term there, or one more multiply-add in the y-stage, spilled).
    /// Where the stages read X = x - x_c, the lost s x_c M_z 1 = s x_c m_z (m: the 1D mass's row
    /// sums, a compile-time constant per row) is added back there too; in 2D the y-stage adds
    /// s (U1 + x_c m_y) to U2. Only the kernels compiled with `mass_term` do so: without c the
    /// Laplacian's kernels are what they were (the terms, even multiplied by s = 0, cost the
    /// Table 7 solves 1-3 %, and a run-time branch between the two forms spilled more). The
    /// solve stage's eigenvalue sums take s in every kernel (one addition per fibre).
    Number shift;

    /// the 1D data: compile-time constants
    using Data1D = FiberConstants<k, Number>;
    static TPMG_HD TPMG_FORCEINLINE const Data1D &C() { return fiber_constants<k, Number, lumped_mass>; }
    /// The eigenvectors (the fast diagonalization's six products per fiber) from the __constant__
    /// bank rather than as compile-time constants where policy.eigenvectors_in_bank (double: a
    /// DFMA takes no immediate, and ptxas materializes each constant by two instructions, while
    /// the bank's loads take one per entry and S fits the constant cache).
    static constexpr bool                 S_in_bank = policy.eigenvectors_in_bank;
    static TPMG_HD TPMG_FORCEINLINE const ParityColumns<Number, ni> &S()
    {
#if TPMG_DEVICE_CODE
      if constexpr (S_in_bank)
        return fiber_constants_bank<k, Number, lumped_mass>.S;
#endif
      return C().S;
    }
    /// whether M(i, j) is nonzero (the lumped masses are diagonal per cell): from the
    /// compile-time copy, so that the test folds away under either data source
    static TPMG_HD TPMG_FORCEINLINE bool mass_nz(int i, int j)
    {
      return fiber_constants<k, Number, lumped_mass>.M(i, j) != Number(0);
    }

    /// Σ_j M(i, j), the 1D patch mass's row sum (folds at compile time for a constant i)
    static TPMG_HD TPMG_FORCEINLINE Number mass_row_sum(int i)
    {
      Number s = 0;
      TPMG_UNROLL
      for (int j = 0; j < np; ++j)
        s += C().M(i, j);
      return s;
    }

    // structurally nonzero entries of the 1D patch matrices: row r and column j share a cell
    static constexpr bool nz(int row, int j) { return (row <= k && j <= k) || (row >= k && j >= k); }

    /// a / b for the eigenvalue sums of the local solve: with policy.approximate_division on the
    /// GPU a reciprocal instruction and a product (within 2 ulp) instead of the IEEE division
    /// (about 8 instructions and a slow-path test, ni per fiber of stage_turn); the CPU divides
    /// exactly.
    static TPMG_HD TPMG_FORCEINLINE Number divide(Number a, Number b)
    {
#if TPMG_DEVICE_CODE
      if constexpr (policy.approximate_division && sizeof(Number) == 4)
        return __fdividef(a, b);
#endif
      return a / b;
    }
    /// out = Sᵀ in (transposed) or S in, on G fibers held in registers; the parity of the
    /// eigenvectors halves the FMAs (ParityColumns).
    template <bool transposed, int G>
    TPMG_HD TPMG_FORCEINLINE void apply_S(const Number (&in)[G][ni], Number (&out)[G][ni]) const
    {
      if constexpr (transposed)
        apply_parity_columns_transposed(S(), in, out);
      else
        apply_parity_columns(S(), in, out);
    }

    // ----------------------------------------------------------------------- stages
    // Thread f of a patch owns the fibers f, f + T, f + 2T, ... (T = threads_per_patch) of a
    // stage of n fibers, groups<n> of them, those from n on masked. The fiber index g is the
    // innermost loop of every contraction, so each 1D matrix entry a thread loads feeds
    // groups<n> FMAs.
    template <int n>
    static constexpr int                groups = (n + threads_per_patch - 1) / threads_per_patch;
    static TPMG_HD TPMG_FORCEINLINE int fiber(int f, int g) { return f + g * threads_per_patch; }
    template <int n>
    static TPMG_HD TPMG_FORCEINLINE bool owns(int f, int g)
    {
      return g == 0 || fiber(f, g) < n;
    }

    /// in[g][j] = buf[at(c0, c1, j)] for the fibers of a stage of n fibers this thread owns,
    /// (c0, c1) = (fiber % E, fiber / E) the fiber's coordinates; 0 for the masked ones.
    template <int n, int E, int len, class Buf, class At>
    static TPMG_HD TPMG_FORCEINLINE void load_fibers(int f, Buf buf, At at, Number (&in)[groups<n>][len])
    {
      TPMG_UNROLL
      for (int g = 0; g < groups<n>; ++g)
        {
          const int fg = fiber(f, g);
          TPMG_UNROLL
          for (int j = 0; j < len; ++j)
            in[g][j] = owns<n>(f, g) ? Number(buf[at(fg % E, fg / E, j)]) : Number(0);
        }
    }
    /// buf[at(c0, c1, i)] = out[g][i] for the fibers this thread owns (as load_fibers).
    template <int n, int E, int len, class Buf, class At>
    static TPMG_HD TPMG_FORCEINLINE void store_fibers(int f, Buf buf, At at, const Number (&out)[groups<n>][len])
    {
      TPMG_UNROLL
      for (int g = 0; g < groups<n>; ++g)
        if (owns<n>(f, g))
          {
            const int fg = fiber(f, g);
            TPMG_UNROLL
            for (int i = 0; i < len; ++i)
              buf[at(fg % E, fg / E, i)] = out[g][i];
          }
    }

    /// The residual stages read x - c, c = x at the patch's centre: the interior rows of the
    /// patch matrix sum to zero (A_I 1 = 0), so b_I - A_I (x - c) is the same residual, but for
    /// a smooth x the sums no longer cancel |A| |x| down to |r|. In float that cancellation
    /// made the V-cycle's error grow like eps cond(A) (docs/performance/smoother.md, "Centre-value
    /// subtraction"). Not for `boundary`, whose reduced residual b_I - A_IB x_B leaves the
    /// interior out (A_IB 1 is not zero).
    template <int G, int len>
    TPMG_HD TPMG_FORCEINLINE void subtract_centre_value(Number c, Number (&in)[G][len]) const
    {
      if constexpr (!reduced)
        {
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            {
              TPMG_UNROLL
              for (int j = 0; j < len; ++j)
                in[g][j] -= c;
            }
        }
    }

    /// X <- x on the patch. A thread loads one line of nodes along the mesh's z (2D: y), the
    /// lanes of a warp neighbouring lines along the mesh's x: kernel z-fibers (x, y) (2D
    /// y-fibers x), or, turned, kernel x-fibers (y, z) (2D: yi). `boundary`: interior zero.
    template <class Buf>
    TPMG_HD void stage_load(int f, index_t first, Buf BX) const
    {
      constexpr int n = dim == 3 ? np * np : np;
      if (f >= n)
        return;
      const Number *xp = patch_pointer(x, first);
      TPMG_UNROLL
      for (int g = 0; g < groups<n>; ++g)
        if (owns<n>(f, g))
          {
            const int fg = fiber(f, g), c0 = fg % np, c1 = dim == 3 ? fg / np : 0;
            // kernel coordinates of node t of the line
            auto coordinates = [&](int t, int &u, int &v, int &w) {
              u = turned ? t : c0, v = turned ? c0 : dim == 3 ? c1 : t, w = dim == 3 ? (turned ? c1 : t) : 0;
            };
            int u0, v0, w0;
            coordinates(0, u0, v0, w0);
            // the line runs along the mesh's z (2D: y)
            const NodeLine<const Number, false> line{xp, node_offset(u0, v0, w0), geo.node_stride[dim - 1]};
            TPMG_UNROLL
            for (int t = 0; t < np; ++t)
              {
                int u, v, w;
                coordinates(t, u, v, w);
                const bool inner = u > 0 && u < np - 1 && v > 0 && v < np - 1 && (dim == 2 || (w > 0 && w < np - 1));
                const bool skip  = reduced && inner;
                BX[dim == 3 ? L::X::at(u, v, w) : L::X::at(u, v)] = skip ? Number(0) : line[t];
              }
          }
    }

    /// 3D z-stage: T_m = M_z X, T_a = A_z X (mass_term: c_z A_z X + s M_z x) on interior z rows;
    /// z-fibers (x, y).
    template <class Buf>
    TPMG_HD void stage_z(int f, Number centre, Buf BX, Buf BA, Buf BB) const
    {
      constexpr int n = np * np, G = groups<n>;
      if (f >= n)
        return;
      Number in[G][np];
      load_fibers<n, np>(
        f, BX, [](int u, int v, int z) { return L::X::at(u, v, z); }, in);
      subtract_centre_value(centre, in);
      TPMG_UNROLL
      for (int i = 0; i < ni; ++i)
        {
          Number tm[G] = {}, ta[G] = {};
          TPMG_UNROLL
          for (int j = 0; j < np; ++j)
            if (nz(i + 1, j))
              {
                TPMG_UNROLL
                for (int g = 0; g < G; ++g)
                  {
                    if (mass_nz(i + 1, j))
                      tm[g] += C().M(i + 1, j) * in[g][j];
                    ta[g] += C().A(i + 1, j) * in[g][j];
                  }
              }
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            if (owns<n>(f, g))
              {
                const int fg = fiber(f, g), u = fg % np, v = fg / np;
                BA[L::T::at(u, v, i)] = tm[g];
                if constexpr (mass_term) // the z flux c_z A_z x + s M_z x (x = X + x_c; see `shift`)
                  BB[L::T::at(u, v, i)] =
                    coef[2] * ta[g] + shift * (reduced ? tm[g] : tm[g] + centre * mass_row_sum(i + 1));
                else
                  BB[L::T::at(u, v, i)] = ta[g];
              }
        }
    }

    /// y-stage of the residual: U1 = M_y T_m, U2 = c_y A_y T_m + c_z M_y T_a (2D: T_m = X,
    /// T_a = 0); mass_term: the z-stage's T_a carries c_z and the mass term (see `shift`), so
    /// U2 = c_y A_y T_m + M_y T_a (2D: + s (U1 + x_c m_y)); y-fibers (x, zi).
    template <class Buf>
    TPMG_HD void stage_y_residual(int f, Number centre, Buf BX, Buf BA, Buf BB, Buf BC, Buf BD) const
    {
      constexpr int n = np * nzi, G = groups<n>;
      if (f >= n)
        return;
      Number tm[G][np], ta[G][np] = {};
      if constexpr (dim == 3)
        {
          auto t = [](int u, int w, int y) { return L::T::at(u, y, w); };
          load_fibers<n, np>(f, BA, t, tm);
          load_fibers<n, np>(f, BB, t, ta);
        }
      else
        {
          load_fibers<n, np>(
            f, BX, [](int u, int, int y) { return L::X::at(u, y); }, tm);
          subtract_centre_value(centre, tm);
        }
      TPMG_UNROLL
      for (int i = 0; i < ni; ++i)
        {
          Number u1[G] = {}, ua[G] = {}, ub[G] = {};
          TPMG_UNROLL
          for (int j = 0; j < np; ++j)
            if (nz(i + 1, j))
              {
                TPMG_UNROLL
                for (int g = 0; g < G; ++g)
                  {
                    if (mass_nz(i + 1, j))
                      u1[g] += C().M(i + 1, j) * tm[g][j];
                    ua[g] += C().A(i + 1, j) * tm[g][j];
                    if constexpr (dim == 3)
                      if (mass_nz(i + 1, j))
                        ub[g] += C().M(i + 1, j) * ta[g][j];
                  }
              }
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            if (owns<n>(f, g))
              {
                const int fg = fiber(f, g), u = fg % np, w = fg / np;
                BC[L::U::at(u, i, w)] = u1[g];
                if constexpr (!mass_term)
                  BD[L::U::at(u, i, w)] = coef[1] * ua[g] + (dim == 3 ? coef[2] * ub[g] : Number(0));
                else if constexpr (dim == 3)
                  BD[L::U::at(u, i, w)] = coef[1] * ua[g] + ub[g];
                else // 2D: s (U1 + x_c m_y), the mass term (x = X + x_c; see `shift`)
                  BD[L::U::at(u, i, w)] =
                    coef[1] * ua[g] + shift * (reduced ? u1[g] : u1[g] + centre * mass_row_sum(i + 1));
              }
        }
    }

    /// x-stage: for fused/residual kinds r = b - (c_x A_x U1 + M_x U2) on the x-fiber (yi, zi),
    /// for the solve kind r is read from global memory. Then either r is stored (residual
    /// kind) or Sᵀ_x r goes to V1 (layout Vx).
    template <class Buf>
    TPMG_HD void stage_x(int f, index_t first, Buf BC, Buf BD, Buf BV1, Buf,
                         const Number (&b_x)[prefetch_b ? ni : 1]) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      if (f >= n)
        return;
      const Number *bp     = patch_pointer(b, first);
      Number       *rp     = kind != PatchKernelKind::fused ? patch_pointer(r, first) : nullptr;
      auto          b_line = [&](int g) { return x_fiber_line(bp, fiber(f, g)); };
      auto          r_line = [&](int g) { return x_fiber_line(rp, fiber(f, g)); };
      Number        res[G][ni];
      if constexpr (kind == PatchKernelKind::solve)
        {
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            {
              TPMG_UNROLL
              for (int i = 0; i < ni; ++i)
                res[g][i] = owns<n>(f, g) ? r_line(g)[i + 1] : Number(0);
            }
        }
      else
        {
          Number u1[G][np], u2[G][np];
          auto   u = [](int yi, int zi, int j) { return L::U::at(j, yi, zi); };
          load_fibers<n, ni>(f, BC, u, u1);
          load_fibers<n, ni>(f, BD, u, u2);
          TPMG_UNROLL
          for (int i = 0; i < ni; ++i)
            {
              Number a[G] = {}, m[G] = {};
              TPMG_UNROLL
              for (int j = 0; j < np; ++j)
                if (nz(i + 1, j))
                  {
                    TPMG_UNROLL
                    for (int g = 0; g < G; ++g)
                      {
                        a[g] += C().A(i + 1, j) * u1[g][j];
                        if (mass_nz(i + 1, j))
                          m[g] += C().M(i + 1, j) * u2[g][j];
                      }
                  }
              TPMG_UNROLL
              for (int g = 0; g < G; ++g)
                {
                  const bool o = owns<n>(f, g);
                  Number     bi;
                  if constexpr (prefetch_b)
                    bi = b_x[i]; // G = 1: the thread's own fiber
                  else
                    bi = o ? b_line(g)[i + 1] : Number(0);
                  res[g][i] = bi - (coef[0] * a[g] + m[g]);
                  if constexpr (kind == PatchKernelKind::residual)
                    if (o)
                      r_line(g)[i + 1] = res[g][i];
                }
            }
        }
      if constexpr (kind != PatchKernelKind::residual)
        {
          Number v[G][ni];
          apply_S<true>(res, v);
          store_fibers<n, ni>(
            f, BV1, [](int yi, int zi, int c) { return L::Vx::at(c, yi, zi); }, v);
        }
    }

    /// 3D, y-fibers (a, zi): Sᵀ_y, V1 (Vx) -> V2 (Vz), or (not transposed) S_y, W1 (Vz) -> W2 (Vx).
    template <bool transposed, class Buf>
    TPMG_HD void stage_y(int f, Buf in, Buf out) const
    {
      constexpr int n = ni * ni, G = groups<n>;
      if (f >= n)
        return;
      using In  = typename std::conditional<transposed, typename L::Vx, typename L::Vz>::type;
      using Out = typename std::conditional<transposed, typename L::Vz, typename L::Vx>::type;
      Number v[G][ni], w[G][ni];
      load_fibers<n, ni>(
        f, in, [](int a, int zi, int j) { return In::at(a, j, zi); }, v);
      apply_S<transposed>(v, w);
      store_fibers<n, ni>(
        f, out, [](int a, int zi, int i) { return Out::at(a, i, zi); }, w);
    }

    /// The last direction (z in 3D, y in 2D): Sᵀ, divide by the eigenvalue sums, S.
    /// 3D: z-fibers (a, b), V2 (Vz) -> W1 (Vz). 2D: y-fibers a, V1 (Vx) -> W (Vx).
    template <class Buf>
    TPMG_HD void stage_turn(int f, Buf in, Buf out) const
    {
      constexpr int n = dim == 3 ? ni * ni : ni, G = groups<n>;
      if (f >= n)
        return;
      using In  = typename std::conditional<dim == 3, typename L::Vz, typename L::Vx>::type;
      auto   at = [](int a, int bb, int i) { return dim == 3 ? In::at(a, bb, i) : In::at(a, i); };
      Number v[G][ni], w[G][ni];
      load_fibers<n, ni>(f, in, at, v);
      apply_S<true>(v, w);
      constexpr int from_table = inverse_sums_entries; // entries c < from_table: the table
      TPMG_UNROLL
      for (int c = 0; c < from_table; ++c)
        {
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            if (owns<n>(f, g))
              w[g][c] *= inverse_sums[inverse_sum_index(fiber(f, g), c)];
        }
      if constexpr (from_table < ni)
        {
          Number base[G];
          TPMG_UNROLL
          for (int g = 0; g < G; ++g)
            {
              const int fg = owns<n>(f, g) ? fiber(f, g) : 0; // 2D: fg / ni = 0
              base[g]      = eigenvalue_sum_base(coef, shift, fg % ni, fg / ni);
            }
          TPMG_UNROLL
          for (int c = from_table; c < ni; ++c)
            {
              TPMG_UNROLL
              for (int g = 0; g < G; ++g)
                w[g][c] = divide(w[g][c], eigenvalue_sum(coef, base[g], c));
            }
        }
      apply_S<false>(w, v);
      store_fibers<n, ni>(f, out, at, v);
    }

    /// S_x on x-fibers (yi, zi) and the update of the interior: x_I += c, or x_I = c for
    /// `boundary` (whose residual already excluded x_I). The old x_I comes from X, or, where X
    /// was overwritten in place, from global memory (this block loaded it in phase 0, and the
    /// patches of a color do not overlap).
    template <class Buf>
    TPMG_HD void stage_update(int f, index_t first, Buf in, Buf BX) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      if (f >= n)
        return;
      Number v[G][ni], w[G][ni];
      load_fibers<n, ni>(
        f, in, [](int yi, int zi, int j) { return L::Vx::at(j, yi, zi); }, v);
      apply_S<false>(v, w);
      update_interior(f, first, w, BX);
    }

    /// The memory skeleton's last phase (TPMG_SMOOTHER_MEMORY_SKELETON): the corrections are
    /// b_I, read on the x-fibers of stage_x, and go through the update of stage_update.
    template <class Buf>
    TPMG_HD void stage_skeleton_update(int f, index_t first, Buf BX) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      if (f >= n)
        return;
      Number w[G][ni];
      TPMG_UNROLL
      for (int g = 0; g < G; ++g)
        {
          TPMG_UNROLL
          for (int i = 0; i < ni; ++i)
            w[g][i] = owns<n>(f, g) ? x_fiber_line(patch_pointer(b, first), fiber(f, g))[i + 1] : Number(0);
        }
      update_interior(f, first, w, BX);
    }

    /// x_I += w (or x_I = w, `boundary`) on the x-fibers (yi, zi) this thread owns.
    template <class Buf>
    TPMG_HD void update_interior(int f, index_t first, const Number (&w)[groups<ni * nzi>][ni], Buf BX) const
    {
      constexpr int n = ni * nzi, G = groups<n>;
      Number *const xp = patch_pointer(x, first);
      TPMG_UNROLL
      for (int g = 0; g < G; ++g)
        if (owns<n>(f, g))
          {
            const int  fg = fiber(f, g), yi = fg % ni, zi = fg / ni;
            const int  zg   = dim == 3 ? zi + 1 : 0;
            const auto line = x_fiber_line(xp, fg);
            TPMG_UNROLL
            for (int i = 0; i < ni; ++i)
              {
                const Number  s  = w[g][i];
                Number *const xi = &line[i + 1];
                if constexpr (reduced)
                  *xi = s;
                else if constexpr (kind == PatchKernelKind::solve || in_place)
                  {
                    if constexpr (exclusive_update)
                      exclusive_add(xi, s);
                    else
                      *xi += s;
                  }
                else
                  *xi = BX[L::X::at(i + 1, yi + 1, zg)] + s;
              }
          }
    }
  };
} // namespace tpmg
