// Periodic faces (docs/method.md, "Periodic faces"): the ring of parts along a periodic direction
// (every ghost copy gets its owner's value, on one rank and on many, the messages of two ranks
// that meet at several offsets in one order), and solves on periodic boxes: rate k + 1, the
// iterations of the all-Dirichlet problem, a fully periodic problem's zero-mean answer.
#include <tpmg/box_layout.h>
#include <tpmg/partition.h>
#include <tpmg/poisson.h>
#include <tpmg/solver_parameters.h>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace tpmg;

namespace
{
  std::vector<CartesianLevel> periodic_hierarchy(int dim, int degree, int level, std::array<int, 3> coarse,
                                                 unsigned periodic)
  {
    Domain d;
    d.dim          = dim;
    d.coarse_cells = coarse;
    d.periodic     = periodic;
    return make_hierarchy(d, degree, level);
  }

  /// The whole level's index of node x (part coordinates) of a part, copies across periodic
  /// faces being one node.
  index_t whole_node(const CartesianLevel &part, const std::array<index_t, 3> &x)
  {
    const NodeNumbering n = part.numbering();
    return n(x[0] + part.nodes(0) * (x[1] + part.nodes(1) * x[2]));
  }

  /// One exchange of `layers` simulated over every rank's plan: values[r] is rank r's stored
  /// array; the i-th message of p to q is the i-th that q expects from p.
  void exchange(const std::vector<BoxLayout::Plan> &plans, int layers, std::vector<std::vector<double>> &values)
  {
    std::map<std::pair<int, int>, std::vector<std::vector<double>>> in_flight; // (from, to)
    for (int p = 0; p < int(plans.size()); ++p)
      for (const BoxLayout::Halo &h : plans[std::size_t(p)].sends[layers])
        {
          const CartesianLevel &s = plans[std::size_t(p)].stored;
          std::vector<double>   packed;
          for (index_t z = 0; z < h.box.extent[2]; ++z)
            for (index_t y = 0; y < h.box.extent[1]; ++y)
              for (index_t x = 0; x < h.box.extent[0]; ++x)
                packed.push_back(values[std::size_t(p)][std::size_t(
                  s.dof_index(h.box.begin[0] + x, h.box.begin[1] + y, h.box.begin[2] + z))]);
          in_flight[{p, h.rank}].push_back(packed);
        }
    std::map<std::pair<int, int>, std::size_t> taken;
    for (int q = 0; q < int(plans.size()); ++q)
      for (const BoxLayout::Halo &h : plans[std::size_t(q)].receives[layers])
        {
          auto &queue = in_flight[{h.rank, q}];
          auto &i     = taken[{h.rank, q}];
          ASSERT_LT(i, queue.size()) << "rank " << q << " expects more from " << h.rank;
          const std::vector<double> &packed = queue[i++];
          ASSERT_EQ(index_t(packed.size()), h.box.size()) << "from " << h.rank << " to " << q;
          const CartesianLevel &s = plans[std::size_t(q)].stored;
          std::size_t           j = 0;
          for (index_t z = 0; z < h.box.extent[2]; ++z)
            for (index_t y = 0; y < h.box.extent[1]; ++y)
              for (index_t x = 0; x < h.box.extent[0]; ++x)
                values[std::size_t(q)]
                      [std::size_t(s.dof_index(h.box.begin[0] + x, h.box.begin[1] + y, h.box.begin[2] + z))] =
                        packed[j++];
        }
    for (const auto &[pair, queue] : in_flight)
      EXPECT_EQ(taken[pair], queue.size()) << "rank " << pair.second << " leaves messages of " << pair.first;
  }
} // namespace

