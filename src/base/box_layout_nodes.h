// Node boxes of a rank's part of a level, shared by BoxLayout's plan (box_layout_plan.cc) and
// its exchanges (box_layout.cc).
#pragma once

#include <tpmg/box_layout.h>

#include <array>

namespace tpmg::box_layout_nodes
{
  /// Per direction, the whole level's nodes [first, last) of a box of cells [b, e) of a level
  /// with `cells` cells and degree k: the owned nodes [k b, k e), plus the boundary node k N
  /// for the box at the upper end (but along a periodic direction, where k N is node 0).
  inline void owned_nodes(const CartesianLevel &box, std::array<index_t, 3> &first, std::array<index_t, 3> &last)
  {
    for (std::size_t d = 0; d < 3; ++d)
      {
        if (int(d) >= box.dim)
          {
            first[d] = 0;
            last[d]  = 1;
            continue;
          }
        const index_t k       = box.degree;
        first[d]              = k * box.cell_begin[d];
        const bool upper_face = box.cell_end[d] == box.cells[d] && !box.periodic_in(int(d));
        last[d] = box.cell_end[d] > box.cell_begin[d] ? k * box.cell_end[d] + (upper_face ? 1 : 0) : first[d];
      }
  }

  inline std::array<index_t, 3> node_counts(const CartesianLevel &l) { return {{l.nodes(0), l.nodes(1), l.nodes(2)}}; }

} // namespace tpmg::box_layout_nodes
