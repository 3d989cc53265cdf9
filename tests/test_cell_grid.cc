// Division by run-time divisors as multiply-high and shift (kernels/common/cell_grid.h).
#include <gtest/gtest.h>

#include <kernels/common/cell_grid.h>

#include <array>
#include <random>
#include <vector>

using namespace tpmg;

TEST(CellGrid, FastDivisorIsExactOverThe31BitRange)
{
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 1; d <= 1100; ++d)
    divisors.push_back(d);
  for (int l = 10; l <= 31; ++l)
    for (std::int64_t d : {(std::int64_t(1) << l) - 1, std::int64_t(1) << l, (std::int64_t(1) << l) + 1,
                           3 * (std::int64_t(1) << (l - 2)) + 1})
      if (d < (std::int64_t(1) << 31))
        divisors.push_back(d);
  for (std::int64_t d : {46341, 65521, 1000003, 2147483629}) // ⌈√2^31⌉, three primes up to 2^31 - 19
    divisors.push_back(d);
  std::mt19937                            gen(5);
  std::uniform_int_distribution<unsigned> any(0, (1u << 31) - 1);
  for (std::int64_t d64 : divisors)
    {
      const FastDivisor     f(d64);
      const unsigned        d = unsigned(d64);
      std::vector<unsigned> n{0, 1, (1u << 31) - 1, (1u << 31) - 2};
      for (unsigned m : {1u, 2u, 1000u, 65535u, (1u << 31) / d}) // around multiples of d
        for (int e = -1; e <= 1; ++e)
          {
            const long long v = (long long)(m)*d + e;
            if (v >= 0 && v < (1ll << 31))
              n.push_back(unsigned(v));
          }
      for (int i = 0; i < 200; ++i)
        n.push_back(any(gen));
      for (unsigned v : n)
        ASSERT_EQ(f.quotient(v), v / d) << v << " / " << d;
    }
  EXPECT_THROW(FastDivisor(0), std::invalid_argument);
  EXPECT_THROW(FastDivisor(std::int64_t(1) << 31), std::invalid_argument);
}

TEST(CellGrid, CoordinatesOfEveryCell)
{
  for (const std::array<index_t, 3> c : {std::array<index_t, 3>{7, 5, 3}, std::array<index_t, 3>{1, 1, 9},
                                         std::array<index_t, 3>{16, 1, 1}, std::array<index_t, 3>{3, 11, 1}})
    {
      const index_t  cells[3] = {c[0], c[1], c[2]};
      const CellGrid grid(cells, "test");
      unsigned       i = 0;
      for (unsigned z = 0; z < c[2]; ++z)
        for (unsigned y = 0; y < c[1]; ++y)
          for (unsigned x = 0; x < c[0]; ++x, ++i)
            {
              unsigned cc[3];
              grid.coordinates(i, cc);
              ASSERT_EQ(cc[0], x);
              ASSERT_EQ(cc[1], y);
              ASSERT_EQ(cc[2], z);
            }
    }
  const index_t big[3] = {2048, 1024, 1024}; // 2^31 cells
  EXPECT_THROW(CellGrid(big, "test"), std::invalid_argument);
}

