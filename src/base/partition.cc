// The process grid and the boxes of each level (include/tpmg/partition.h).
#include <tpmg/partition.h>

#include <algorithm>
#include <limits>

namespace tpmg
{
  std::pair<index_t, index_t> split_cells(index_t cells, int parts, int p)
  {
    if (parts < 1 || p < 0 || p >= parts)
      throw std::invalid_argument("split_cells: part " + std::to_string(p) + " of " + std::to_string(parts));
    const index_t base = cells / parts, extra = cells % parts;
    const index_t begin = p * base + std::min<index_t>(p, extra);
    return {begin, begin + base + (p < extra ? 1 : 0)};
  }

  std::pair<index_t, index_t> patch_centres(const CartesianLevel &level, int d)
  {
    // (along a periodic direction every vertex is interior to the whole level)
    const index_t off  = level.global_offset(d);
    const bool    ring = level.periodic_in(d);
    return {off + std::max<index_t>({level.owned_begin(d), ring ? 1 : 1 - off, 1}),
            off + std::min<index_t>({level.owned_end(d),
                                     ring ? level.cells[std::size_t(d)] - 1 : level.global_cells(d) - 1 - off,
                                     level.cells[std::size_t(d)] - 1})};
  }

  std::pair<index_t, index_t> smoothed_vertices(const CartesianLevel &level, int d)
  {
    auto          range = patch_centres(level, d);
    const index_t off   = level.global_offset(d);
    if (level.periodic_in(d))
      return range;
    if (!level.dirichlet(2 * d) && off + level.owned_begin(d) == 0)
      range.first = 0;
    if (!level.dirichlet(2 * d + 1) && off + level.owned_end(d) == level.global_cells(d))
      range.second = level.global_cells(d);
    return range;
  }

  index_t CentreBox::count() const
  {
    index_t n = 1;
    for (std::size_t d = 0; d < 3; ++d)
      n *= std::max<index_t>(last[d] - first[d] + 1, 0);
    return n;
  }

  CentreSplit split_patch_centres(const CartesianLevel &level)
  {
    CentreBox all;
    for (int d = 0; d < level.dim; ++d)
      {
        const auto range          = patch_centres(level, d);
        all.first[std::size_t(d)] = range.first;
        all.last[std::size_t(d)]  = range.second;
      }
    // peel off, direction by direction, the centres within one vertex of a shared face; what
    // is left of `inner` bounds the later directions' slabs, so the boxes are disjoint
    CentreSplit split;
    split.inner = all;
    for (int d = 0; d < level.dim; ++d)
      {
        const std::size_t D     = std::size_t(d);
        const index_t     lower = level.global_offset(d) + level.owned_begin(d); // faces' vertices
        const index_t     upper = level.global_offset(d) + level.owned_end(d);
        const bool        ring  = level.periodic_in(d); // (both faces shared, across the period)
        if ((lower > 0 || ring) && split.inner.first[D] <= std::min(split.inner.last[D], lower + 1))
          {
            CentreBox slab       = split.inner;
            slab.last[D]         = std::min(split.inner.last[D], lower + 1);
            split.inner.first[D] = slab.last[D] + 1;
            if (slab.count() > 0)
              split.near.push_back(slab);
          }
        if ((upper < level.global_cells(d) || ring) && std::max(split.inner.first[D], upper - 1) <= split.inner.last[D])
          {
            CentreBox slab      = split.inner;
            slab.first[D]       = std::max(split.inner.first[D], upper - 1);
            split.inner.last[D] = slab.first[D] - 1;
            if (slab.count() > 0)
              split.near.push_back(slab);
          }
      }
    return split;
  }

  bool overlap_exchanges(const CentreSplit &split, const CartesianLevel &level, Backend backend, ExchangeOverlap mode)
  {
    index_t near = 0;
    for (const CentreBox &b : split.near)
      near += b.count();
    if (mode == ExchangeOverlap::never || near == 0 || split.inner.count() == 0)
      return false;
    if (mode == ExchangeOverlap::always)
      return true;
    return backend == Backend::cuda && level.n_dofs() >= min_overlap_dofs && split.inner.count() >= near;
  }

