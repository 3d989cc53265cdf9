// Output of a run: JSON summary with the keys of docs/interface.md, CSV breakdown, VTU file.
#include <tpmg/fe_1d.h>
#include <tpmg/poisson.h>
#include <tpmg/report.h>
#include <tpmg/vtu.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

using namespace tpmg;

namespace
{
  RunResult small_run(RightHandSide rhs)
  {
    SolverParameters p;
    p.dim              = 2;
    p.degree           = 2;
    p.refinement_level = 3;
    p.device           = DeviceChoice::cpu;
    p.verbose          = false;
    p.rhs              = rhs;
    std::ostringstream log;
    return run_poisson(p, log);
  }

  std::string slurp(const std::string &file)
  {
    std::ifstream     in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
} // namespace

TEST(Report, JsonHasTheInterfaceKeys)
{
  const RunResult    r = small_run(RightHandSide::manufactured);
  std::ostringstream out;
  write_json(out, r);
  const std::string j = out.str();
  for (const char *key : {"dimension", "degree", "level", "dofs", "solver", "precision", "smoother_kernel",
                          "kernel_optimization", "level_operator", "device", "iterations", "converged",
                          "relative_residual", "l2_error", "setup_time_s", "solve_time_s", "breakdown", "levels"})
    EXPECT_NE(j.find("\"" + std::string(key) + "\": "), std::string::npos) << key;
  EXPECT_NE(j.find("\"converged\": true"), std::string::npos);
  EXPECT_NE(j.find("\"finest_smoother\": "), std::string::npos);
  EXPECT_EQ(j.find("\"l2_error\": null"), std::string::npos);
  // the errors took time after the solve, and it is reported
  EXPECT_GT(r.postprocess_time_s, 0.0);
  EXPECT_NE(j.find("\"postprocess_time_s\": "), std::string::npos);
  // f = 1 has no exact solution: l2_error is null
  std::ostringstream out1;
  write_json(out1, small_run(RightHandSide::one));
  EXPECT_NE(out1.str().find("\"l2_error\": null"), std::string::npos);
  // the levels array has one object per level from the coarsest to the finest
  EXPECT_EQ(int(r.levels.size()), 3 - r.coarsest_level + 1);
}

// The smoother's kernels as the smoother resolved them, on one level (where the coarse solve
// is one patch step) as on several.
TEST(Report, SmootherConfigurationOnEveryHierarchy)
{
  SolverParameters p;
  p.dim     = 2;
  p.degree  = 2;
  p.device  = DeviceChoice::cpu;
  p.verbose = false;
  p.solver  = SolverType::vcycle;
  for (int level : {0, 3})
    {
      p.refinement_level = level;
      p.coarse_cells     = {level == 0 ? 2 : 1, level == 0 ? 2 : 1, 1};
      std::ostringstream log;
      const RunResult    r = run_poisson(p, log);
      EXPECT_EQ(r.kernel_optimization, "basic, thread per column (automatic)") << "level " << level;
      EXPECT_EQ(r.smoother_configuration, "basic kernels, one thread per column") << "level " << level;
    }
}

TEST(Report, CsvAndTable)
{
  const RunResult   r    = small_run(RightHandSide::manufactured);
  const std::string file = ::testing::TempDir() + "/tpmg_breakdown.csv";
  write_csv_file(file, r);
  const std::string csv = slurp(file);
  EXPECT_EQ(csv.rfind("level,dofs,component,seconds\n", 0), 0u);
  EXPECT_NE(csv.find(",smoother,"), std::string::npos);
  EXPECT_NE(csv.find("outer,"), std::string::npos);
  std::ostringstream table;
  print_report(table, r);
  EXPECT_NE(table.str().find("Runtime breakdown"), std::string::npos);
  EXPECT_NE(table.str().find("Per level"), std::string::npos);
  std::remove(file.c_str());
}

// A graph of the coarser levels (Backend/CUDA graph = auto above CUDA graph DoFs per rank): the
// report names its finest level, and its replays count in that level's time and total.
TEST(Report, GraphOfTheCoarserLevels)
{
  RunResult r = small_run(RightHandSide::manufactured);
  ASSERT_GE(int(r.levels.size()), 2);
  r.cuda_graph         = true;
  r.cuda_graph_level   = r.level - 1;
  LevelTimes  &l       = r.levels[r.levels.size() - 2];
  const double without = l.total();
  l.graph              = 0.25;
  EXPECT_DOUBLE_EQ(l.total(), without + 0.25);
  std::ostringstream table, json;
  print_report(table, r);
  write_json(json, r);
  EXPECT_NE(table.str().find("V-cycle: levels " + std::to_string(r.level - 1) + " and below replayed as a CUDA graph"),
            std::string::npos)
    << table.str();
  EXPECT_NE(json.str().find("\"cuda_graph_level\": " + std::to_string(r.level - 1)), std::string::npos);
  EXPECT_NE(json.str().find("\"graph\": 0.25"), std::string::npos);
  const std::string file = ::testing::TempDir() + "/tpmg_graph_breakdown.csv";
  write_csv_file(file, r);
  EXPECT_NE(slurp(file).find("," + std::to_string(l.dofs) + ",graph,0.25\n"), std::string::npos);
  std::remove(file.c_str());
  // the whole cycle in the graph: the finest level's graph, the breakdown's vcycle_graph
  r.cuda_graph_level = r.level;
  std::ostringstream whole;
  print_report(whole, r);
  EXPECT_NE(whole.str().find("V-cycle: replayed as a CUDA graph"), std::string::npos);
}

TEST(Report, VtuFile)
{
  Domain d;
  d.dim                   = 2;
  const auto          lev = make_hierarchy(d, 2, 1).back(); // 2x2 cells, 5x5 nodes
  std::vector<double> v(lev.n_dofs());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = double(i);
  const std::string file = ::testing::TempDir() + "/tpmg_solution.vtu";
  write_vtu(file, lev, v, {}, {VtuFormat::ascii});
  const std::string x = slurp(file);
  EXPECT_NE(x.find("NumberOfPoints=\"25\" NumberOfCells=\"16\""), std::string::npos);
  EXPECT_NE(x.find("Name=\"solution\""), std::string::npos);
  EXPECT_NE(x.find("</VTKFile>"), std::string::npos);
  std::remove(file.c_str());
  EXPECT_THROW(write_vtu(file, lev, v, {}, {VtuFormat::ascii, 1, 10}), std::runtime_error); // refuses large levels
}

// On a deformed mesh the points are where the deformation puts the nodes: at the cells'
// vertices the deformed vertices, inside the cells their multilinear map.
TEST(Report, VtuFileOfADeformedMesh)
{
  Domain d;
  d.dim                          = 2;
  const auto                lev  = make_hierarchy(d, 2, 2).back(); // 4x4 cells, 9x9 nodes
  const DeformationSettings sine = {Deformation::sine, 0.2};
  std::vector<double>       v(lev.n_dofs(), 0.0);
  const std::string         file = ::testing::TempDir() + "/tpmg_deformed.vtu";
  write_vtu(file, lev, v, sine, {VtuFormat::ascii});
  const std::string  x = slurp(file);
  std::istringstream points(x.substr(x.find("format=\"ascii\">") + 15));
  double             moved = 0;
  for (index_t j = 0; j < lev.nodes(1); ++j)
    for (index_t i = 0; i < lev.nodes(0); ++i)
      {
        double p[3];
        points >> p[0] >> p[1] >> p[2];
        const std::array<double, 3> undeformed = {lev.lower[0] + lev.h[0] * double(i) / 2,
                                                  lev.lower[1] + lev.h[1] * double(j) / 2, 0.0};
        moved = std::max(moved, std::abs(p[0] - undeformed[0]) + std::abs(p[1] - undeformed[1]));
        if (i % 2 == 0 && j % 2 == 0) // a vertex
          {
            const std::array<double, 3> q = deformed_point(lev, sine, undeformed);
            EXPECT_NEAR(p[0], q[0], 1e-10) << i << ' ' << j;
            EXPECT_NEAR(p[1], q[1], 1e-10) << i << ' ' << j;
          }
      }
  EXPECT_GT(moved, 0.01); // the picture is the deformed mesh
  std::remove(file.c_str());
}

namespace
{
  /// The arrays of a binary VTU file (raw appended data, UInt64 headers) by name: the bytes of
  /// each (Points under "Points").
  std::map<std::string, std::string> appended_arrays(const std::string &x)
  {
    std::map<std::string, std::string> arrays;
    const std::size_t                  data = x.find("<AppendedData encoding=\"raw\">");
    EXPECT_NE(data, std::string::npos);
    const std::size_t start = x.find('_', data) + 1;
    for (std::size_t at = x.find("<DataArray"); at < data; at = x.find("<DataArray", at + 1))
      {
        const std::string element = x.substr(at, x.find('>', at) - at);
        auto              value   = [&](const std::string &key) {
          const std::size_t k = element.find(key + "=\"");
          return k == std::string::npos
                                  ? std::string()
                                  : element.substr(k + key.size() + 2, element.find('"', k + key.size() + 2) - k - key.size() - 2);
        };
        EXPECT_EQ(value("format"), "appended");
        const std::size_t offset = std::stoul(value("offset"));
        std::uint64_t     bytes  = 0;
        std::memcpy(&bytes, x.data() + start + offset, sizeof bytes);
        const std::string name = value("Name").empty() ? "Points" : value("Name");
        arrays[name]           = x.substr(start + offset + sizeof bytes, bytes);
      }
    return arrays;
  }

