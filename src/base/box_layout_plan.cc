// The plan of a rank's part of a level: what it stores and owns, and which node boxes it
// exchanges with its neighbours (BoxLayout::plan, include/tpmg/box_layout.h).
#include <tpmg/box_layout.h>

#include <src/base/box_layout_nodes.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

namespace tpmg
{
  namespace
  {
    using box_layout_nodes::node_counts;
    using box_layout_nodes::owned_nodes;

    /// [a0, a1) ∩ [b0, b1) per direction; an empty box (extent 0) where they miss.
    NodeBox intersect(const std::array<index_t, 3> &a0, const std::array<index_t, 3> &a1,
                      const std::array<index_t, 3> &b0, const std::array<index_t, 3> &b1)
    {
      NodeBox r;
      for (std::size_t d = 0; d < 3; ++d)
        {
          r.begin[d]  = std::max(a0[d], b0[d]);
          r.extent[d] = std::max<index_t>(0, std::min(a1[d], b1[d]) - r.begin[d]);
        }
      return r;
    }

    /// The whole level's nodes [first, last) per direction that a rank's stored part holds its
    /// owners' values of: all its nodes but an upper face that a rank other than the immediate
    /// neighbour owns (where that neighbour's box has only the ghost_cells cells the face lies
    /// beyond). Its other faces belong to the neighbours, whose boxes have at least
    /// min_cells_per_rank cells.
    /// With `one`: only the nodes of the ghost cells next to the rank's box, what a loop over the
    /// cells or patches that touch its owned nodes reads.
    void valid_nodes(const HierarchyPartition &partition, int l, int rank, bool one, std::array<index_t, 3> &first,
                     std::array<index_t, 3> &last)
    {
      const CartesianLevel part  = partition.stored(l, rank);
      const CartesianLevel owned = partition.owned(l, rank);
      const auto           c     = partition.level_grid(l).coordinates(rank);
      for (std::size_t d = 0; d < 3; ++d)
        {
          first[d] = 0;
          last[d]  = 1;
          if (int(d) >= part.dim)
            continue;
          const index_t k = part.degree, lo = part.global_offset(int(d)), hi = lo + part.cells[d];
          first[d] = k * lo;
          last[d]  = k * hi + 1;
          // the upper neighbour's box [b[c + 1], b[c + 2]) (continued beyond a periodic face):
          // its owner if hi lies inside
          if ((hi < part.global_cells(int(d)) || part.periodic_in(int(d))) &&
              hi >= partition.boundary(l, int(d), index_t(c[d]) + 2))
            last[d] = k * hi;
          if (one)
            {
              first[d] = std::max(first[d], k * (owned.cell_begin[d] - 1));
              last[d]  = std::min(last[d], k * (owned.cell_end[d] + 1) + 1);
            }
        }
    }

    /// A box of the whole level's nodes shifted into the coordinates of `part` (sign -1), or one
    /// of `part`'s nodes into the whole level's (sign +1).
    NodeBox shifted(const NodeBox &b, const CartesianLevel &part, int sign)
    {
      NodeBox r = b;
      for (int d = 0; d < part.dim; ++d)
        r.begin[std::size_t(d)] += sign * part.degree * part.global_offset(d);
      return r;
    }
    NodeBox to_part(const NodeBox &b, const CartesianLevel &part) { return shifted(b, part, -1); }
    NodeBox to_whole(const NodeBox &b, const CartesianLevel &part) { return shifted(b, part, +1); }