  CellBox operator_cells(const CartesianLevel &level)
  {
    CellBox box;
    for (int d = 0; d < level.dim; ++d)
      {
        box.begin[d] = std::max<index_t>(0, level.owned_begin(d) - 1);
        box.end[d]   = std::min<index_t>(level.cells[std::size_t(d)], level.owned_end(d) + 1);
      }
    return box;
  }

  CellSplit split_cells(const CartesianLevel &level)
  {
    CellSplit split;
    split.inner = operator_cells(level);
    // peel off, direction by direction, the cells beyond the owned box's shared faces and the
    // owned layers next to them; what is left of `inner` bounds the later directions' slabs
    for (int d = 0; d < level.dim; ++d)
      {
        const bool    ring  = level.periodic_in(d); // (both faces shared, across the period)
        const index_t off   = level.global_offset(d);
        const bool    lower = ring || off + level.owned_begin(d) > 0;
        const bool    upper = ring || off + level.owned_end(d) < level.global_cells(d);
        auto          peel  = [&](index_t from, index_t to) {
          CellBox slab  = split.inner;
          slab.begin[d] = from;
          slab.end[d]   = to;
          if (slab.count() > 0)
            split.near.push_back(slab);
        };
        if (lower)
          {
            const index_t e = std::min(split.inner.end[d], level.owned_begin(d) + operator_exchange_layers);
            peel(split.inner.begin[d], e);
            split.inner.begin[d] = e;
          }
        if (upper)
          {
            const index_t b = std::max(split.inner.begin[d], level.owned_end(d) - operator_exchange_layers);
            peel(b, split.inner.end[d]);
            split.inner.end[d] = b;
          }
      }
    return split;
  }

  bool overlap_exchanges(const CellSplit &split, const CartesianLevel &level, Backend backend, ExchangeOverlap mode)
  {
    index_t near = 0;
    for (const CellBox &b : split.near)
      near += b.count();
    if (backend != Backend::cuda || mode == ExchangeOverlap::never || near == 0 || split.inner.count() == 0)
      return false;
    return mode == ExchangeOverlap::always || (level.n_dofs() >= min_overlap_dofs && split.inner.count() >= near);
  }

  int ProcessGrid::neighbour(int rank, const std::array<int, 3> &delta, unsigned periodic,
                             std::array<int, 3> &shift) const
  {
    std::array<int, 3> c = coordinates(rank);
    for (std::size_t d = 0; d < 3; ++d)
      {
        c[d] += delta[d];
        shift[d] = 0;
        if (c[d] >= 0 && c[d] < ranks[d])
          continue;
        if (int(d) >= dim || !(periodic >> d & 1u))
          return -1;
        shift[d] = c[d] < 0 ? -1 : 1;
        c[d] -= shift[d] * ranks[d];
        if (c[d] < 0 || c[d] >= ranks[d])
          return -1; // (a delta beyond one period)
      }
    return rank_of(c);
  }

  ProcessGrid make_process_grid(int n_ranks, const std::vector<CartesianLevel> &levels)
  {
    if (levels.empty())
      throw std::invalid_argument("make_process_grid: no levels");
    if (n_ranks < 1)
      throw PartitionError("the rank count must be positive, not " + std::to_string(n_ranks));
    const CartesianLevel &fine = levels.back();
    const int             dim  = fine.dim;
    ProcessGrid           best;
    best.dim = dim;
    if (n_ranks == 1) // one rank holds the whole mesh, however small
      return best;
    double best_surface = std::numeric_limits<double>::infinity();
    bool   found        = false;
    // every ordered factoring n = a b (c)
    for (int a = 1; a <= n_ranks; ++a)
      if (n_ranks % a == 0)
        for (int b = 1; b <= n_ranks / a; ++b)
          if ((n_ranks / a) % b == 0)
            {
              const int c = n_ranks / a / b;
              if (dim == 2 && c != 1)
                continue;
              const std::array<int, 3> r{{a, b, c}};
              bool                     fits = true;
              double                   box[3], surface = 0;
              for (int d = 0; d < dim; ++d)
                {
                  fits   = fits && fine.cells[d] >= min_cells_per_rank * r[d];
                  box[d] = double(fine.cells[d]) / r[d];
                }
              if (!fits)
                continue;
              // the halo of a box: its faces (2D: edges)
              for (int d = 0; d < dim; ++d)
                surface += dim == 3 ? box[(d + 1) % 3] * box[(d + 2) % 3] : box[1 - d];
              if (surface < best_surface)
                {
                  best_surface = surface;
                  best.ranks   = r;
                  found        = true;
                }
            }
    if (!found)
      {
        index_t most = 1;
        for (int d = 0; d < dim; ++d)
          most *= fine.cells[d] / min_cells_per_rank;
        const std::string need =
          "each rank needs at least " + std::to_string(min_cells_per_rank) + " cells per direction of its box";
        if (most < 2)
          throw PartitionError(std::to_string(n_ranks) + " ranks cannot partition the finest level (" +
                               fine.describe() + "): it is too small to split, as " + need +
                               "; raise Mesh/Refinement level or Mesh/Coarse cells, or run on one rank");
        throw PartitionError(std::to_string(n_ranks) + " ranks cannot partition the finest level (" + fine.describe() +
                             "): " + need + ", and the rank count must factor into a grid of such boxes (at most " +
                             std::to_string(most) +
                             " ranks here, if the count factors so); raise Mesh/Refinement "
                             "level or run on fewer ranks");
      }
    return best;
  }

