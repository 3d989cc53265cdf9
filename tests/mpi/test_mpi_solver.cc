// The whole solver on the ranks of an mpirun against the same solve on one rank (label "mpi"):
// GMRES (right and left preconditioned), CG, FMG and the V-cycle iteration, 2D and 3D, degrees
// 1 to 4, the cartesian, bp3 and bp5 level operators, sine and Kershaw meshes, the Chebyshev
// smoother, a problem given by functions with boundary values, Neumann and Robin faces and a
// problem without a Dirichlet face, float and double V-cycles, on
// meshes whose cells do not split evenly over the rank grid. For each, the iteration count must
// equal the one-rank count, the residual history agree to 1e-10 relative and the L2 error to
// 1e-12 relative. (On the CPU runner with one thread the distributed solve reproduces the
// one-rank solve bit for bit; the tolerances are the promise.) Rank 0 also runs the one-rank
// solve. Exit code 0 on every rank on success.
//
// `--exchange nccl|mpi|host` picks the distributed solves' exchange path (Backend/Exchange) and
// checks that it ran; `--overlap auto|always|never` sets Backend/Overlap exchanges (`always`: every
// split level's smoother colours exchange beside their inner patches, which the small meshes here
// would otherwise not do); `--graph always` records the V-cycles as CUDA graphs from the first
// solve on (Backend/CUDA graph; over NCCL with the sends and receives in the graph) and checks
// that they ran so, but on periodic boxes, which the graph does not take; `--graph-rank-dofs N`
// sets Backend/CUDA graph DoFs per rank and solves twice (`auto` records from the second solve:
// the solution, the L2 error and the point values are the second's), and checks that some case
// replayed a graph of its coarser levels inside a cycle launched level by level.
//
// With `--device cuda` the solves run on the GPU (several ranks may share it; label "gpu"): its
// kernels add with atomics in no fixed order, so that even two one-rank runs differ in the last
// bits; `--history-tolerance` and `--l2-tolerance` then give the agreement asked for (and
// `--history-floor` F admits differences up to F times the initial residual, where a residual
// near convergence is computed from b - A x no better than rounding allows), and
// `--precision double` runs every V-cycle in double (a float V-cycle amplifies those last bits
// to differences of 1e-6 to 1e-2 in the late residuals, between two one-rank runs as much as
// between one and several ranks: the test prints that spread of the one-rank runs beside).
#include <tpmg/communicator.h>
#include <tpmg/device.h>
#include <tpmg/parameters.h>
#include <tpmg/poisson.h>
#include <tpmg/solver_parameters.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace tpmg;

namespace
{
  struct Case
  {
    std::string              name;
    std::vector<std::string> settings; ///< "Section/Name=value"
  };

  /// Backend/Exchange of the distributed solves (--exchange)
  ExchangePath exchange = ExchangePath::automatic;
  /// Backend/Overlap exchanges (--overlap)
  ExchangeOverlap overlap = ExchangeOverlap::automatic;
  /// Backend/CUDA graph (--graph)
  CudaGraph graph = CudaGraph::automatic;
  /// Backend/CUDA graph DoFs per rank (--graph-rank-dofs; 0: the default)
  index_t graph_rank_dofs = 0;

  bool periodic(const Case &c)
  {
    return std::any_of(c.settings.begin(), c.settings.end(),
                       [](const std::string &s) { return s.find("periodic") != std::string::npos; });
  }

  SolverParameters parameters(const Case &c, DeviceChoice device)
  {
    ParameterHandler prm;
    declare_parameters(prm);
    for (const std::string &s : c.settings)
      prm.set_override(s);
    SolverParameters p = read_parameters(prm);
    p.device           = device;
    p.exchange         = exchange;
    p.overlap          = overlap;
    p.cuda_graph       = graph == CudaGraph::always && periodic(c) ? CudaGraph::automatic : graph;
    p.verbose          = false;
    if (graph_rank_dofs > 0)
      {
        p.cuda_graph_rank_dofs = graph_rank_dofs;
        p.repetitions          = 2;
      }
    return p;
  }
} // namespace

