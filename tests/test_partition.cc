// The process grid and the boxes of each level (partition.h): every cell owned once, boxes
// nested from level to level, uneven splits, agglomeration of small levels, refusal of rank
// counts that cannot partition the mesh, and 64-bit index arithmetic on a level of more than
// 2^31 nodes (nothing allocated).
#include <tpmg/box_layout.h>
#include <tpmg/partition.h>

#include <gtest/gtest.h>

#include <numeric>
#include <tuple>

using namespace tpmg;

namespace
{
  std::vector<CartesianLevel> hierarchy(int dim, int degree, int level, std::array<int, 3> coarse,
                                        unsigned periodic = 0)
  {
    Domain d;
    d.dim          = dim;
    d.coarse_cells = coarse;
    d.periodic     = periodic;
    return make_hierarchy(d, degree, level);
  }

  /// The partitions the overlap tests check: 2D and 3D, 1 to 27 ranks, uneven splits, periodic
  /// directions (on one rank too). f(case's periodic bits, degree, the part's plan) for every
  /// ghosted part of every level.
  template <class F>
  void for_each_ghosted_part(F f)
  {
    struct Case
    {
      int                dim, degree, level, ranks;
      std::array<int, 3> coarse;
      unsigned           periodic = 0;
    };
    for (const Case &c :
         {Case{2, 3, 4, 2, {1, 1, 1}}, Case{2, 2, 3, 6, {3, 2, 1}}, Case{3, 2, 3, 4, {2, 2, 1}},
          Case{3, 1, 3, 8, {1, 1, 1}}, Case{3, 3, 2, 27, {3, 3, 3}}, Case{3, 2, 3, 3, {3, 1, 1}},
          Case{2, 3, 3, 1, {2, 2, 1}, 3}, Case{3, 2, 3, 2, {2, 2, 2}, 5}, Case{3, 2, 2, 4, {2, 2, 2}, 7}})
      {
        const auto               levels = hierarchy(c.dim, c.degree, c.level, c.coarse, c.periodic);
        const HierarchyPartition part(levels, make_process_grid(c.ranks, levels), 0);
        for (int l = 0; l < int(levels.size()); ++l)
          if (part.ghosted(l))
            for (int r = 0; r < part.level_grid(l).size(); ++r)
              {
                SCOPED_TRACE("dim " + std::to_string(c.dim) + " k " + std::to_string(c.degree) + " ranks " +
                             std::to_string(c.ranks) + " level " + std::to_string(l) + " rank " + std::to_string(r) +
                             " periodic " + std::to_string(c.periodic));
                f(c.periodic, index_t(c.degree), BoxLayout::plan(part, l, r));
              }
      }
  }

  /// Whether the nodes [lo, hi] along each direction meet a halo box (stored coordinates).
  bool meets(int dim, const std::array<index_t, 3> &lo, const std::array<index_t, 3> &hi, const NodeBox &b)
  {
    for (std::size_t d = 0; d < std::size_t(dim); ++d)
      if (hi[d] < b.begin[d] || lo[d] >= b.begin[d] + b.extent[d])
        return false;
    return true;
  }

  index_t box_cells(const CartesianLevel &l)
  {
    index_t n = 1;
    for (int d = 0; d < l.dim; ++d)
      n *= std::max<index_t>(0, l.cell_end[d] - l.cell_begin[d]);
    return n;
  }
} // namespace

TEST(Partition, SplitIsEvenFirstPartsLarger)
{
  EXPECT_EQ(split_cells(10, 3, 0), std::make_pair(index_t(0), index_t(4)));
  EXPECT_EQ(split_cells(10, 3, 1), std::make_pair(index_t(4), index_t(7)));
  EXPECT_EQ(split_cells(10, 3, 2), std::make_pair(index_t(7), index_t(10)));
  EXPECT_THROW(split_cells(10, 3, 3), std::invalid_argument);
}