  template <typename T>
  std::vector<T> values_of(const std::string &bytes)
  {
    std::vector<T> v(bytes.size() / sizeof(T));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
} // namespace

// The binary file read back: the points are the nodes, the values the solution's, with every
// node or (stride k) the cells' vertices only; the sub-cells' connectivity stays inside the
// points.
TEST(Report, BinaryVtuFileReadsBack)
{
  for (int dim : {2, 3})
    for (index_t stride : {1, 2})
      {
        Domain d;
        d.dim                   = dim;
        d.lower                 = {-1, 0, 2};
        d.upper                 = {1, 1, 3};
        d.coarse_cells          = {2, 1, 1};
        const auto          lev = make_hierarchy(d, 2, 1).back(); // 4 x 2 (x 2) cells of Q2
        std::vector<double> v(std::size_t(lev.n_dofs()));
        for (std::size_t i = 0; i < v.size(); ++i)
          v[i] = 0.5 * double(i) - 3;
        const std::string file = ::testing::TempDir() + "/tpmg_binary.vtu";
        write_vtu(file, lev, v, {}, {VtuFormat::binary, stride});
        const std::string x      = slurp(file);
        const auto        arrays = appended_arrays(x);
        ASSERT_EQ(arrays.size(), 5u);
        const auto            points   = values_of<double>(arrays.at("Points"));
        const auto            solution = values_of<double>(arrays.at("solution"));
        const auto            conn     = values_of<std::int64_t>(arrays.at("connectivity"));
        const auto            types    = values_of<std::uint8_t>(arrays.at("types"));
        const LagrangeBasis1D basis(2);
        const index_t         step = stride; // (k = 2: stride 2 keeps the vertices)
        index_t               n    = 0;
        for (index_t l = 0; l < (dim == 3 ? lev.nodes(2) : 1); l += step)
          for (index_t j = 0; j < lev.nodes(1); j += step)
            for (index_t i = 0; i < lev.nodes(0); i += step, ++n)
              {
                ASSERT_LT(std::size_t(n), solution.size());
                EXPECT_EQ(solution[std::size_t(n)], v[std::size_t(lev.dof_index(i, j, l))]);
                EXPECT_EQ(points[std::size_t(3 * n)], lev.node_coordinate(0, i, basis.support_points()));
                EXPECT_EQ(points[std::size_t(3 * n + 1)], lev.node_coordinate(1, j, basis.support_points()));
                EXPECT_EQ(points[std::size_t(3 * n + 2)],
                          dim == 3 ? lev.node_coordinate(2, l, basis.support_points()) : 0.0);
              }
        EXPECT_EQ(std::size_t(n), solution.size());
        EXPECT_EQ(std::size_t(n), vtu_nodes(lev, stride));
        const std::size_t corners = dim == 3 ? 8 : 4;
        EXPECT_EQ(conn.size(), types.size() * corners);
        EXPECT_EQ(types.size(), std::size_t(lev.cells[0] * lev.cells[1] * (dim == 3 ? lev.cells[2] : 1)) *
                                  std::size_t(stride == 1 ? (dim == 3 ? 8 : 4) : 1));
        for (std::int64_t c : conn)
          EXPECT_TRUE(c >= 0 && std::size_t(c) < std::size_t(n));
        EXPECT_EQ(types[0], dim == 3 ? 12 : 9);
        std::remove(file.c_str());
      }
  // the nodes a stride keeps: every stride-th of the whole level's and the last
  EXPECT_EQ(vtu_node_indices(9, 0, 4), (std::vector<index_t>{0, 4, 8}));
  EXPECT_EQ(vtu_node_indices(7, 3, 4), (std::vector<index_t>{0, 1, 5, 6}));
}