// Every node of every rank's part gets its owner's value from one exchange (the nodes of the
// cells next to the owned box with GhostLayers::one, every stored node but a far upper face
// with all), no node a wrong one, every node owned once: rings of one, two and three boxes,
// periodic and bounded directions mixed, uneven boxes, 2D and 3D.
TEST(Periodic, EveryGhostCopyGetsItsOwnersValue)
{
  struct Case
  {
    int                dim, degree, level, ranks;
    std::array<int, 3> coarse;
    unsigned           periodic;
  };
  const Case cases[] = {{2, 2, 1, 1, {2, 3, 1}, 1},  {2, 3, 2, 1, {2, 2, 1}, 3},  {2, 1, 2, 2, {3, 2, 1}, 3},
                        {2, 2, 2, 3, {3, 2, 1}, 1},  {2, 2, 3, 6, {3, 2, 1}, 2},  {3, 2, 1, 1, {2, 2, 2}, 7},
                        {3, 1, 2, 2, {2, 2, 3}, 5},  {3, 2, 2, 4, {2, 3, 2}, 6},  {3, 1, 2, 8, {2, 2, 2}, 7},
                        {3, 3, 2, 12, {3, 2, 2}, 4}, {3, 1, 3, 27, {3, 3, 3}, 7}, {3, 2, 2, 2, {2, 2, 2}, 0}};
  for (const Case &c : cases)
    {
      const auto               levels = periodic_hierarchy(c.dim, c.degree, c.level, c.coarse, c.periodic);
      const HierarchyPartition part(levels, make_process_grid(c.ranks, levels), 0);
      for (int l = 0; l <= c.level; ++l)
        {
          if (!part.ghosted(l))
            continue;
          const int         ranks = part.level_grid(l).size();
          const std::string what  = std::to_string(c.dim) + "D k=" + std::to_string(c.degree) + " level " +
                                   std::to_string(l) + " of " + std::to_string(c.level) + ", " + std::to_string(ranks) +
                                   " ranks, periodic " + std::to_string(c.periodic);
          std::vector<BoxLayout::Plan> plans;
          index_t                      owned = 0;
          for (int r = 0; r < ranks; ++r)
            {
              plans.push_back(BoxLayout::plan(part, l, r));
              owned += plans.back().owned.size();
            }
          index_t unknown_nodes = 1; // (the Dirichlet faces' nodes are owned too)
          for (int d = 0; d < c.dim; ++d)
            unknown_nodes *= levels[std::size_t(l)].nodes(d) - ((c.periodic >> d & 1u) ? 1 : 0);
          EXPECT_EQ(owned, unknown_nodes) << what;
          for (int layers : {0, 1})
            {
              std::vector<std::vector<double>> values;
              for (int r = 0; r < ranks; ++r)
                {
                  const BoxLayout::Plan &p = plans[std::size_t(r)];
                  values.emplace_back(std::size_t(p.stored.n_dofs()), -1.0);
                  for (index_t z = 0; z < p.owned.extent[2]; ++z)
                    for (index_t y = 0; y < p.owned.extent[1]; ++y)
                      for (index_t x = 0; x < p.owned.extent[0]; ++x)
                        {
                          const std::array<index_t, 3> n{
                            {p.owned.begin[0] + x, p.owned.begin[1] + y, p.owned.begin[2] + z}};
                          values.back()[std::size_t(p.stored.dof_index(n[0], n[1], n[2]))] =
                            double(whole_node(p.stored, n));
                        }
                }
              exchange(plans, layers, values);
              for (int r = 0; r < ranks; ++r)
                {
                  const BoxLayout::Plan &p       = plans[std::size_t(r)];
                  const CartesianLevel  &s       = p.stored;
                  const index_t          k       = s.degree;
                  index_t                missing = 0, wrong = 0;
                  for (index_t z = 0; z < s.nodes(2); ++z)
                    for (index_t y = 0; y < s.nodes(1); ++y)
                      for (index_t x = 0; x < s.nodes(0); ++x)
                        {
                          const std::array<index_t, 3> n{{x, y, z}};
                          const double                 v = values[std::size_t(r)][std::size_t(s.dof_index(x, y, z))];
                          if (v >= 0 && v != double(whole_node(s, n)))
                            ++wrong;
                          // what must be there: the nodes of the cells next to the box (one), or
                          // every node but the part's upper faces (all)
                          bool needed = true;
                          for (int d = 0; d < c.dim; ++d)
                            needed =
                              needed && (layers == 0 ? n[std::size_t(d)] >= k * (s.cell_begin[std::size_t(d)] - 1) &&
                                                         n[std::size_t(d)] <= k * (s.cell_end[std::size_t(d)] + 1)
                                                     : n[std::size_t(d)] < s.nodes(d) - 1);
                          if (needed && v < 0)
                            ++missing;
                        }
                  EXPECT_EQ(wrong, 0) << what << ", rank " << r << ", layers " << layers;
                  EXPECT_EQ(missing, 0) << what << ", rank " << r << ", layers " << layers;
                }
            }
        }
    }
}

namespace
{
  RunResult solve(const SolverParameters &p)
  {
    std::ostringstream log;
    return run_poisson(p, log);
  }