TEST(Partition, GridMinimizesTheHalo)
{
  const auto levels = hierarchy(3, 2, 4, {1, 1, 1}); // 16^3 cells
  const auto g8     = make_process_grid(8, levels);
  EXPECT_EQ(g8.ranks, (std::array<int, 3>{{2, 2, 2}}));
  const auto g2 = make_process_grid(2, levels);
  EXPECT_EQ(g2.size(), 2);
  // a long box is cut across its long direction
  const auto long_box = hierarchy(3, 2, 2, {4, 1, 1}); // 16 x 4 x 4
  EXPECT_EQ(make_process_grid(4, long_box).ranks, (std::array<int, 3>{{4, 1, 1}}));
  const auto g6 = make_process_grid(6, hierarchy(2, 3, 3, {3, 2, 1})); // 24 x 16
  EXPECT_EQ(g6.ranks[0] * g6.ranks[1], 6);
  EXPECT_EQ(g6.ranks[2], 1);
}

TEST(Partition, EveryCellOwnedOnceAndBoxesNest)
{
  for (int n : {1, 2, 3, 4, 8})
    for (int dim : {2, 3})
      {
        const auto               levels = hierarchy(dim, 3, dim == 3 ? 4 : 6, {3, 1, 1}); // uneven for 2, 4, 8
        const ProcessGrid        grid   = make_process_grid(n, levels);
        const HierarchyPartition part(levels, grid);
        for (int l = 0; l < int(levels.size()); ++l)
          {
            index_t total = 0;
            for (int r = 0; r < n; ++r)
              {
                const CartesianLevel box = part.owned(l, r);
                total += box_cells(box);
                if (!part.distributed(l) && r > 0)
                  {
                    EXPECT_EQ(box_cells(box), 0);
                  }
                if (part.distributed(l))
                  for (int d = 0; d < dim; ++d)
                    {
                      EXPECT_GE(box.cell_end[d] - box.cell_begin[d], min_cells_per_rank);
                    }
                // the box on the next finer level is this box refined
                if (l + 1 < int(levels.size()) && part.distributed(l))
                  {
                    const CartesianLevel fine = part.owned(l + 1, r);
                    for (int d = 0; d < dim; ++d)
                      {
                        EXPECT_EQ(fine.cell_begin[d], 2 * box.cell_begin[d]);
                        EXPECT_EQ(fine.cell_end[d], 2 * box.cell_end[d]);
                      }
                  }
                // owner() agrees with the boxes
                if (box_cells(box) > 0)
                  {
                    EXPECT_EQ(part.owner(l, {box.cell_begin[0], box.cell_begin[1], dim == 3 ? box.cell_begin[2] : 0}),
                              part.distributed(l) ? r : 0);
                  }
              }
            EXPECT_EQ(total, levels[std::size_t(l)].n_cells()) << n << " ranks, " << dim << "D, level " << l;
          }
        if (n > 1)
          {
            EXPECT_FALSE(part.distributed(0)); // 3 x 1 (x 1) cells: agglomerated
          }
        EXPECT_TRUE(part.distributed(int(levels.size()) - 1));
      }
}

TEST(Partition, UnevenSplitIsBalancedWithinOneCoarseCell)
{
  // 3 ranks in x on 2^6 cells: the coarsest distributed level has at least 2 * 3 cells in x,
  // 8 (level 3), split 3 : 3 : 2 and doubled on each finer level: 24 : 24 : 16 on level 6
  const auto  levels = hierarchy(2, 1, 6, {1, 1, 1});
  ProcessGrid grid;
  grid.dim   = 2;
  grid.ranks = {3, 1, 1};
  const HierarchyPartition part(levels, grid);
  EXPECT_EQ(part.first_distributed_level(), 3);
  EXPECT_EQ(part.boundaries(6, 0), (std::vector<index_t>{0, 24, 48, 64}));
  EXPECT_EQ(part.boundaries(3, 0), (std::vector<index_t>{0, 3, 6, 8}));
}

