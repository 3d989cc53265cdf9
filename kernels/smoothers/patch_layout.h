// Shared-memory layouts of the patch tensors (CuTe-style layout objects): a tensor of
// extents (E0, E1, E2) is stored at i0 + S1 i1 + S2 i2 within a patch's slot, and the P
// patches of a block lie s apart: address = p s + (i0 + S1 i1 + S2 i2), s ≡ m (mod 2m).
//
// Why this is conflict-free. The fiber kernels give thread l = p + P f the fiber f of patch
// p, f running lexicographically over the two free indices (u, v) of the fiber direction,
// f = u + E_u v. The hardware serves a float access per warp (32 consecutive l) and a double
// access per half-warp (16 consecutive l; bank_recorder.h); with B = 32 (float) or 16
// (double) such a group covers all p and an aligned window of m = B/P consecutive f. If the
// element offsets A(f) = c_u u + c_v v of those fibers are distinct modulo m, then with
// s = m·o (mod B), o odd, the address p s + A(f) is m·((p o + A(f)/m) mod P) + A(f) mod m
// modulo B: distinct over the group, i.e. one bank (float) or bank pair (double) per lane and
// a single wavefront. The strides are the smallest found (S1 first, then S2) for which every
// access pattern of the tensor has this property for every P the kernels allow.
#pragma once

#include <kernels/common/tensor.h>

#include <type_traits>
#include <utility>

namespace tpmg
{
  /// An access pattern: fibers f = u + Eu v (u < Eu, v < Ev) at word offsets cu u + cv v,
  /// where a coefficient given as -1 means "S1" and -2 means "S2" of the tensor.
  struct FiberAccess
  {
    int Eu, Ev, cu, cv;
  };

  namespace internal
  {
    constexpr int coefficient(int c, int S1, int S2) { return c == -1 ? S1 : c == -2 ? S2 : c; }

    /// Are the offsets of every aligned window of m fibers distinct modulo m?
    constexpr bool distinct_in_windows(const FiberAccess &a, int S1, int S2, int m)
    {
      const int n  = a.Eu * a.Ev;
      const int cu = coefficient(a.cu, S1, S2), cv = coefficient(a.cv, S1, S2);
      for (int w0 = 0; w0 < n; w0 += m)
        {
          unsigned long long seen = 0;
          for (int f = w0; f < w0 + m && f < n; ++f)
            {
              const int r = ((cu * (f % a.Eu) + cv * (f / a.Eu)) % m + m) % m;
              if ((seen >> r) & 1ull)
                return false;
              seen |= 1ull << r;
            }
        }
      return true;
    }

    constexpr bool uses(const FiberAccess &a, int which) { return a.cu == which || a.cv == which; }

    template <int n_access>
    constexpr bool conflict_free(const FiberAccess (&acc)[n_access], int S1, int S2, int max_patches, int level)
    {
      // level 1: only the patterns that do not involve S2; level 2: all
      for (int i = 0; i < n_access; ++i)
        if (level == 2 || !uses(acc[i], -2))
          for (int P = 1; P <= max_patches && P <= 32; P *= 2)
            if (!distinct_in_windows(acc[i], S1, S2, 32 / P))
              return false;
      return true;
    }
  } // namespace internal

  /// Strides {S1, S2} for extents (E0, E1) and the given access patterns.
  template <int n_access>
  constexpr std::pair<int, int> conflict_free_strides(int E0, int E1, const FiberAccess (&acc)[n_access],
                                                      int max_patches)
  {
    for (int S1 = E0; S1 < E0 + 64; ++S1)
      if (internal::conflict_free(acc, S1, 0, max_patches, 1))
        for (int S2 = S1 * E1; S2 < S1 * E1 + 64; ++S2)
          if (internal::conflict_free(acc, S1, S2, max_patches, 2))
            return {S1, S2};
    return {-1, -1}; // no layout found: a static_assert at the use site reports it
  }