  /// u = sin(2 pi x) e^y (3D: times cos(pi z)) on [0, 1] x [0, 1] (x [0, 2]), periodic along x
  /// (3D: and z), u = g on the y faces; `selector`: f and g written so that they agree with the
  /// plain ones inside the box only (the ghost cells beyond the periodic faces must see the
  /// box's values).
  SolverParameters periodic_problem(int dim, int degree, int level, bool selector = false)
  {
    SolverParameters p;
    p.dim                 = dim;
    p.degree              = degree;
    p.refinement_level    = level;
    p.box_lower           = {0, 0, 0};
    p.box_upper           = {1, 1, 2};
    p.coarse_cells        = {2, 1, 2};
    const std::string u   = dim == 3 ? "sin(2*pi*x)*exp(y)*cos(pi*z)" : "sin(2*pi*x)*exp(y)";
    const std::string f   = (dim == 3 ? "(5*pi^2 - 1)*" : "(4*pi^2 - 1)*") + u;
    const std::string box = dim == 3 ? "x >= 0 && x < 1 && z >= 0 && z < 2" : "x >= 0 && x < 1";
    p.rhs                 = RightHandSide::function;
    p.rhs_function        = selector ? "(" + box + ") ? " + f + " : 1000" : f;
    p.boundary_values     = selector ? "(" + box + ") ? " + u + " : -7" : u;
    p.exact_solution      = u;
    p.boundary.type       = {BoundaryType::periodic,  BoundaryType::periodic, BoundaryType::dirichlet,
                             BoundaryType::dirichlet, BoundaryType::periodic, BoundaryType::periodic};
    p.device              = DeviceChoice::cpu;
    p.verbose             = false;
    p.relative_tolerance  = 1e-12;
    p.max_iterations      = 200;
    return p;
  }
} // namespace

// Periodic directions beside Dirichlet faces: rate k + 1 in L2 (2D k = 1..3, 3D k = 1, 2), the
// unknowns counted once across the faces.
TEST(Periodic, PeriodicDirectionsConvergeAtRateKPlusOne)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 3 : 2); ++k)
      {
        double previous = 0;
        for (int level = 1; level <= (dim == 2 ? 4 : 3); ++level)
          {
            const SolverParameters p = periodic_problem(dim, k, level);
            const RunResult        r = solve(p);
            const std::string      what =
              std::to_string(dim) + "D k=" + std::to_string(k) + " level " + std::to_string(level);
            ASSERT_TRUE(r.converged) << what;
            ASSERT_TRUE(r.l2_error.has_value()) << what;
            EXPECT_FALSE(r.singular) << what;
            // the nodes, copies across the periodic faces once (x, z periodic; y bounded)
            index_t nodes = (index_t(2) << level) * k * ((index_t(1) << level) * k + 1);
            if (dim == 3)
              nodes *= (index_t(2) << level) * k;
            EXPECT_EQ(r.dofs, nodes) << what;
            if (level > 1)
              {
                EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.4) << what;
              }
            previous = *r.l2_error;
          }
      }
}

// f and g are read periodically: data that differ from the plain ones only outside the box give
// the same solution (the ghost cells beyond the periodic faces see the box's values).
TEST(Periodic, DataAreReadPeriodically)
{
  for (int dim : {2, 3})
    {
      const RunResult plain = solve(periodic_problem(dim, 2, 2)), selector = solve(periodic_problem(dim, 2, 2, true));
      ASSERT_TRUE(plain.converged && selector.converged) << dim << "D";
      EXPECT_EQ(plain.iterations, selector.iterations) << dim << "D";
      EXPECT_NEAR(*plain.l2_error, *selector.l2_error, 1e-12 * *plain.l2_error) << dim << "D";
    }
}

// GMRES + V-cycle to 1e-9 with periodic directions takes at most one iteration more than the same
// problem with Dirichlet faces all round, k = 1..7, levels 2..4 (2D) and k = 1..4, levels 1..3 (3D).
TEST(Periodic, IterationsStayWithinOneOfAllDirichlet)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= (dim == 2 ? 7 : 4); ++k)
      for (int level = (dim == 2 ? 2 : 1); level <= (dim == 2 ? 4 : 3) - (k > 4 ? 1 : 0); ++level)
        {
          SolverParameters p         = periodic_problem(dim, k, level);
          p.relative_tolerance       = 1e-9;
          SolverParameters dirichlet = p;
          dirichlet.boundary.type.fill(BoundaryType::dirichlet);
          const RunResult   r = solve(p), d = solve(dirichlet);
          const std::string what = std::to_string(dim) + "D k=" + std::to_string(k) + " level " + std::to_string(level);
          ASSERT_TRUE(r.converged && d.converged) << what;
          EXPECT_LE(r.iterations, d.iterations + 1) << what << ": " << r.iterations << " against " << d.iterations;
        }
}

