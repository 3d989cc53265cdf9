// The patches of each colour split for an exchange that runs beside them (partition.h's
// split_patch_centres): those near the faces shared with other ranks, which write what the
// exchange sends or receives, and the inner ones, which may run while it is in flight. Used by the
// multiplicative smoother's colour exchanges and by the additive Schwarz step's one exchange.
#pragma once

#include <tpmg/mesh.h>
#include <tpmg/options.h>

#include <kernels/smoothers/patch_common.h>

#include <vector>

namespace tpmg
{
  struct OverlappedColours
  {
    std::vector<std::vector<PatchColorGeometry>> near;  ///< per colour: one geometry per near box
    std::vector<PatchColorGeometry>              inner; ///< per colour; empty: no overlap
    bool                                         active() const { return !inner.empty(); }
  };

  /// The near and inner geometries of `colours` of `level` (a rank's part; a colour may be
  /// all_colours), made once at setup, where overlap_exchanges says the exchanges of this part
  /// overlap; otherwise inactive (every colour then runs whole and exchanges after it).
  OverlappedColours overlapped_colours(const CartesianLevel &level, const std::vector<int> &colours, Backend backend,
                                       ExchangeOverlap overlap);
  /// The same for the colours 0 .. n_colours - 1.
  OverlappedColours overlapped_colours(const CartesianLevel &level, int n_colours, Backend backend,
                                       ExchangeOverlap overlap);
} // namespace tpmg