  /// The tensors of the fiber patch kernels (patch_smoother_fiber.h) and the fibers that
  /// access them. 3D (u fastest):
  ///   X  (np,np,np): z-fibers (x,y); x-fibers (yi,zi) at +1 offsets (old x at the update)
  ///   T  (np,np,ni): z-fibers (x,y) write; y-fibers (x,zi) read
  ///   U  (np,ni,ni): y-fibers (x,zi) write; x-fibers (yi,zi) read
  ///   Vx (ni,ni,ni): x-fibers (yi,zi) and y-fibers (a,zi)
  ///   Vz (ni,ni,ni): y-fibers (a,zi) and z-fibers (a,b)
  /// 2D: X (np,np): y-fibers x, x-fibers yi; U (np,ni): y-fibers x, x-fibers yi;
  /// Vx (ni,ni): x-fibers yi, y-fibers a.
  /// In place (unpadded only), every tensor is a view into the patch cube X: T(x,y,i) is
  /// X(x,y,i+1), U(x,i,j) is X(x,i+1,j+1), Vx and Vz are the interior X(+1,+1,+1). Each stage
  /// reads whole fibers into registers and writes results to positions of the same fibers, so
  /// the kernels may work in place. No padding makes this cube conflict-free for
  /// the fibers of all three directions at once (e.g. double k = 2), hence the padded layouts
  /// stay separate tensors.
  /// plane_stride > 0 (in place only): the cube's planes lie that many words apart instead of
  /// np · (row stride) (FiberPatchKernel::cube_plane_stride); row_stride > 0: its rows that many
  /// instead of np (FiberPatchKernel::cube_row_stride).
  template <int dim, int k, bool padded, int max_patches, bool in_place_ = false, int plane_stride = 0,
            int row_stride = 0>
  struct PatchLayouts
  {
    static constexpr int cube_row = row_stride > 0 ? row_stride : 2 * k + 1;
    static_assert((plane_stride == 0 && row_stride == 0) ||
                    (in_place_ && dim == 3 && cube_row >= 2 * k + 1 &&
                     (plane_stride == 0 || plane_stride >= cube_row * (2 * k + 1))),
                  "row and plane strides for the 3D in-place cube only");
    static_assert(!(padded && in_place_), "the padded layouts are separate tensors");
    static constexpr int np = 2 * k + 1, ni = 2 * k - 1;
    static constexpr int nzp = dim == 3 ? np : 1, nzi = dim == 3 ? ni : 1;
    static constexpr int S1 = -1, S2 = -2;

    static constexpr FiberAccess x3[]  = {{np, np, 1, S1}, {ni, ni, S1, S2}};
    static constexpr FiberAccess t3[]  = {{np, np, 1, S1}, {np, ni, 1, S2}};
    static constexpr FiberAccess u3[]  = {{np, ni, 1, S2}, {ni, ni, S1, S2}};
    static constexpr FiberAccess vx3[] = {{ni, ni, S1, S2}, {ni, ni, 1, S2}};
    static constexpr FiberAccess vz3[] = {{ni, ni, 1, S2}, {ni, ni, 1, S1}};
    static constexpr FiberAccess x2[]  = {{np, 1, 1, 0}, {ni, 1, S1, 0}};
    static constexpr FiberAccess u2[]  = {{np, 1, 1, 0}, {ni, 1, S1, 0}};
    static constexpr FiberAccess v2[]  = {{ni, 1, S1, 0}, {ni, 1, 1, 0}};

    template <int E0, int E1, int E2, int n>
    static constexpr std::pair<int, int> strides(const FiberAccess (&acc)[n])
    {
      return padded ? conflict_free_strides(E0, E1, acc, max_patches) : std::pair<int, int>{E0, E0 * E1};
    }
    static constexpr auto sx  = plane_stride > 0 || row_stride > 0
                                  ? std::pair<int, int>{cube_row, plane_stride > 0 ? plane_stride : cube_row *np}
                                : dim == 3 ? strides<np, np, np>(x3)
                                           : strides<np, np, 1>(x2);
    static constexpr auto st  = strides<np, np, ni>(t3);
    static constexpr auto su  = dim == 3 ? strides<np, ni, ni>(u3) : strides<np, ni, 1>(u2);
    static constexpr auto svx = dim == 3 ? strides<ni, ni, ni>(vx3) : strides<ni, ni, 1>(v2);
    static constexpr auto svz = strides<ni, ni, ni>(vz3);

    static constexpr bool in_place = in_place_;
    using X                        = TensorLayout<np, np, nzp, sx.first, sx.second>;
    // unpadded: offsets of the views into X (z + 1 in 3D, y + 1, x + 1)
    static constexpr int oz = dim == 3 ? X::S2 : 0, oy = X::S1, ox = 1;
    template <int E0, int E1, int E2, int S1, int S2, int O>
    using Tensor = std::conditional_t<in_place, TensorLayout<E0, E1, E2, X::S1, X::S2, O, X::size>,
                                      TensorLayout<E0, E1, E2, S1, S2>>;
    using T      = Tensor<np, np, nzi, st.first, st.second, oz>;
    using U      = Tensor<np, ni, nzi, su.first, su.second, oy + oz>;
    using Vx     = Tensor<ni, ni, nzi, svx.first, svx.second, ox + oy + oz>;
    using Vz     = Tensor<ni, ni, nzi, svz.first, svz.second, ox + oy + oz>;
  };
} // namespace tpmg