TEST(Partition, RankCountsThatCannotPartitionAreRefused)
{
  const auto levels = hierarchy(3, 2, 2, {1, 1, 1}); // 4^3 cells: at most 2 x 2 x 2 ranks
  EXPECT_NO_THROW(make_process_grid(8, levels));
  try
    {
      make_process_grid(16, levels);
      FAIL() << "16 ranks on 4^3 cells accepted";
    }
  catch (const PartitionError &e)
    {
      EXPECT_NE(std::string(e.what()).find("16 ranks cannot partition the finest level"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("at most 8 ranks here"), std::string::npos) << e.what();
    }
  EXPECT_THROW(make_process_grid(7, levels), PartitionError); // 7 is prime and 4 < 2 * 7
  EXPECT_THROW(make_process_grid(0, levels), PartitionError);
}

TEST(Partition, IndicesOfALevelBeyond32Bits)
{
  // 3D Q2 level 11: 2048^3 cells, 4097^3 ≈ 6.9e10 nodes, on 512 ranks; nothing allocated
  const auto  levels = hierarchy(3, 2, 11, {1, 1, 1});
  const auto &fine   = levels.back();
  EXPECT_GT(fine.n_dofs(), index_t(1) << 36);
  const ProcessGrid        grid = make_process_grid(512, levels);
  const HierarchyPartition part(levels, grid);
  EXPECT_EQ(grid.ranks, (std::array<int, 3>{{8, 8, 8}}));
  index_t total = 0;
  for (int r = 0; r < 512; ++r)
    total += box_cells(part.owned(11, r));
  EXPECT_EQ(total, fine.n_cells());
  // the last rank's last node: the last node of the level
  const CartesianLevel last = part.owned(11, 511);
  const index_t        i = last.cell_end[0] * 2, j = last.cell_end[1] * 2, k = last.cell_end[2] * 2;
  EXPECT_EQ(last.dof_index(i, j, k), fine.n_dofs() - 1);
  EXPECT_EQ(last.dof_index(i, j, k), index_t(4097) * 4097 * 4097 - 1);
  EXPECT_EQ(part.owner(11, {2047, 2047, 2047}), 511);
  EXPECT_EQ(part.owner(11, {256, 0, 0}), 1);
}

TEST(Partition, HaloPlansOfALevelBeyond32BitIndices)
{
  // 3D Q3 on 3 x 5 x 7 coarse cells, level 9: 1536 x 2560 x 3584 cells, about 3.8e11 nodes,
  // uneven boxes on 512 ranks; the plans of the exchanges (box_layout.h), nothing allocated
  const auto  levels = hierarchy(3, 3, 9, {3, 5, 7});
  const int   l      = 9;
  const auto &fine   = levels.back();
  EXPECT_GT(fine.n_dofs(), index_t(1) << 38);
  const HierarchyPartition     part(levels, make_process_grid(512, levels), 0);
  std::vector<BoxLayout::Plan> plans;
  index_t                      owned = 0;
  for (int r = 0; r < 512; ++r)
    {
      plans.push_back(BoxLayout::plan(part, l, r));
      owned += plans.back().owned.size();
    }
  EXPECT_EQ(owned, fine.n_dofs()); // every node owned once, counted in 64 bits
  // what p sends to q is what q receives from p, at the same nodes of the whole level
  auto global = [&](const BoxLayout::Plan &p, const NodeBox &b) {
    NodeBox g = b;
    for (int d = 0; d < 3; ++d)
      g.begin[std::size_t(d)] += 3 * p.stored.global_offset(d);
    return g;
  };
  index_t messages = 0;
  for (int layers = 0; layers < 2; ++layers)
    for (int p = 0; p < 512; ++p)
      for (const BoxLayout::Halo &s : plans[std::size_t(p)].sends[layers])
        {
          const auto &in = plans[std::size_t(s.rank)].receives[layers];
          const auto  it = std::find_if(in.begin(), in.end(), [&](const BoxLayout::Halo &h) { return h.rank == p; });
          ASSERT_NE(it, in.end()) << "rank " << p << " sends to " << s.rank << ", which expects nothing";
          const NodeBox a = global(plans[std::size_t(p)], s.box), b = global(plans[std::size_t(s.rank)], it->box);
          EXPECT_EQ(a.begin, b.begin);
          EXPECT_EQ(a.extent, b.extent);
          for (int d = 0; d < 3; ++d) // inside both stored parts
            {
              EXPECT_GE(s.box.begin[std::size_t(d)], 0);
              EXPECT_LE(s.box.begin[std::size_t(d)] + s.box.extent[std::size_t(d)],
                        plans[std::size_t(p)].stored.nodes(d));
            }
          ++messages;
        }
  EXPECT_GT(messages, 2 * 512 * 7); // interior ranks exchange with 26 neighbours
  // an interior rank's part: its box and two ghost layers, 64-bit node counts
  const auto            &g   = part.grid();
  const BoxLayout::Plan &mid = plans[std::size_t(g.rank_of({g.ranks[0] / 2, g.ranks[1] / 2, g.ranks[2] / 2}))];
  EXPECT_EQ(mid.sends[1].size(), 26u);
  EXPECT_GT(mid.stored.n_dofs(), index_t(1) << 29);
}

TEST(Partition, LevelsWithFewDofsPerRankLiveOnRankZero)
{
  // 3D Q2, 2^5 cells per direction on 2 x 2 x 2 ranks: every level from 2 (4^3 cells) has the
  // cells; with a floor of DoFs per rank the coarser ones stay whole, the finest never does
  const auto  levels = hierarchy(3, 2, 5, {1, 1, 1});
  ProcessGrid grid;
  grid.dim   = 3;
  grid.ranks = {2, 2, 2};
  EXPECT_EQ(HierarchyPartition(levels, grid, 0, 0).first_distributed_level(), 2);
  EXPECT_EQ(HierarchyPartition(levels, grid, 0, 1).first_distributed_level(), 2);
  // level 3: 17^3 = 4913 DoFs, 614 per rank; level 4: 33^3 = 35937, 4492 per rank
  EXPECT_EQ(HierarchyPartition(levels, grid, 0, 614).first_distributed_level(), 3);
  EXPECT_EQ(HierarchyPartition(levels, grid, 0, 615).first_distributed_level(), 4);
  EXPECT_EQ(HierarchyPartition(levels, grid, 0, 4493).first_distributed_level(), 5);
  const HierarchyPartition all_whole(levels, grid, 0, index_t(1) << 40);
  EXPECT_EQ(all_whole.first_distributed_level(), 5); // the finest is split regardless
  EXPECT_FALSE(all_whole.distributed(4));
  EXPECT_TRUE(all_whole.distributed(5));
  // the boxes of the first split level are as even as its cells allow
  EXPECT_EQ(all_whole.boundaries(5, 0), (std::vector<index_t>{0, 16, 32}));
}

// Backend/Overlap exchanges = auto overlaps nothing on the levels a CUDA graph records, nor the
// outer solver's operator beside a V-cycle replayed whole as one; `always` and `never` stay.
TEST(Partition, OverlapRulesBesideCudaGraphs)
{
  const ExchangeOverlap automatic = ExchangeOverlap::automatic, never = ExchangeOverlap::never,
                        always = ExchangeOverlap::always;
  EXPECT_EQ(vcycle_overlap(automatic, true), never);
  EXPECT_EQ(vcycle_overlap(automatic, false), automatic);
  EXPECT_EQ(vcycle_overlap(always, true), always);
  EXPECT_EQ(vcycle_overlap(never, false), never);
  EXPECT_EQ(outer_overlap(automatic, true), never);
  EXPECT_EQ(outer_overlap(automatic, false), automatic);
  EXPECT_EQ(outer_overlap(always, true), always);
}

TEST(Partition, GatherLevelIsTheFirstSplitLevelsBoxesHalved)
{
  // 3D Q2, 2^5 cells per direction on 2 x 2 x 2 ranks, levels 4 and 5 split (floor 615 DoFs per
  // rank): level 3 (8^3 cells) split as level 4 is, 4 cells per rank and direction
  const auto  levels = hierarchy(3, 2, 5, {1, 1, 1});
  ProcessGrid grid;
  grid.dim   = 3;
  grid.ranks = {2, 2, 2};
  const HierarchyPartition part(levels, grid, 0, 615);
  ASSERT_EQ(part.first_distributed_level(), 4);
  const std::optional<HierarchyPartition> split = part.with_gather_level();
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first_distributed_level(), 3);
  for (int r = 0; r < grid.size(); ++r)
    for (int d = 0; d < 3; ++d)
      {
        for (int l = 4; l <= 5; ++l) // the split levels' boxes unchanged
          {
            EXPECT_EQ(split->owned(l, r).cell_begin[d], part.owned(l, r).cell_begin[d]);
            EXPECT_EQ(split->owned(l, r).cell_end[d], part.owned(l, r).cell_end[d]);
          }
        EXPECT_EQ(2 * split->owned(3, r).cell_begin[d], part.owned(4, r).cell_begin[d]);
        EXPECT_EQ(2 * split->owned(3, r).cell_end[d], part.owned(4, r).cell_end[d]);
      }
  // level 2 (4^3 cells) with the floor below its DoFs per rank, level 3 with it above; none
  // where level 2 is split (level 1 would have one cell per rank and direction)
  EXPECT_EQ(HierarchyPartition(levels, grid, 0, 614).with_gather_level().value().first_distributed_level(), 2);
  EXPECT_FALSE(HierarchyPartition(levels, grid, 0, 1).with_gather_level().has_value());
  // none on one rank
  ProcessGrid one;
  one.dim = 3;
  EXPECT_FALSE(HierarchyPartition(levels, one).with_gather_level().has_value());
  // 3 ranks along x, 2D Q1 on 3 x 1 coarse cells: level 5 (96 cells in x, split 32 : 32 : 32 from
  // a floor above level 4's 833 / 3 DoFs per rank) gathers through level 4 split 16 : 16 : 16
  ProcessGrid three;
  three.dim                       = 2;
  three.ranks                     = {3, 1, 1};
  const auto               thirds = hierarchy(2, 1, 5, {3, 1, 1});
  const HierarchyPartition even(thirds, three, 0, 278);
  ASSERT_EQ(even.first_distributed_level(), 5);
  const std::optional<HierarchyPartition> halved = even.with_gather_level();
  ASSERT_TRUE(halved.has_value());
  EXPECT_EQ(halved->boundaries(4, 0), (std::vector<index_t>{0, 16, 32, 48}));
  EXPECT_EQ(halved->boundaries(5, 0), (std::vector<index_t>{0, 32, 64, 96}));
  // none where the first split level's boundaries are odd: 7 x 2 coarse cells, level 4 (112
  // cells in x) split 38 : 37 : 37
  const auto               sevens = hierarchy(2, 1, 4, {7, 2, 1});
  const HierarchyPartition odd(sevens, three, 0, 571);
  ASSERT_EQ(odd.first_distributed_level(), 4);
  EXPECT_EQ(odd.boundaries(4, 0), (std::vector<index_t>{0, 38, 75, 112}));
  EXPECT_FALSE(odd.with_gather_level().has_value());
  // none on a periodic box (level 2 would be the gather level but for the ring along x)
  const auto               ring = hierarchy(3, 2, 4, {2, 2, 2}, 1u);
  const HierarchyPartition periodic(ring, grid, 0, 615);
  ASSERT_EQ(periodic.first_distributed_level(), 3);
  EXPECT_FALSE(periodic.with_gather_level().has_value());
}

