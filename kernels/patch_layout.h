// Shared-memory layouts of the patch tensors (CuTe-style layout objects): a tensor of
// extents (E0, E1, E2) is stored at i0 + S1 i1 + S2 i2, and P patches of a block are
// interleaved, patch index fastest: address = p + P (i0 + S1 i1 + S2 i2).
//
// Why this is conflict-free. The patch kernels give thread l = p + P f the fiber f of patch p,
// f running lexicographically over the two free indices of the fiber (u + E_u v). A warp's
// addresses are then p + P A(f) for 32 consecutive l. If A(f) ≡ c f (mod 32) with c odd, the
// map is one-to-one modulo 32 (float: every lane its own bank) and every residue modulo 16
// appears exactly twice (double: two wavefronts, the minimum for 256 bytes). The strides
// below are the smallest ones with A(u + E_u v) ≡ c (u + E_u v) for the fibers each tensor
// meets (see PatchLayouts), P a power of two.
#pragma once

#include <tpmg/config.h>

namespace tpmg
{
  /// Smallest s >= min with s ≡ residue (mod 32).
  constexpr int congruent_at_least(int min, int residue)
  {
    int s = min;
    while (((s - residue) % 32 + 32) % 32 != 0)
      ++s;
    return s;
  }

  /// Inverse of an odd number modulo 32.
  constexpr int inverse_mod32(int a)
  {
    for (int x = 1; x < 32; x += 2)
      if (((a * x) % 32 + 32) % 32 == 1)
        return x;
    return 1;
  }

  template <int E0_, int E1_, int E2_, int S1_, int S2_>
  struct TensorLayout
  {
    static constexpr int E0 = E0_, E1 = E1_, E2 = E2_, S1 = S1_, S2 = S2_;
    static constexpr int size = E2 > 1 ? S2 * E2 : S1 * E1; ///< elements one patch occupies
    static TPMG_HD constexpr int at(int i0, int i1, int i2 = 0) { return i0 + S1 * i1 + S2 * i2; }
  };

  /// Natural (unpadded) lexicographic layout.
  template <int E0, int E1, int E2>
  using DenseLayout = TensorLayout<E0, E1, E2, E0, E0 * E1>;

  /// The layouts of the fiber patch kernels (patch_smoother_fiber.h), padded or not.
  /// 3D tensors and the fibers that access them (u fastest):
  ///   X  (np,np,np): z-fibers (x,y) write/read; x-fibers (yi,zi) read at +1 offsets
  ///   T  (np,np,ni): z-fibers (x,y) write; y-fibers (x,zi) read
  ///   U  (np,ni,ni): y-fibers (x,zi) write; x-fibers (yi,zi) read
  ///   Vx (ni,ni,ni): x-fibers (yi,zi) write or read; y-fibers (a,zi) read or write
  ///   Vz (ni,ni,ni): y-fibers (a,zi) write or read; z-fibers (a,b) read or write
  /// In 2D all strides are odd and the natural layouts are conflict-free.
  template <int dim, int k, bool padded>
  struct PatchLayouts
  {
    static constexpr int np = 2 * k + 1, ni = 2 * k - 1;
    static constexpr int nzp = dim == 3 ? np : 1, nzi = dim == 3 ? ni : 1;
    static constexpr int a = (np * inverse_mod32(ni)) % 32;

    using X  = TensorLayout<np, np, nzp, np, padded && dim == 3 ? congruent_at_least(np * np, np * ni) : np * np>;
    using T  = TensorLayout<np, np, nzi, np, padded && dim == 3 ? congruent_at_least(np * np, np) : np * np>;
    static constexpr int u_s1 = padded && dim == 3 ? congruent_at_least(np, a) : np;
    using U  = TensorLayout<np, ni, nzi, u_s1, padded && dim == 3 ? congruent_at_least(u_s1 * ni, np) : u_s1 * ni>;
    static constexpr int vx_s1 = padded && dim == 3 ? congruent_at_least(ni, 1) : ni;
    using Vx = TensorLayout<ni, ni, nzi, vx_s1, padded && dim == 3 ? congruent_at_least(vx_s1 * ni, ni) : vx_s1 * ni>;
    using Vz = TensorLayout<ni, ni, nzi, ni, padded && dim == 3 ? congruent_at_least(ni * ni, ni) : ni * ni>;
  };
} // namespace tpmg