int main(int argc, char **argv)
{
  MpiSession         session(argc, argv);
  const Communicator world    = Communicator::world();
  const bool         root     = world.rank() == 0;
  int                failures = 0, cases = 0, coarser_level_graphs = 0;
  DeviceChoice       device            = DeviceChoice::cpu;
  double             history_tolerance = 1e-10, l2_tolerance = 1e-12, history_floor = 0;
  std::string        precision;
  for (int i = 1; i + 1 < argc; i += 2)
    {
      const std::string a = argv[i], v = argv[i + 1];
      if (a == "--device")
        device = v == "cuda" ? DeviceChoice::cuda : DeviceChoice::cpu;
      else if (a == "--history-tolerance")
        history_tolerance = std::stod(v);
      else if (a == "--l2-tolerance")
        l2_tolerance = std::stod(v);
      else if (a == "--precision")
        precision = v;
      else if (a == "--history-floor")
        history_floor = std::stod(v);
      else if (a == "--exchange")
        exchange = from_string<ExchangePath>(v).value_or(ExchangePath::automatic);
      else if (a == "--overlap")
        overlap = from_string<ExchangeOverlap>(v).value_or(ExchangeOverlap::automatic);
      else if (a == "--graph")
        graph = from_string<CudaGraph>(v).value_or(CudaGraph::automatic);
      else if (a == "--graph-rank-dofs")
        graph_rank_dofs = std::stoll(v);
    }
  if (device == DeviceChoice::cuda && world.size() > 1)
    select_cuda_device(world.local_rank() % std::max(1, cuda_device_count()));
  // NCCL needs a GPU per rank: on a host with fewer GPUs the test says so and is counted as
  // skipped (exit code 77, ctest's SKIP_RETURN_CODE), not passed
  // (local_size() is collective: every rank asks once, before the root alone prints)
  const int ranks_on_host = world.local_size(), gpus = cuda_device_count();
  if (exchange == ExchangePath::nccl && world.any(ranks_on_host > gpus))
    {
      if (root)
        std::fprintf(stderr, "SKIPPED: --exchange nccl on %d ranks needs a GPU per rank, and this host has %d\n",
                     ranks_on_host, gpus);
      return 77;
    }
  auto fail = [&](const std::string &what) {
    ++failures;
    std::fprintf(stderr, "rank %d: %s\n", world.rank(), what.c_str());
  };

  const std::vector<std::string> d3 = {"Dimension=3", "Mesh/Coarse cells=3,2,5", "Mesh/Refinement level=1"};
  // (2D down to the coarse mesh, so that levels 1 and 2 are split over the ranks too; with auto
  // fast diagonalization would solve level 2 on rank 0: the cases named so)
  const std::vector<std::string> d2   = {"Dimension=2", "Mesh/Coarse cells=3,5", "Mesh/Refinement level=3",
                                         "Multigrid/Coarse level=mesh"};
  auto                           with = [](std::vector<std::string> base, std::vector<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  const std::vector<Case> all = {
    {"3D k=2 gmres float",
     with(d3, {"Polynomial degree=2", "Output/Point values=0.5, 0.5, 0.5; 0.1, 0.9, 0.35; 1, 0, 0.77"})},
    {"3D k=3 gmres double", with(d3, {"Polynomial degree=3", "Multigrid/Precision=double"})},
    {"3D k=1 gmres float, single coarse cell",
     {"Dimension=3", "Polynomial degree=1", "Mesh/Coarse cells=1", "Mesh/Refinement level=4"}},
    // the V-cycle on rank 0 from level 1 on (a floor of DoFs per rank): the transfer into level 1
    // restricts on the ranks' parts of it and gathers them (on 2 and 4 ranks; 3 ranks split
    // level 2's 8 cells 3 : 3 : 2, which do not halve, and gather level 2 to restrict on rank 0)
    {"3D k=2 gmres float, levels on rank 0 below a gather level",
     {"Dimension=3", "Polynomial degree=2", "Mesh/Coarse cells=2,2,2", "Mesh/Refinement level=2",
      "Multigrid/Coarse level=mesh", "Backend/Minimum DoFs per rank=400"}},
    {"2D k=4 gmres float", with(d2, {"Polynomial degree=4", "Output/Point values=0.33, 0.71; 0.5, 0.5"})},
    {"2D k=2 gmres left", with(d2, {"Polynomial degree=2", "Solver/Preconditioning side=left"})},
    {"2D k=3 gmres float, fast diagonalization", with(d2, {"Polynomial degree=3", "Multigrid/Coarse level=auto"})},
    {"2D k=2 fmg, fast diagonalization",
     with(d2, {"Polynomial degree=2", "Solver/Type=fmg", "Multigrid/Coarse level=auto"})},
    {"3D k=2 gmres classical", with(d3, {"Polynomial degree=2", "Solver/Orthogonalization=classical"})},
    {"2D k=2 gmres classical, restart 3", with(d2, {"Polynomial degree=2", "Solver/Orthogonalization=classical",
                                                    "Solver/GMRES restart=3", "Solver/Relative tolerance=1e-12"})},
    {"3D k=2 cg double", with(d3, {"Polynomial degree=2", "Solver/Type=cg", "Multigrid/Precision=double"})},
    {"2D k=3 cg float", with(d2, {"Polynomial degree=3", "Solver/Type=cg"})},
    {"3D k=2 fmg float", with(d3, {"Polynomial degree=2", "Solver/Type=fmg"})},
    {"2D k=1 fmg paper conventions", with(d2, {"Polynomial degree=1", "Solver/Type=fmg",
                                               "Multigrid/Conventions=paper_code", "Problem/Right-hand side=one"})},
    {"2D k=2 vcycle", with(d2, {"Polynomial degree=2", "Solver/Type=vcycle"})},
    {"3D k=2 bp3 sine", with(d3, {"Polynomial degree=2", "Multigrid/Level operator=bp3", "Mesh/Deformation=sine",
                                  "Mesh/Deformation amplitude=0.1"})},
    {"2D k=3 bp5 sine on the fly",
     with(d2, {"Polynomial degree=3", "Multigrid/Level operator=bp5", "Mesh/Deformation=sine",
               "Mesh/Deformation amplitude=0.1", "Multigrid/Geometric factors=on_the_fly"})},
    {"3D k=2 bp5 kershaw",
     {"Dimension=3", "Polynomial degree=2", "Mesh/Coarse cells=6,2,2", "Mesh/Refinement level=1",
      "Multigrid/Level operator=bp5", "Mesh/Deformation=kershaw", "Mesh/Deformation amplitude=0.7",
      "Solver/Maximum iterations=200", "Output/Point values=0.5, 0.5, 0.5; 0.12, 0.61, 0.93"}},
    {"3D k=2 bp3 sine fitted multiplicative",
     with(d3, {"Polynomial degree=2", "Multigrid/Level operator=bp3", "Mesh/Deformation=sine",
               "Mesh/Deformation amplitude=0.1", "Multigrid/Fitted patch smoothing=multiplicative"})},
    {"2D k=2 fitted patches undeformed", with(d2, {"Polynomial degree=2", "Multigrid/Patch geometry=fitted"})},
    {"3D k=2 chebyshev", with(d3, {"Polynomial degree=2", "Multigrid/Smoother=chebyshev_jacobi"})},
    {"2D k=2 chebyshev cg", with(d2, {"Polynomial degree=2", "Multigrid/Smoother=chebyshev_jacobi", "Solver/Type=cg"})},
    {"3D k=2 function problem",
     with(d3, {"Polynomial degree=2", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=exp(x)*sin(2*y)*cos(z)*(3+2*0)", "Problem/Boundary values=1+x*x-y*z",
               "Problem/Exact solution=1+x*x-y*z", "Mesh/Box lower=0,-1,0.5", "Mesh/Box upper=2,1,1.5"})},
    {"2D k=2 separate kernel", with(d2, {"Polynomial degree=2", "Multigrid/Smoother kernel=separate"})},
    {"3D k=2 global kernel double",
     with(d3, {"Polynomial degree=2", "Multigrid/Smoother kernel=global", "Multigrid/Precision=double"})},
    // Neumann and Robin faces: their nodes unknowns on the ranks at the box's faces, the patches
    // on them among those the colour exchanges send
    {"3D k=2 neumann faces",
     with(d3, {"Polynomial degree=2", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=4*exp(x)*sin(2*y)*cos(z)",
               "Problem/Boundary values=exp(x)*sin(2*y)*cos(z)", "Problem/Exact solution=exp(x)*sin(2*y)*cos(z)",
               "Problem/Boundary types=neumann,dirichlet,dirichlet,neumann,dirichlet,dirichlet",
               "Problem/Boundary flux=abs(x) < 1e-9 ? -exp(x)*sin(2*y)*cos(z) : 2*exp(x)*cos(2*y)*cos(z)"})},
    {"2D k=3 robin faces",
     with(d2, {"Polynomial degree=3", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=3*exp(x)*sin(2*y)", "Problem/Boundary values=exp(x)*sin(2*y)",
               "Problem/Exact solution=exp(x)*sin(2*y)", "Problem/Boundary types=robin,dirichlet,neumann,dirichlet",
               "Problem/Robin coefficient=1 + x + y^2",
               "Problem/Boundary flux=abs(x) < 1e-9 ? (x + y^2)*exp(x)*sin(2*y) : -2*exp(x)*cos(2*y)"})},
    {"3D k=2 robin faces chebyshev",
     with(d3, {"Polynomial degree=2", "Multigrid/Smoother=chebyshev_jacobi", "Problem/Right-hand side=one",
               "Problem/Boundary types=robin,robin,dirichlet,neumann,robin,dirichlet",
               "Problem/Robin coefficient=1 + x*y + z", "Problem/Boundary flux=1 + y"})},
    {"3D k=2 pure neumann",
     with(d3, {"Polynomial degree=2", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=3*pi^2*cos(pi*x)*cos(pi*y)*cos(pi*z)",
               "Problem/Exact solution=cos(pi*x)*cos(pi*y)*cos(pi*z) + 1", "Problem/Boundary types=neumann"})},
    // a coefficient: every rank's operators and fitted patches evaluate it at their own points
    {"3D k=2 coefficient", with(d3, {"Polynomial degree=2", "Problem/Right-hand side=function",
                                     "Problem/Right-hand side function=1 + x*y", "Problem/Boundary values=1+x*x-y*z",
                                     "Problem/Coefficient=1 + 0.5*sin(3*x)*cos(2*y) + (x < 0.5 ? 9 : 0)"})},
    {"2D k=3 coefficient bp5 chebyshev",
     with(d2, {"Polynomial degree=3", "Problem/Right-hand side=one", "Multigrid/Level operator=bp5",
               "Multigrid/Smoother=chebyshev_jacobi", "Problem/Coefficient=2 + sin(5*x*y)"})},
    // a domain given by a map with exact cells: every rank's factors, right-hand side, errors
    {"2D k=3 quarter annulus map",
     with(d2, {"Polynomial degree=3", "Multigrid/Level operator=bp3", "Mesh/Deformation=function",
               "Mesh/Deformation function=(1 + x)*cos(pi/2*y); (1 + x)*sin(pi/2*y)", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=32*x^3*y + 32*x*y^3 - 60*x*y",
               "Problem/Exact solution=(x^2 + y^2 - 1)*(4 - x^2 - y^2)*x*y"})},
    // cells sheared in the upper half only (X = x + 0.4 y^4: shear 1.6 y^3 / sqrt(1 + 2.56 y^6), 0.85 at
    // y = 1): split along y, the parts' own largest shears fall on both sides of fitted_mild_shear, and
    // every part must take the whole level's polynomial (the long one) for the one-rank answer
    {"2D k=3 sheared in the upper half",
     with(d2, {"Polynomial degree=3", "Multigrid/Level operator=bp3", "Mesh/Deformation=function",
               "Mesh/Deformation function=x + 0.4*y^4; y", "Problem/Right-hand side=one"})},
    // the same with a coefficient that varies steeply in the upper half only: the parts' own
    // contrasts fall on both sides of fitted_mild_contrast
    {"2D k=3 coefficient steep in the upper half",
     with(d2, {"Polynomial degree=3", "Problem/Right-hand side=one",
               "Problem/Coefficient=1 + (y > 0.5 ? 1000*(y - 0.5)^3 : 0)"})},
    // a reaction term: its per-point factors, the lifting and the surrogates' shift on every rank
    {"3D k=2 reaction",
     with(d3, {"Polynomial degree=2", "Problem/Right-hand side=function", "Problem/Right-hand side function=1 + x*y",
               "Problem/Boundary values=1+x*x-y*z", "Problem/Reaction coefficient=100*(1 + x*x)"})},
    // constant coefficients with every face Neumann (the truncated patches' mass term; regular,
    // no constant removed), and a varying one with Robin faces on bp3 (its rows on the faces)
    {"2D k=3 pure neumann constant a and c",
     with(d2, {"Polynomial degree=3", "Problem/Right-hand side=function", "Problem/Right-hand side function=1 + x*y",
               "Problem/Boundary types=neumann", "Problem/Coefficient=2", "Problem/Reaction coefficient=30"})},
    {"3D k=2 robin faces bp3 coefficient chebyshev",
     with(d3, {"Polynomial degree=2", "Multigrid/Smoother=chebyshev_jacobi", "Problem/Right-hand side=one",
               "Problem/Boundary types=robin,dirichlet,neumann,dirichlet,robin,dirichlet",
               "Problem/Robin coefficient=1 + y", "Problem/Boundary flux=x", "Problem/Coefficient=1 + x*z"})},
    {"2D k=2 every face robin, separate kernel",
     with(d2, {"Polynomial degree=2", "Multigrid/Smoother kernel=separate", "Problem/Right-hand side=one",
               "Problem/Boundary types=robin", "Problem/Robin coefficient=1 + x", "Problem/Boundary flux=x*y"})},
    // periodic faces: the rings of boxes along periodic directions (a rank its own neighbour, or
    // two ranks neighbours at both ends), the gather into rank 0's periodic coarse levels
    {"3D k=2 periodic x and z",
     with(d3, {"Polynomial degree=2", "Mesh/Coarse cells=2,2,4", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=(5*pi^2 - 1)*sin(2*pi*x)*exp(y)*cos(2*pi*z)",
               "Problem/Boundary values=sin(2*pi*x)*exp(y)*cos(2*pi*z)",
               "Problem/Exact solution=sin(2*pi*x)*exp(y)*cos(2*pi*z)",
               "Problem/Boundary types=periodic,periodic,dirichlet,dirichlet,periodic,periodic"})},
    {"2D k=3 fully periodic",
     with(d2, {"Polynomial degree=3", "Mesh/Coarse cells=4,2", "Problem/Right-hand side=function",
               "Problem/Right-hand side function=8*pi^2*sin(2*pi*x)*cos(2*pi*y)",
               "Problem/Exact solution=sin(2*pi*x)*cos(2*pi*y) + 1", "Problem/Boundary types=periodic"})},
    // the fitted patches on Neumann and Robin faces (a deformed mesh) and across periodic faces
    // (a coefficient): their face patches on the ranks at the box's faces, the ghost cells' widths
    // and coefficient means
    {"3D k=2 bp3 sine neumann and robin fitted",
     with(d3, {"Polynomial degree=2", "Multigrid/Level operator=bp3", "Mesh/Deformation=sine",
               "Mesh/Deformation amplitude=0.1", "Problem/Right-hand side=one",
               "Problem/Boundary types=neumann,robin,dirichlet,neumann,dirichlet,robin",
               "Problem/Robin coefficient=1 + x*y", "Problem/Boundary flux=x"})},
    {"3D k=2 periodic x and z coefficient fitted",
     with(d3, {"Polynomial degree=2", "Mesh/Coarse cells=2,2,4", "Problem/Right-hand side=one",
               "Problem/Coefficient=2 + sin(2*pi*x)*cos(2*pi*z)",
               "Problem/Boundary types=periodic,periodic,dirichlet,dirichlet,periodic,periodic"})},
    {"2D k=2 periodic y with neumann and robin, global kernel",
     with(d2, {"Polynomial degree=2", "Multigrid/Smoother kernel=global", "Problem/Right-hand side=one",
               "Problem/Boundary types=neumann,robin,periodic,periodic", "Problem/Robin coefficient=1 + y",
               "Problem/Boundary flux=x*y"})},
  };

  for (Case c : all)
    try
      {
        ++cases;
        if (!precision.empty())
          c.settings.push_back("Multigrid/Precision=" + precision);
        const SolverParameters p = parameters(c, device);
        std::ostringstream     log;
        const RunResult        distributed = run_poisson(p, log, world);
        if (distributed.ranks != world.size())
          fail(c.name + ": the result says " + std::to_string(distributed.ranks) + " ranks");
        if (world.size() > 1 && exchange != ExchangePath::automatic && distributed.exchange_path != to_string(exchange))
          fail(c.name + ": exchanges through " + distributed.exchange_path + ", not " + to_string(exchange));
        // (the first V-cycle runs launch by launch, what it sets up then in place for the
        // recording, so a solve of one or two preconditioner applications may record none)
        if (p.cuda_graph == CudaGraph::always && distributed.iterations >= 3 && !distributed.cuda_graph)
          fail(c.name + ": the V-cycle ran launch by launch" +
               (distributed.warnings.empty() ? std::string() : ": " + distributed.warnings.back()));
        if (distributed.cuda_graph && distributed.cuda_graph_level < distributed.level)
          ++coarser_level_graphs;
        // (the case named so gathers level 1 where level 2's boxes halve: 2 and 4 ranks)
        if (c.name.find("gather level") != std::string::npos)
          {
            const int expected = world.size() == 3 ? 2 : 1;
            if (distributed.first_distributed_level != 2 || distributed.gathered_level != expected)
              fail(c.name + ": levels from " + std::to_string(distributed.first_distributed_level) + " split, level " +
                   std::to_string(distributed.gathered_level) + " gathered (expected 2 and " +
                   std::to_string(expected) + ")");
          }
        if (!root)
          continue;
        const RunResult one = run_poisson(p, log, Communicator::self());
        if (!one.converged || !distributed.converged)
          fail(c.name + ": not converged (one rank: " + one.failure + "; distributed: " + distributed.failure + ")");
        if (one.iterations != distributed.iterations)
          fail(c.name + ": " + std::to_string(distributed.iterations) + " iterations on " +
               std::to_string(world.size()) + " ranks, " + std::to_string(one.iterations) + " on one");
        auto differ = [](const RunResult &a, const RunResult &b) {
          double d = 0;
          for (std::size_t i = 0; i < std::min(a.history.size(), b.history.size()); ++i)
            d = std::max(d, std::fabs(a.history[i] - b.history[i]) / a.history[i]);
          return d;
        };
        const double worst  = differ(one, distributed);
        bool         within = one.history.size() == distributed.history.size();
        // the initial residual |b| (fmg's history starts after the full multigrid cycle, whose
        // residual is far smaller: |b| is the last residual over the relative one)
        const double initial =
          one.relative_residual > 0 ? one.history.back() / one.relative_residual : one.history.front();
        for (std::size_t i = 0; within && i < one.history.size(); ++i)
          within = std::fabs(one.history[i] - distributed.history[i]) <=
                   history_tolerance * one.history[i] + history_floor * initial;
        double spread = 0; // of two one-rank runs on the GPU
        if (device == DeviceChoice::cuda)
          spread = differ(one, run_poisson(p, log, Communicator::self()));
        if (!within)
          {
            char m[120];
            std::snprintf(m, sizeof m, ": residual histories differ by %.1e relative", worst);
            fail(c.name + m);
          }
        if (one.l2_error.has_value() != distributed.l2_error.has_value())
          fail(c.name + ": an L2 error on one side only");
        else if (one.l2_error)
          {
            const double rel = std::fabs(*one.l2_error - *distributed.l2_error) / *one.l2_error;
            if (!(rel <= l2_tolerance))
              {
                char m[160];
                std::snprintf(m, sizeof m, ": L2 errors %.6e and %.6e differ by %.1e relative", *one.l2_error,
                              *distributed.l2_error, rel);
                fail(c.name + m);
              }
          }
        // the solution's range, mean and point values (where asked for) as on one rank
        const double        scale = std::max({1.0, std::fabs(one.solution_min), std::fabs(one.solution_max)});
        std::vector<double> a     = {one.solution_min, one.solution_max, one.solution_mean},
                            b     = {distributed.solution_min, distributed.solution_max, distributed.solution_mean};
        a.insert(a.end(), one.point_values.begin(), one.point_values.end());
        b.insert(b.end(), distributed.point_values.begin(), distributed.point_values.end());
        if (a.size() != b.size() || one.point_values.size() != p.point_values.size())
          fail(c.name + ": point values missing");
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
          if (!(std::fabs(a[i] - b[i]) <= std::max(l2_tolerance, 1e-14) * scale))
            fail(c.name + ": solution value " + std::to_string(i) + " (min, max, mean, points) " +
                 std::to_string(b[i]) + ", on one rank " + std::to_string(a[i]));
        std::printf("%-40s %3d its, histories within %.1e (one rank twice: %.1e), %s\n", c.name.c_str(),
                    distributed.iterations, worst, spread, distributed.process_grid.c_str());
      }
    catch (const std::exception &e)
      {
        fail(c.name + ": " + e.what());
      }
  // the VTU output: on several ranks one piece per rank (its owned cells) and a .pvtu index; the
  // pieces' sub-cells add up to the whole level's (with stride 2 = k, the cells themselves)
  for (int stride : {1, 2})
    try
      {
        Case              c{"vtu", with(d3, {"Polynomial degree=2"})};
        SolverParameters  p   = parameters(c, device);
        const std::string dir = "mpi_solver_vtu_" + std::to_string(world.size());
        if (root)
          std::filesystem::create_directories(dir);
        world.barrier();
        p.vtu_file   = dir + "/solution.vtu";
        p.vtu_stride = stride;
        std::ostringstream log;
        const RunResult    r = run_poisson(p, log, world);
        world.barrier();
        if (root)
          {
            auto count_in = [](const std::string &file, const std::string &key) {
              std::ifstream in(file);
              std::string   text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
              long          n = 0;
              for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1))
                n += key.back() == '"' ? std::atol(text.c_str() + at + key.size()) : 1;
              return n;
            };
            const long whole_cells = stride == 1 ? (13 - 1) * (9 - 1) * (21 - 1) // k = 2 sub-cells of 6 x 4 x 10 cells
                                                 : 6 * 4 * 10;
            long       cells       = 0;
            if (world.size() == 1)
              cells = count_in(p.vtu_file, "NumberOfCells=\"");
            else
              {
                if (count_in(dir + "/solution.pvtu", "<Piece Source=") != world.size())
                  fail("the .pvtu file does not list " + std::to_string(world.size()) + " pieces");
                for (int q = 0; q < world.size(); ++q)
                  cells += count_in(dir + "/solution_" + std::to_string(q) + ".vtu", "NumberOfCells=\"");
              }
            if (cells != whole_cells || !r.converged)
              fail("VTU output: " + std::to_string(cells) + " sub-cells in the pieces, " + std::to_string(whole_cells) +
                   " expected");
            std::printf("VTU output, stride %d: %ld sub-cells in %d piece(s)\n", stride, cells, world.size());
            std::filesystem::remove_all(dir);
          }
      }
    catch (const std::exception &e)
      {
        fail(std::string("vtu: ") + e.what());
      }

  if (graph_rank_dofs > 0 && device == DeviceChoice::cuda && coarser_level_graphs == 0)
    fail("--graph-rank-dofs " + std::to_string(graph_rank_dofs) + ": no solve replayed a graph of its coarser levels");
  if (root && graph_rank_dofs > 0)
    std::printf("%d solves replayed a graph of their coarser levels\n", coarser_level_graphs);
  const bool ok = !world.any(failures > 0);
  if (root)
    std::printf("%d ranks: %d solves against one rank, %s\n", world.size(), cases, ok ? "equal" : "FAILED");
  return ok ? 0 : 1;
}
