// Output of a run: JSON summary with the keys of docs/interface.md, CSV breakdown, VTU file.
#include <tpmg/poisson.h>
#include <tpmg/report.h>
#include <tpmg/vtu.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
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

TEST(Report, VtuFile)
{
  Domain d;
  d.dim                   = 2;
  const auto          lev = make_hierarchy(d, 2, 1).back(); // 2x2 cells, 5x5 nodes
  std::vector<double> v(lev.n_dofs());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = double(i);
  const std::string file = ::testing::TempDir() + "/tpmg_solution.vtu";
  write_vtu(file, lev, v);
  const std::string x = slurp(file);
  EXPECT_NE(x.find("NumberOfPoints=\"25\" NumberOfCells=\"16\""), std::string::npos);
  EXPECT_NE(x.find("Name=\"solution\""), std::string::npos);
  EXPECT_NE(x.find("</VTKFile>"), std::string::npos);
  std::remove(file.c_str());
  EXPECT_THROW(write_vtu(file, lev, v, {}, 10), std::runtime_error); // refuses large levels
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
  write_vtu(file, lev, v, sine);
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