// Every direction periodic (u fixed up to a constant): the solution takes the exact solution's
// mean and converges at rate k + 1; at most two iterations more than with Dirichlet faces.
TEST(Periodic, FullyPeriodicProblemConvergesToTheExactSolution)
{
  for (int dim : {2, 3})
    for (int k = 1; k <= 2; ++k)
      {
        double previous = 0;
        for (int level = 1; level <= (dim == 2 ? 4 : 3); ++level)
          {
            SolverParameters p = periodic_problem(dim, k, level);
            p.boundary.type.fill(BoundaryType::periodic);
            p.coarse_cells      = {2, 2, 2}; // (a periodic direction has at least two)
            const std::string u = dim == 3 ? "sin(2*pi*x)*cos(2*pi*y)*cos(pi*z) + 2" : "sin(2*pi*x)*cos(2*pi*y) + 2";
            p.exact_solution    = u;
            p.rhs_function =
              std::string(dim == 3 ? "9*pi^2" : "8*pi^2") + "*sin(2*pi*x)*cos(2*pi*y)" + (dim == 3 ? "*cos(pi*z)" : "");
            p.boundary_values   = "0";
            const RunResult   r = solve(p);
            const std::string what =
              std::to_string(dim) + "D k=" + std::to_string(k) + " level " + std::to_string(level);
            ASSERT_TRUE(r.converged) << what;
            EXPECT_TRUE(r.singular) << what;
            EXPECT_LT(r.compatibility_relative, 1e-10) << what;
            if (level > 1)
              {
                EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.4) << what;
              }
            previous                   = *r.l2_error;
            SolverParameters dirichlet = p;
            dirichlet.boundary.type.fill(BoundaryType::dirichlet);
            dirichlet.boundary_values    = u;
            dirichlet.relative_tolerance = p.relative_tolerance = 1e-9;
            EXPECT_LE(solve(p).iterations, solve(dirichlet).iterations + 2) << what;
          }
      }
}

// A coefficient that varies in space (periodic along x: a = 2 + sin(2 pi x)) selects the fitted
// patches, whose surrogates read the coefficient of the ghost cells beyond the periodic faces:
// rate k + 1, and at most one iteration more than with Dirichlet faces all round; the same
// with the fitted patches chosen on a constant coefficient.
TEST(Periodic, FittedPatchesWithAVaryingCoefficient)
{
  for (int dim : {2, 3})
    {
      const int k        = 2;
      double    previous = 0;
      for (int level = 1; level <= 3; ++level)
        {
          SolverParameters  p = periodic_problem(dim, k, level);
          const std::string u = p.exact_solution, z = dim == 3 ? "*cos(pi*z)" : "";
          p.coefficient  = "2 + sin(2*pi*x)";
          p.rhs_function = "-4*pi^2*cos(2*pi*x)^2*exp(y)" + z + " + (2 + sin(2*pi*x))*" +
                           (dim == 3 ? "(5*pi^2 - 1)*" : "(4*pi^2 - 1)*") + u;
          const RunResult   r    = solve(p);
          const std::string what = std::to_string(dim) + "D level " + std::to_string(level);
          ASSERT_TRUE(r.converged) << what;
          if (level > 1)
            {
              EXPECT_NEAR(std::log2(previous / *r.l2_error), k + 1, 0.4) << what;
            }
          previous                   = *r.l2_error;
          p.relative_tolerance       = 1e-9;
          SolverParameters dirichlet = p;
          dirichlet.boundary.type.fill(BoundaryType::dirichlet);
          const int periodic = solve(p).iterations, all = solve(dirichlet).iterations;
          EXPECT_LE(periodic, all + 1) << what << ": " << periodic << " against " << all;
          SolverParameters fitted           = periodic_problem(dim, k, level);
          fitted.patch_geometry             = PatchGeometry::fitted;
          fitted.relative_tolerance         = 1e-9;
          SolverParameters fitted_dirichlet = fitted;
          fitted_dirichlet.boundary.type.fill(BoundaryType::dirichlet);
          const RunResult f = solve(fitted), fd = solve(fitted_dirichlet);
          ASSERT_TRUE(f.converged && fd.converged) << what;
          EXPECT_LE(f.iterations, fd.iterations + 1) << what << " (fitted, a = 1)";
        }
    }
}