  HierarchyPartition::HierarchyPartition(const std::vector<CartesianLevel> &levels, const ProcessGrid &grid,
                                         int coarsest, index_t min_rank_dofs)
    : levels_(levels), grid_(grid)
  {
    if (levels.empty())
      throw std::invalid_argument("HierarchyPartition: no levels");
    // the ghost layers beyond a periodic face copy cells of the same level's other end
    for (const CartesianLevel &lev : levels)
      for (int d = 0; d < lev.dim; ++d)
        if (lev.periodic_in(d) && lev.cells[d] < ghost_cells)
          throw std::invalid_argument("HierarchyPartition: a periodic direction of " + std::to_string(lev.cells[d]) +
                                      " cells (at least " + std::to_string(ghost_cells) + ")");
    first_distributed_ = int(levels.size());
    for (int l = int(levels.size()) - 1; l >= 0; --l)
      {
        const CartesianLevel &lev  = levels[std::size_t(l)];
        bool                  fits = l == int(levels.size()) - 1 || lev.n_dofs() >= min_rank_dofs * grid.size();
        for (int d = 0; d < lev.dim; ++d)
          fits = fits && lev.cells[d] >= min_cells_per_rank * grid.ranks[d];
        if (!fits)
          break;
        first_distributed_ = l;
      }
    if (grid.size() > 1 && first_distributed_ == int(levels.size()))
      throw PartitionError("the finest level is too small for a grid of " + std::to_string(grid.size()) + " ranks");
    if (grid.size() > 1 && first_distributed_ <= coarsest)
      {
        // the coarse solve needs the whole coarsest level on one rank
        first_distributed_ = coarsest + 1;
        if (first_distributed_ >= int(levels.size()))
          throw PartitionError("a run on " + std::to_string(grid.size()) +
                               " ranks needs a level finer than the coarsest (level " + std::to_string(coarsest) +
                               ") to distribute; raise Mesh/Refinement level");
      }
  }

  std::optional<HierarchyPartition> HierarchyPartition::with_gather_level() const
  {
    const int g = first_distributed_ - 1;
    if (grid_.size() == 1 || g < 0 || first_distributed_ >= n_levels())
      return std::nullopt;
    const CartesianLevel &coarse = levels_[std::size_t(g)];
    if (coarse.periodic != 0)
      return std::nullopt;
    for (int d = 0; d < coarse.dim; ++d)
      if (coarse.cells[std::size_t(d)] < min_cells_per_rank * grid_.ranks[std::size_t(d)])
        return std::nullopt;
    HierarchyPartition split = *this;
    split.first_distributed_ = g;
    // the boxes of every finer level unchanged: the split of level g doubled is the present one
    for (int d = 0; d < coarse.dim; ++d)
      if (split.boundaries(first_distributed_, d) != boundaries(first_distributed_, d))
        return std::nullopt;
    return split;
  }

  bool HierarchyPartition::ghosted(int l) const
  {
    return (distributed(l) && grid_.size() > 1) || levels_.at(std::size_t(l)).periodic != 0;
  }

  ProcessGrid HierarchyPartition::level_grid(int l) const
  {
    if (distributed(l))
      return grid_;
    ProcessGrid one;
    one.dim = grid_.dim;
    return one;
  }