    index_t floor_div(index_t a, index_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

    /// The bounding box of the nodes of `box` (whole-level coordinates) that the patches of colour
    /// `colour` that `runner` computes write and that `other` does not compute itself (empty box
    /// where there are none): what `runner` must send `other` after the colour.
    NodeBox written_by_colour(const NodeBox &box, const CartesianLevel &runner, const CartesianLevel &other, int colour)
    {
      const int     dim = runner.dim;
      const index_t k   = runner.degree;
      // progressions of centres a, a + 2, ..., b of the colour's parity (empty where a > b)
      struct Centres
      {
        index_t a = 1, b = 0;
        bool    empty() const { return a > b; }
      };
      auto up   = [](index_t v, index_t parity) { return v + ((v ^ parity) & 1); };
      auto down = [](index_t v, index_t parity) { return v - ((v ^ parity) & 1); };
      // per direction: the runner's centres whose patch interior meets the box (I) and the
      // part of them `other` does not run (J: below and above its range)
      Centres I[3], J[3][2];
      for (int d = 0; d < dim; ++d)
        {
          const std::size_t dd = std::size_t(d);
          const index_t     p  = (colour >> d) & 1;
          const index_t     b0 = box.begin[dd], b1 = box.begin[dd] + box.extent[dd];
          // interior k (v - 1) + 1 ... k (v + 1) - 1 meets [b0, b1)
          const index_t lo = floor_div(b0 + 1 + k - 1, k) - 1, hi = floor_div(b1 - 2, k) + 1;
          const auto    r = smoothed_vertices(runner, d), o = smoothed_vertices(other, d);
          I[d].a = up(std::max(lo, r.first), p);
          I[d].b = down(std::min(hi, r.second), p);
          if (o.first > o.second)
            J[d][0] = I[d];
          else
            {
              J[d][0] = {I[d].a, down(std::min(I[d].b, o.first - 1), p)};
              J[d][1] = {up(std::max(I[d].a, o.second + 1), p), I[d].b};
            }
        }
      // the nodes a progression's patches write, within the box
      auto hull = [&](const Centres &c, int d, index_t &first, index_t &last) {
        const std::size_t dd = std::size_t(d);
        first                = std::min(first, std::max(box.begin[dd], k * (c.a - 1) + 1));
        last                 = std::max(last, std::min(box.begin[dd] + box.extent[dd] - 1, k * (c.b + 1) - 1));
      };
      std::array<index_t, 3> first{{0, 0, 0}}, last{{0, 0, 0}};
      bool                   any = false;
      for (int d = 0; d < dim; ++d)
        {
          if (J[d][0].empty() && J[d][1].empty())
            continue;
          bool meets = true;
          for (int e = 0; e < dim; ++e)
            meets = meets && (e == d || !I[e].empty());
          if (!meets)
            continue;
          // the patches with centres in J along d and in I along the other directions
          std::array<index_t, 3> f, l;
          for (int e = 0; e < dim; ++e)
            {
              f[std::size_t(e)] = std::numeric_limits<index_t>::max();
              l[std::size_t(e)] = std::numeric_limits<index_t>::min();
              if (e != d)
                hull(I[e], e, f[std::size_t(e)], l[std::size_t(e)]);
              else
                for (const Centres &c : J[d])
                  if (!c.empty())
                    hull(c, e, f[std::size_t(e)], l[std::size_t(e)]);
            }
          for (std::size_t e = 0; e < std::size_t(dim); ++e)
            {
              first[e] = any ? std::min(first[e], f[e]) : f[e];
              last[e]  = any ? std::max(last[e], l[e]) : l[e];
            }
          any = true;
        }
      NodeBox out;
      if (!any)
        return out; // extent 0
      for (std::size_t d = 0; d < 3; ++d)
        {
          out.begin[d]  = int(d) < dim ? first[d] : box.begin[d];
          out.extent[d] = int(d) < dim ? last[d] - first[d] + 1 : box.extent[d];
        }
      return out;
    }
  } // namespace