TEST(Partition, OneRankTakesAMeshOfOneCell)
{
  const auto        levels = hierarchy(3, 1, 0, {1, 1, 1});
  const ProcessGrid grid   = make_process_grid(1, levels);
  EXPECT_EQ(grid.size(), 1);
  const HierarchyPartition part(levels, grid);
  EXPECT_EQ(part.owned(0, 0).cell_end[0], 1);
  // two ranks cannot split it, and the message says what is wrong with the mesh
  try
    {
      make_process_grid(2, levels);
      FAIL() << "2 ranks on one cell accepted";
    }
  catch (const PartitionError &e)
    {
      EXPECT_NE(std::string(e.what()).find("too small to split"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("raise Mesh/Refinement level"), std::string::npos) << e.what();
    }
}

TEST(Partition, OverlappedPatchesStayClearOfTheColourExchange)
{
  // split_patch_centres: near and inner cover a part's patch centres once, and no inner patch of
  // a colour writes a node that colour's exchange sends or reads one it receives (the exchange
  // runs beside the inner patches, BoxLayout::start_update_ghosts_after_colour), nor one that the
  // one-layer exchange of the additive Schwarz step sends or receives; with periodic directions
  // (their faces shared across the period, on one rank too) as well
  int overlapped = 0, periodic_parts = 0;
  for_each_ghosted_part([&](unsigned periodic, index_t k, const BoxLayout::Plan &plan) {
    const int             dim   = plan.stored.dim;
    const CartesianLevel &lev   = plan.stored;
    const CentreSplit     split = split_patch_centres(lev);
    CentreBox             all;
    for (int d = 0; d < dim; ++d)
      std::tie(all.first[std::size_t(d)], all.last[std::size_t(d)]) = patch_centres(lev, d);
    auto inside = [](const CentreBox &b, const std::array<index_t, 3> &v) {
      for (std::size_t d = 0; d < 3; ++d)
        if (v[d] < b.first[d] || v[d] > b.last[d])
          return false;
      return true;
    };
    const bool shared_face = !plan.sends[0].empty();
    EXPECT_EQ(split.near.empty(), !shared_face);
    if (split.inner.count() > 0 && shared_face)
      ++overlapped, periodic_parts += periodic != 0 ? 1 : 0;
    using O = ExchangeOverlap;
    EXPECT_FALSE(overlap_exchanges(split, lev, Backend::cpu, O::automatic));
    EXPECT_FALSE(overlap_exchanges(split, lev, Backend::cuda, O::automatic)); // (parts below min_overlap_dofs)
    EXPECT_FALSE(overlap_exchanges(split, lev, Backend::cuda, O::never));
    EXPECT_EQ(overlap_exchanges(split, lev, Backend::cpu, O::always), shared_face && split.inner.count() > 0);
    index_t covered = 0;
    for (index_t z = all.first[2]; z <= all.last[2]; ++z)
      for (index_t y = all.first[1]; y <= all.last[1]; ++y)
        for (index_t x = all.first[0]; x <= all.last[0]; ++x)
          {
            const std::array<index_t, 3> v{{x, y, z}};
            int                          in = inside(split.inner, v) ? 1 : 0;
            for (const CentreBox &b : split.near)
              in += inside(b, v) ? 1 : 0;
            ASSERT_EQ(in, 1) << "centre " << x << "," << y << "," << z;
            ++covered;
            if (!inside(split.inner, v))
              continue;
            int                    colour = 0;
            std::array<index_t, 3> lo{{0, 0, 0}}, hi{{0, 0, 0}};
            for (int d = 0; d < dim; ++d)
              {
                const std::size_t D = std::size_t(d);
                colour |= int(v[D] & 1) << d;
                lo[D] = k * (v[D] - 1 - lev.global_offset(d)); // the patch reads lo ... hi
                hi[D] = k * (v[D] + 1 - lev.global_offset(d)); // and writes inside
              }
            std::array<index_t, 3> wlo = lo, whi = hi;
            for (int d = 0; d < dim; ++d)
              ++wlo[std::size_t(d)], --whi[std::size_t(d)];
            for (const BoxLayout::Halo &h : plan.colour_sends[std::size_t(colour)])
              ASSERT_FALSE(meets(dim, wlo, whi, h.box))
                << "inner centre " << x << "," << y << "," << z << " writes what colour " << colour << " sends";
            for (const BoxLayout::Halo &h : plan.colour_receives[std::size_t(colour)])
              ASSERT_FALSE(meets(dim, lo, hi, h.box))
                << "inner centre " << x << "," << y << "," << z << " reads what colour " << colour << " receives";
            // the additive Schwarz step's one-layer exchange (AdditiveSchwarz::vmult):
            // an inner patch writes neither what it sends nor what it receives
            for (const BoxLayout::Halo &h : plan.sends[0])
              ASSERT_FALSE(meets(dim, wlo, whi, h.box))
                << "inner centre " << x << "," << y << "," << z << " writes what the one-layer exchange sends";
            for (const BoxLayout::Halo &h : plan.receives[0])
              ASSERT_FALSE(meets(dim, wlo, whi, h.box))
                << "inner centre " << x << "," << y << "," << z << " writes what the one-layer exchange receives";
          }
    EXPECT_EQ(covered, all.count());
  });
  EXPECT_GT(overlapped, 0);     // the finer levels have inner patches
  EXPECT_GE(periodic_parts, 6); // (and those of the periodic boxes: one rank, rings of two and four)
  // the Table 7 k = 7 level on 4 ranks (nothing allocated): the finest parts overlap on GPUs, the
  // coarser parts below min_overlap_dofs do not
  const auto               levels = hierarchy(3, 7, 7, {1, 1, 1});
  const HierarchyPartition part(levels, make_process_grid(4, levels), 0);
  const CartesianLevel     fine = BoxLayout::plan(part, 7, 0).stored, coarse = BoxLayout::plan(part, 5, 0).stored;
  using O = ExchangeOverlap;
  EXPECT_TRUE(overlap_exchanges(split_patch_centres(fine), fine, Backend::cuda, O::automatic));
  EXPECT_FALSE(overlap_exchanges(split_patch_centres(fine), fine, Backend::cpu, O::automatic));
  EXPECT_FALSE(overlap_exchanges(split_patch_centres(fine), fine, Backend::cuda, O::never));
  EXPECT_FALSE(overlap_exchanges(split_patch_centres(coarse), coarse, Backend::cuda, O::automatic));
  EXPECT_TRUE(overlap_exchanges(split_patch_centres(coarse), coarse, Backend::cpu, O::always));
}

TEST(Partition, InnerCellsStayClearOfTheOperatorExchange)
{
  // split_cells: near and inner cover the cells a part's operator computes (operator_cells: the
  // owned cells and the ghost layer next to them) once and no other, and no node of an inner
  // cell is one that the one-layer or the all-layer exchange sends or receives (the exchange of
  // DistributedOperator runs beside the inner cells); with periodic directions as well
  int overlapped = 0, periodic_parts = 0;
  for_each_ghosted_part([&](unsigned periodic, index_t k, const BoxLayout::Plan &plan) {
    const int             dim         = plan.stored.dim;
    const CartesianLevel &lev         = plan.stored;
    const CellSplit       split       = split_cells(lev);
    const bool            shared_face = !plan.sends[1].empty();
    EXPECT_EQ(split.near.empty(), !shared_face);
    if (split.inner.count() > 0 && shared_face)
      ++overlapped, periodic_parts += periodic != 0 ? 1 : 0;
    using O = ExchangeOverlap;
    EXPECT_FALSE(overlap_exchanges(split, lev, Backend::cpu, O::always));     // (never on the CPU)
    EXPECT_FALSE(overlap_exchanges(split, lev, Backend::cuda, O::automatic)); // (below min_overlap_dofs)
    EXPECT_FALSE(overlap_exchanges(split, lev, Backend::cuda, O::never));
    EXPECT_EQ(overlap_exchanges(split, lev, Backend::cuda, O::always), shared_face && split.inner.count() > 0);
    auto inside = [](const CellBox &b, const std::array<index_t, 3> &v) {
      for (std::size_t d = 0; d < 3; ++d)
        if (v[d] < b.begin[d] || v[d] >= b.end[d])
          return false;
      return true;
    };
    const CellBox computed = operator_cells(lev);
    index_t       covered  = 0;
    for (index_t z = 0; z < (dim == 3 ? lev.cells[2] : 1); ++z)
      for (index_t y = 0; y < lev.cells[1]; ++y)
        for (index_t x = 0; x < lev.cells[0]; ++x)
          {
            const std::array<index_t, 3> v{{x, y, z}};
            int                          in = inside(split.inner, v) ? 1 : 0;
            for (const CellBox &b : split.near)
              in += inside(b, v) ? 1 : 0;
            ASSERT_EQ(in, inside(computed, v) ? 1 : 0) << "cell " << x << "," << y << "," << z;
            if (in == 0)
              continue;
            ++covered;
            if (!inside(split.inner, v))
              continue;
            std::array<index_t, 3> lo{{0, 0, 0}}, hi{{0, 0, 0}}; // the cell's nodes
            for (std::size_t d = 0; d < std::size_t(dim); ++d)
              lo[d] = k * v[d], hi[d] = k * (v[d] + 1);
            for (int layers = 0; layers < 2; ++layers)
              {
                for (const BoxLayout::Halo &h : plan.sends[layers])
                  ASSERT_FALSE(meets(dim, lo, hi, h.box))
                    << "inner cell " << x << "," << y << "," << z << " adds to what the exchange sends";
                for (const BoxLayout::Halo &h : plan.receives[layers])
                  ASSERT_FALSE(meets(dim, lo, hi, h.box))
                    << "inner cell " << x << "," << y << "," << z << " adds to what the exchange receives";
              }
          }
    EXPECT_EQ(covered, computed.count());
    // the operator leaves out exactly the second ghost layer beyond each face with one
    for (int d = 0; d < dim; ++d)
      {
        EXPECT_EQ(computed.begin[d], std::max<index_t>(0, lev.cell_begin[d] - 1));
        EXPECT_EQ(computed.end[d], std::min(lev.cells[std::size_t(d)], lev.cell_end[d] + 1));
        if (lev.cell_begin[d] > 0)
          {
            EXPECT_EQ(lev.cell_begin[d], ghost_cells);
          }
      }
  });
  EXPECT_GT(overlapped, 0);
  EXPECT_GE(periodic_parts, 3);
  // the Table 7 k = 7 level on 4 ranks (nothing allocated): the finest parts overlap on GPUs
  const auto               levels = hierarchy(3, 7, 7, {1, 1, 1});
  const HierarchyPartition part(levels, make_process_grid(4, levels), 0);
  const CartesianLevel     fine = BoxLayout::plan(part, 7, 0).stored, coarse = BoxLayout::plan(part, 5, 0).stored;
  EXPECT_TRUE(overlap_exchanges(split_cells(fine), fine, Backend::cuda, ExchangeOverlap::automatic));
  EXPECT_FALSE(overlap_exchanges(split_cells(coarse), coarse, Backend::cuda, ExchangeOverlap::automatic));
}

// A part keeps the conditions of the box's faces it lies on; its faces inside the box are
// Dirichlet faces to the kernels (no Robin term there). smoothed_vertices reaches the Neumann and
// Robin faces where the rank's owned cells do, patch_centres never.
TEST(Partition, PartsKeepTheBoxFacesConditions)
{
  Domain d;
  d.dim                           = 3;
  d.coarse_cells                  = {2, 3, 2};
  d.dirichlet_faces               = all_faces & ~(1u | 8u | 16u); // x-, y+ Robin, z- Neumann
  d.robin_faces                   = 1u | 8u;
  const auto               levels = make_hierarchy(d, 2, 3);
  const ProcessGrid        grid   = make_process_grid(8, levels);
  const HierarchyPartition partition(levels, grid);
  const int                l = int(levels.size()) - 1;
  for (int rank = 0; rank < grid.size(); ++rank)
    {
      const CartesianLevel part = partition.stored(l, rank);
      ASSERT_TRUE(part.part);
      for (int dd = 0; dd < 3; ++dd)
        {
          const bool lower_box = part.global_offset(dd) == 0;
          const bool upper_box = part.global_offset(dd) + part.cells[dd] == part.global_cells(dd);
          EXPECT_EQ(part.dirichlet(2 * dd), lower_box ? levels[l].dirichlet(2 * dd) : true) << rank << " " << dd;
          EXPECT_EQ(part.dirichlet(2 * dd + 1), upper_box ? levels[l].dirichlet(2 * dd + 1) : true)
            << rank << " " << dd;
          EXPECT_EQ(part.robin(2 * dd), lower_box && levels[l].robin(2 * dd));
          EXPECT_EQ(part.robin(2 * dd + 1), upper_box && levels[l].robin(2 * dd + 1));
          const auto centres = patch_centres(part, dd), all = smoothed_vertices(part, dd);
          EXPECT_GE(centres.first, 1);
          EXPECT_LE(centres.second, part.global_cells(dd) - 1);
          const bool owns_lower = part.global_offset(dd) + part.cell_begin[dd] == 0;
          const bool owns_upper = part.global_offset(dd) + part.cell_end[dd] == part.global_cells(dd);
          EXPECT_EQ(all.first, owns_lower && !levels[l].dirichlet(2 * dd) ? 0 : centres.first) << rank << " " << dd;
          EXPECT_EQ(all.second, owns_upper && !levels[l].dirichlet(2 * dd + 1) ? part.global_cells(dd) : centres.second)
            << rank << " " << dd;
        }
    }
}