  index_t HierarchyPartition::boundary(int l, int d, index_t j) const
  {
    const std::vector<index_t> b = boundaries(l, d);
    const index_t              R = index_t(b.size()) - 1, N = b.back();
    const index_t              q = j >= 0 ? j / R : -((-j + R - 1) / R); // floor(j / R)
    return b[std::size_t(j - q * R)] + q * N;
  }

  std::vector<index_t> HierarchyPartition::boundaries(int l, int d) const
  {
    const CartesianLevel &lev = levels_.at(std::size_t(l));
    if (d >= lev.dim || !distributed(l))
      return {0, d < lev.dim ? lev.cells[d] : 1};
    // split on the coarsest distributed level, doubled on every finer one
    const CartesianLevel &base  = levels_[std::size_t(first_distributed_)];
    const int             shift = l - first_distributed_;
    std::vector<index_t>  b(std::size_t(grid_.ranks[d]) + 1);
    for (int p = 0; p < grid_.ranks[d]; ++p)
      b[std::size_t(p)] = split_cells(base.cells[d], grid_.ranks[d], p).first << shift;
    b.back() = lev.cells[d];
    return b;
  }

  CartesianLevel HierarchyPartition::owned(int l, int rank) const
  {
    CartesianLevel lev = levels_.at(std::size_t(l));
    if (rank < 0 || rank >= grid_.size())
      throw std::invalid_argument("HierarchyPartition::owned: rank " + std::to_string(rank));
    const auto c = grid_.coordinates(rank);
    for (int d = 0; d < 3; ++d)
      {
        if (!distributed(l))
          {
            lev.cell_begin[d] = 0;
            lev.cell_end[d]   = rank == 0 ? (d < lev.dim ? lev.cells[d] : 1) : 0;
            continue;
          }
        const std::vector<index_t> b = boundaries(l, d);
        const int                  p = d < lev.dim ? c[std::size_t(d)] : 0;
        lev.cell_begin[d]            = b[std::size_t(p)];
        lev.cell_end[d]              = b[std::size_t(p) + 1];
      }
    return lev;
  }

  CartesianLevel HierarchyPartition::stored(int l, int rank) const
  {
    CartesianLevel lev = owned(l, rank);
    if (!ghosted(l) || !stores(l, rank))
      return lev; // the whole level (owned by rank 0 alone where not distributed)
    CartesianLevel part = lev;
    part.part           = true;
    for (std::size_t d = 0; d < 3; ++d)
      {
        part.whole_cells[d] = lev.cells[d];
        part.whole_lower[d] = lev.lower[d];
        if (int(d) >= lev.dim)
          continue;
        const bool    ring = lev.periodic_in(int(d)); // (ghosts beyond both faces)
        const index_t lo =
          ring ? lev.cell_begin[d] - ghost_cells : std::max<index_t>(0, lev.cell_begin[d] - ghost_cells);
        const index_t hi =
          ring ? lev.cell_end[d] + ghost_cells : std::min<index_t>(lev.cells[d], lev.cell_end[d] + ghost_cells);
        part.offset[d]     = lo;
        part.cells[d]      = hi - lo;
        part.cell_begin[d] = lev.cell_begin[d] - lo;
        part.cell_end[d]   = lev.cell_end[d] - lo;
        part.lower[d]      = lev.lower[d] + double(lo) * lev.h[d];
        // a face of the part inside the box is boundary to the kernels (the ghost layers make it
        // so): a Dirichlet face; the faces on the box keep their conditions
        const unsigned lower_face = 1u << (2 * d), upper_face = 2u << (2 * d);
        if (lo != 0)
          part.dirichlet_faces |= lower_face, part.robin_faces &= ~lower_face;
        if (hi != lev.cells[d])
          part.dirichlet_faces |= upper_face, part.robin_faces &= ~upper_face;
      }
    return part;
  }

  int HierarchyPartition::owner(int l, const std::array<index_t, 3> &cell) const
  {
    if (!distributed(l))
      return 0;
    std::array<int, 3> c{{0, 0, 0}};
    for (int d = 0; d < levels_.at(std::size_t(l)).dim; ++d)
      {
        const std::vector<index_t> b = boundaries(l, d);
        c[std::size_t(d)]            = int(std::upper_bound(b.begin(), b.end(), cell[std::size_t(d)]) - b.begin()) - 1;
      }
    return grid_.rank_of(c);
  }
} // namespace tpmg