  BoxLayout::Plan BoxLayout::plan(const HierarchyPartition &partition, int l, int rank)
  {
    Plan                  plan;
    const ProcessGrid     grid   = partition.level_grid(l);
    const CartesianLevel &stored = plan.stored = partition.stored(l, rank);
    if (!partition.ghosted(l) || !partition.stores(l, rank))
      {
        if (partition.stores(l, rank))
          plan.owned.extent = node_counts(stored);
        return plan;
      }
    NodeBox &owned = plan.owned;
    // the owned nodes in the part's coordinates
    std::array<index_t, 3> o0, o1;
    owned_nodes(partition.owned(l, rank), o0, o1);
    owned.begin = o0;
    for (std::size_t d = 0; d < 3; ++d)
      owned.extent[d] = o1[d] - o0[d];
    owned = to_part(owned, stored);

    // the immediate neighbours (the ghost layers lie in their boxes: partition.h), around the
    // ring along periodic directions. For each offset delta this rank sends to the neighbour at
    // +delta and receives from the one at -delta what that one sends for the same delta, so that
    // two ranks that meet at several offsets (a ring of one or two boxes) list their messages to
    // each other in the same order.
    const auto period = [&](const std::array<int, 3> &shift, std::array<index_t, 3> &a, std::array<index_t, 3> &b) {
      for (int d = 0; d < stored.dim; ++d) // (into this rank's whole-level coordinates)
        {
          const index_t s = index_t(shift[std::size_t(d)]) * stored.degree * stored.global_cells(d);
          a[std::size_t(d)] += s;
          b[std::size_t(d)] += s;
        }
    };
    for (int layers : {0, 1}) // GhostLayers::one, GhostLayers::all
      {
        const bool             one = layers == 0;
        std::array<index_t, 3> v0, v1;
        valid_nodes(partition, l, rank, one, v0, v1);
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
              {
                if ((dx == 0 && dy == 0 && dz == 0) || (stored.dim == 2 && dz != 0))
                  continue;
                const std::array<int, 3> delta{{dx, dy, dz}}, back{{-dx, -dy, -dz}};
                std::array<int, 3>       to_shift, from_shift;
                const int                to   = grid.neighbour(rank, delta, stored.periodic, to_shift);
                const int                from = grid.neighbour(rank, back, stored.periodic, from_shift);
                if (to >= 0)
                  {
                    std::array<index_t, 3> w0, w1;
                    valid_nodes(partition, l, to, one, w0, w1);
                    period(to_shift, w0, w1);
                    const NodeBox send = intersect(o0, o1, w0, w1);
                    if (send.size() > 0)
                      plan.sends[layers].push_back({to, to_part(send, stored), to_shift});
                  }
                if (from >= 0)
                  {
                    std::array<index_t, 3> p0, p1;
                    owned_nodes(partition.owned(l, from), p0, p1);
                    period(from_shift, p0, p1);
                    const NodeBox receive = intersect(p0, p1, v0, v1);
                    if (receive.size() > 0)
                      plan.receives[layers].push_back({from, to_part(receive, stored), from_shift});
                  }
              }
      }
    // the layer-one exchanges after each colour of the vertex patches: what the colour's patches
    // of one side wrote in the other's ghost cells and the other did not compute itself
    const int colours = 1 << stored.dim;
    plan.colour_sends.resize(std::size_t(colours));
    plan.colour_receives.resize(std::size_t(colours));
    // (sending: this rank's patches against the neighbour's; receiving: the other way round)
    auto restrict_to_colour = [&](const std::vector<Halo> &halos, bool sending, int colour) {
      std::vector<Halo> out;
      for (const Halo &h : halos)
        {
          CartesianLevel other = partition.stored(l, h.rank); // (in this rank's coordinates)
          for (int d = 0; d < other.dim; ++d)
            other.offset[std::size_t(d)] += index_t(h.shift[std::size_t(d)]) * other.global_cells(d);
          const NodeBox w =
            written_by_colour(to_whole(h.box, stored), sending ? stored : other, sending ? other : stored, colour);
          if (w.size() > 0)
            out.push_back({h.rank, to_part(w, stored), h.shift});
        }
      return out;
    };
    for (int colour = 0; colour < colours; ++colour)
      {
        plan.colour_sends[std::size_t(colour)]    = restrict_to_colour(plan.sends[0], true, colour);
        plan.colour_receives[std::size_t(colour)] = restrict_to_colour(plan.receives[0], false, colour);
      }
    return plan;
  }

} // namespace tpmg