TEST(CellGrid, ColoursEnumerateEveryCellOnceAndShareNoNode)
{
  for (const std::array<index_t, 3> c : {std::array<index_t, 3>{7, 5, 3}, std::array<index_t, 3>{1, 4, 1},
                                         std::array<index_t, 3>{6, 3, 2}, std::array<index_t, 3>{5, 2, 1}})
    for (int dim : {2, 3})
      {
        if (dim == 2 && c[2] != 1)
          continue;
        const index_t    cells[3] = {c[0], c[1], c[2]};
        const CellGrid   grid(cells, "test");
        std::vector<int> seen(std::size_t(c[0] * c[1] * c[2]), 0);
        for (int colour = 0; colour < (1 << dim); ++colour)
          {
            index_t                              count = -1;
            const CellGrid                       g     = grid.colour(colour, dim, count);
            std::vector<std::array<unsigned, 3>> coloured;
            for (index_t i = 0; i < count; ++i)
              {
                unsigned cc[3];
                g.coordinates(unsigned(i), cc);
                for (int d = 0; d < 3; ++d)
                  {
                    ASSERT_LT(cc[d], unsigned(c[std::size_t(d)]));
                    if (d < dim)
                      {
                        ASSERT_EQ(int(cc[d] & 1u), (colour >> d) & 1) << "colour " << colour << ", direction " << d;
                      }
                  }
                const index_t lex = g.index(i, cc);
                ASSERT_EQ(lex, index_t(cc[0]) + c[0] * (index_t(cc[1]) + c[1] * index_t(cc[2])));
                ++seen[std::size_t(lex)];
                // no two cells of a colour touch (they would share a node)
                for (const auto &o : coloured)
                  {
                    bool touch = true;
                    for (int d = 0; d < dim; ++d)
                      touch = touch &&
                              (cc[d] > o[std::size_t(d)] ? cc[d] - o[std::size_t(d)] : o[std::size_t(d)] - cc[d]) <= 1;
                    ASSERT_FALSE(touch) << "colour " << colour;
                  }
                coloured.push_back({cc[0], cc[1], cc[2]});
              }
          }
        for (std::size_t i = 0; i < seen.size(); ++i)
          ASSERT_EQ(seen[i], 1) << "cell " << i;
      }
}

TEST(CellGrid, BoxesAndTheirColoursKeepTheWholeGridsCoordinates)
{
  // box(): the cells of a box of the grid, with their coordinates and lexicographic index in
  // the whole grid; colour() of a box: the box's cells of each whole-grid parity, once each
  const index_t  cells[3] = {7, 6, 5};
  const CellGrid grid(cells, "test");
  for (const CellBox &b : {CellBox{{2, 1, 0}, {5, 6, 3}}, CellBox{{0, 3, 1}, {7, 4, 5}}, CellBox{{3, 0, 4}, {4, 6, 5}},
                           CellBox{{0, 0, 0}, {7, 6, 5}}, CellBox{{1, 1, 1}, {1, 3, 3}}})
    {
      index_t        count = -1;
      const CellGrid g     = grid.box(b, count);
      ASSERT_EQ(count, b.count());
      EXPECT_EQ(g.part, count < 7 * 6 * 5);
      std::vector<int> seen(7 * 6 * 5, 0);
      for (index_t i = 0; i < count; ++i)
        {
          unsigned cc[3];
          g.coordinates(unsigned(i), cc);
          for (int d = 0; d < 3; ++d)
            {
              ASSERT_GE(index_t(cc[d]), b.begin[d]);
              ASSERT_LT(index_t(cc[d]), b.end[d]);
            }
          const index_t lex = g.index(i, cc);
          ASSERT_EQ(lex, index_t(cc[0]) + 7 * (index_t(cc[1]) + 6 * index_t(cc[2])));
          ++seen[std::size_t(lex)];
        }
      std::vector<int> coloured(7 * 6 * 5, 0);
      for (int colour = 0; colour < 8; ++colour)
        {
          index_t        n  = -1;
          const CellGrid gc = g.colour(colour, 3, n);
          for (index_t i = 0; i < n; ++i)
            {
              unsigned cc[3];
              gc.coordinates(unsigned(i), cc);
              for (int d = 0; d < 3; ++d)
                {
                  ASSERT_EQ(int(cc[d] & 1u), (colour >> d) & 1);
                  ASSERT_GE(index_t(cc[d]), b.begin[d]);
                  ASSERT_LT(index_t(cc[d]), b.end[d]);
                }
              ++coloured[std::size_t(gc.index(i, cc))];
            }
        }
      EXPECT_EQ(seen, coloured); // every cell of the box once, in one colour
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), count);
    }
}
