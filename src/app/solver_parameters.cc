// The parameters of poisson_solver: declaration with defaults, patterns and documentation, and
// their validated, typed form. The names of every choice come from the tables of
// tpmg/options.h; the smoother's rules from resolve_smoother (smoother_configuration.h).
#include <tpmg/geometry.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/solver_parameters.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace tpmg
{
  namespace
  {
    /// The pattern of a choice among `values` (default: every value of E).
    template <typename E>
    Pattern choice(const std::vector<E> &values = {})
    {
      return Pattern::selection(names_of<E>(values));
    }

    /// The value of a choice parameter (its pattern admitted only names of E).
    template <typename E>
    E get_choice(const ParameterHandler &prm, const std::string &path)
    {
      return *from_string<E>(prm.get(path));
    }

    /// The expressions parse in the problem's dimension, and the choices that use them agree.
    void check_problem(const ParameterHandler &prm, const SolverParameters &p)
    {
      auto fail = [&](const std::string &path, const std::string &what) {
        throw ParameterError(prm.where(path) + ": " + what);
      };
      const struct
      {
        const char        *path;
        const std::string &text;
      } expressions[] = {{"Problem/Right-hand side function", p.rhs_function},
                         {"Problem/Boundary values", p.boundary_values},
                         {"Problem/Exact solution", p.exact_solution}};
      for (const auto &e : expressions)
        if (!e.text.empty() || std::string(e.path) != "Problem/Exact solution")
          try
            {
              (void)Expression(e.text, p.dim);
            }
          catch (const ExpressionError &error)
            {
              fail(e.path, std::string(e.path).substr(8) + " '" + printable(e.text) + "': " + error.what());
            }
      // (a zero function is what --print-parameters writes: not an error)
      if (!Expression(p.rhs_function, p.dim).is_zero() && p.rhs != RightHandSide::function)
        fail("Problem/Right-hand side function",
             std::string("a right-hand side function is given, but 'Right-hand side' is ") + to_string(p.rhs) +
               "; set 'Right-hand side = function' to use it");
      const bool boundary = !Expression(p.boundary_values, p.dim).is_zero();
      if (p.rhs == RightHandSide::manufactured && boundary)
        fail("Problem/Boundary values", "the manufactured problem has zero boundary values; use 'Right-hand side = "
                                        "function' (with its exact solution) for non-zero ones");
      if (p.rhs == RightHandSide::manufactured && !p.exact_solution.empty())
        fail("Problem/Exact solution", "the manufactured problem has its own exact solution; an 'Exact solution' "
                                       "goes with 'Right-hand side = function' or one");
      if (p.conventions == Conventions::paper_code && (p.rhs == RightHandSide::function || boundary))
        fail(p.rhs == RightHandSide::function ? "Problem/Right-hand side" : "Problem/Boundary values",
             "the paper_code conventions solve the authors' problem (b = 1, zero boundary values); use Conventions "
             "= standard");
    }

    /// The checks of the mesh that need its levels: sizes, the coarse solve, the deformation
    /// (the same functions the solver calls at setup, so that their errors name the line here).
    void check_mesh(const ParameterHandler &prm, const SolverParameters &p)
    {
      auto fail = [&](const std::string &path, const std::string &what) {
        throw ParameterError(prm.where(path) + ": " + what);
      };
      const std::string cells_path =
        prm.where("Mesh/Coarse cells") == "default" ? "Mesh/Refinement level" : "Mesh/Coarse cells";
      for (int d = 0; d < p.dim; ++d)
        if (p.coarse_cells[d] > 1 << 20 >> p.refinement_level)
          fail(cells_path, "the finest level would have more than 2^20 cells per direction");
      std::array<index_t, 3> cells{{1, 1, 1}};
      for (int d = 0; d < p.dim; ++d)
        cells[d] = index_t(p.coarse_cells[d]) << p.refinement_level;
      if (checked_level_dofs(p.dim, p.degree, cells) < 0)
        fail(cells_path, "the finest level would have more than 2^53 DoFs");
      if (p.degree > max_solver_degree(p.dim))
        return; // reported by the caller
      // the coarsest level the multigrid uses, and the coarse solve it needs
      const std::vector<CartesianLevel> levels = make_hierarchy(p.domain(), p.degree, std::min(p.refinement_level, 1));
      const CartesianLevel             &coarse = levels[coarsest_level(levels)];
      MultigridSettings                 mg;
      mg.smoother       = p.smoother;
      mg.deformation    = p.deformation;
      mg.patch_geometry = p.patch_geometry;
      if (const std::string problem = coarse_level_problem(coarse, mg); !problem.empty())
        fail(cells_path, problem);
      if (p.deformation.type == Deformation::none)
        return;
      try
        {
          check_deformation(coarse, p.deformation);
        }
      catch (const std::invalid_argument &e)
        {
          // the Kershaw cell counts: blamed on the coarse cells where the input set them
          const bool cells_set = prm.where("Mesh/Coarse cells") != "default";
          fail(p.deformation.type != Deformation::kershaw ? "Mesh/Deformation amplitude"
               : cells_set                                ? "Mesh/Coarse cells"
                                                          : "Mesh/Deformation",
               e.what());
        }
      if (mesh_folds(coarse, p.deformation))
        {
          const double a = largest_unfolded_amplitude(coarse, p.deformation);
          fail("Mesh/Deformation amplitude", "amplitude " + std::to_string(p.deformation.amplitude) +
                                               " folds a cell of the coarsest level (" + coarse.describe() +
                                               "); this coarse mesh allows amplitudes up to " + std::to_string(a));
        }
    }
  } // namespace

  void declare_parameters(ParameterHandler &prm)
  {
    const SolverParameters d; // the defaults
    prm.declare_entry("Dimension", std::to_string(d.dim), Pattern::integer(2, 3), "Space dimension");
    prm.declare_entry("Polynomial degree", std::to_string(d.degree), Pattern::integer(1, max_degree),
                      "Degree k of the Q_k elements (k <= " + std::to_string(max_solver_degree(3)) + " in 3D)");
    prm.enter_subsection("Mesh");
    prm.declare_entry("Refinement level", std::to_string(d.refinement_level), Pattern::integer(0, 30),
                      "Finest level L; level l has N0 * 2^l cells per direction");
    prm.declare_entry("Coarse cells", std::to_string(d.coarse_cells[0]), Pattern::list(Pattern::integer(1, 1024), 1, 3),
                      "Cells N0 of level 0: one value for every direction, or one per direction");
    prm.declare_entry("Box lower", "0", Pattern::list(Pattern::real(-1e6, 1e6), 1, 3),
                      "Lower corner of the box: one coordinate for every direction, or one per direction");
    prm.declare_entry("Box upper", "1", Pattern::list(Pattern::real(-1e6, 1e6), 1, 3),
                      "Upper corner of the box: one coordinate for every direction, or one per direction");
    prm.declare_entry("Deformation", to_string(d.deformation.type), choice<Deformation>(),
                      "Mesh deformation that keeps the box (needs Level operator bp3 or bp5): none, sine "
                      "(x += a L prod sin(pi xi)), kershaw (CEED benchmarks; cells per direction multiple of 6)");
    prm.declare_entry("Deformation amplitude", "0.1", Pattern::real(0.0, 1.0),
                      "sine: relative amplitude a in [0, " + std::to_string(max_sine_amplitude(2)).substr(0, 3) +
                        "] (2D), [0, " + std::to_string(max_sine_amplitude(3)).substr(0, 4) +
                        "] (3D); kershaw: epsilon in (0, 1], 1 = undeformed");
    prm.leave_subsection();
    prm.enter_subsection("Problem");
    prm.declare_entry("Right-hand side", to_string(d.rhs),
                      choice<RightHandSide>({RightHandSide::manufactured, RightHandSide::one, RightHandSide::function}),
                      "manufactured: u = prod sin(pi (x_i - a_i)/L_i) with its errors; one: f = 1; function: f from "
                      "'Right-hand side function'");
    prm.declare_entry("Right-hand side function", d.rhs_function, Pattern::anything(),
                      "f(x, y, z) for 'Right-hand side = function', in muparser syntax (e.g. -2 - 6*x*z; constants pi, "
                      "_e; functions sin, exp, sqrt, pow, ...; docs/interface.md)");
    prm.declare_entry("Boundary values", d.boundary_values, Pattern::anything(),
                      "Dirichlet data g(x, y, z) on the whole boundary (expression; 0: homogeneous)");
    prm.declare_entry("Exact solution", d.exact_solution, Pattern::anything(),
                      "u(x, y, z) to report the L2 and H1 errors against (expression; empty: none)");
    prm.leave_subsection();
    prm.enter_subsection("Solver");
    prm.declare_entry("Type", to_string(d.solver), choice<SolverType>(),
                      "gmres (double, V-cycle preconditioner), cg (symmetric V-cycle), fmg (full multigrid), "
                      "vcycle (V-cycle iteration from x = 0)");
    prm.declare_entry("Relative tolerance", "1e-9", Pattern::real(1e-16, 1.0), "Stop at this relative residual");
    prm.declare_entry("Maximum iterations", std::to_string(d.max_iterations), Pattern::integer(1, 100000),
                      "Iteration limit");
    prm.declare_entry("GMRES restart", std::to_string(d.gmres_restart), Pattern::integer(1, 1000),
                      "GMRES basis size before a restart (each basis vector costs two fine-level double vectors "
                      "with right preconditioning, one with left)");
    prm.declare_entry("Preconditioning side", to_string(d.preconditioning), choice<PreconditioningSide>(),
                      "GMRES preconditioning: right (flexible, true residual) or left (preconditioned residual)");
    prm.declare_entry("Orthogonalization", to_string(d.orthogonalization), choice<Orthogonalization>(),
                      "GMRES Gram-Schmidt: modified (one reduction over the MPI ranks per basis vector, the faster "
                      "on one GPU) or classical applied twice (three reductions per iteration: for many ranks)");
    prm.leave_subsection();
    prm.enter_subsection("Multigrid");
    prm.declare_entry("Precision", to_string(d.precision), choice<Precision>(),
                      "Arithmetic of the V-cycle (the outer solver is always double)");
    prm.declare_entry("Smoother", to_string(d.smoother), choice<SmootherType>(),
                      "Multiplicative vertex-patch Schwarz smoother, or Chebyshev with point Jacobi");
    prm.declare_entry(
      "Smoother kernel", to_string(d.patch.kernel), choice<SmootherKernel>(),
      "Vertex-patch kernel variant: global residual + patch solve, two patch kernels, one patch kernel");
    prm.declare_entry("Kernel optimization", to_string(d.patch.optimization), choice<KernelOptimization>(),
                      "Vertex-patch kernel optimization (docs/kernels.md): automatic = the fastest measured for "
                      "the device, dimension, degree and precision; tensor_core: 3D fused kernel, 1D products on "
                      "the FP64 tensor cores");
    prm.declare_entry("Level operator", to_string(d.level_operator), choice<LevelOperatorType>(),
                      "Matrix-free level operator: Kronecker form, CEED BP3 (Gauss k+2) or BP5 (GLL collocation)");
    prm.declare_entry("Geometric factors", to_string(d.geometry),
                      choice<GeometryMode>({GeometryMode::stored, GeometryMode::on_the_fly}),
                      "bp3/bp5: factors stored per quadrature point, or computed from the cell vertices in the kernel");
    prm.declare_entry("Patches per block", std::to_string(d.patch.patches_per_block), Pattern::integer(0, 64),
                      "Vertex patches per thread block of the optimized kernels: 0 = automatic, else a power of two");
    prm.declare_entry("Thread structure", to_string(d.patch.thread_structure), choice<ThreadStructure>(),
                      "Basic patch kernels: one thread per column of 2k+1 DoFs or one per DoF; automatic = the "
                      "faster on the H100 (per DoF in 2D for k >= 4 and in 3D double for k >= 7)");
    prm.declare_entry("Local solver", to_string(d.patch.local_solver), choice<LocalSolver>(),
                      "Patch solver: fast diagonalization, or a stored dense inverse (the baseline)");
    prm.declare_entry("Post-smoothing order", to_string(d.post_smoothing), choice<PostSmoothingOrder>(),
                      "Color order in post-smoothing: auto = reverse for cg (symmetric cycle), same otherwise");
    prm.declare_entry(
      "Conventions", to_string(d.conventions), choice<Conventions>(),
      "paper_code: rhs = vector of ones restricted to coarser levels, colors odd-first (reproduces the tables)");
    prm.declare_entry("Chebyshev degree", std::to_string(d.chebyshev_degree), Pattern::integer(0, 30),
                      "Operator applications per Chebyshev smoothing step; 0 = automatic: 3 with point Jacobi, 16 "
                      "with the fitted patches");
    prm.declare_entry("Chebyshev smoothing range", std::to_string(d.chebyshev_range).substr(0, 4),
                      Pattern::real(0, 1e6),
                      "The Chebyshev polynomial damps the interval [lambda_max / range, 1.2 lambda_max] of the "
                      "preconditioned operator; 0 = automatic: 15 with point Jacobi, 400 with the fitted patches");
    prm.declare_entry("Patch geometry", to_string(d.patch_geometry), choice<PatchGeometry>(),
                      "Vertex-patch problems: cartesian (undeformed cell widths, the fast fused kernels) or fitted "
                      "(separable surrogates fitted to the deformed cells, residuals of the level operator); auto = "
                      "fitted on deformed meshes");
    prm.declare_entry("Fitted patch smoothing", to_string(d.fitted_smoothing), choice<FittedSmoothing>(),
                      "Fitted patches: multiplicative Schwarz (a residual before each color), or additive Schwarz "
                      "in a Chebyshev polynomial of Chebyshev degree");
    prm.leave_subsection();
    prm.enter_subsection("Backend");
    prm.declare_entry("Device", to_string(d.device), choice<DeviceChoice>(),
                      "auto: the GPU when one is present, else the CPU");
    prm.declare_entry("Exchange", to_string(d.exchange), choice<ExchangePath>(),
                      "How ghost values travel between the ranks of a distributed run: nccl (NCCL between GPU "
                      "buffers), mpi (MPI on GPU buffers: a CUDA-aware MPI), host (MPI on host memory: staged "
                      "through page-locked buffers on a GPU); auto = the first of these the build and the machine "
                      "have (host on the CPU backend)");
    prm.declare_entry("Minimum DoFs per rank", std::to_string(d.min_rank_dofs), Pattern::integer(0, 1L << 40),
                      "On several ranks, a level coarser than the finest is split over the ranks only where each "
                      "gets at least this many of its DoFs; smaller levels live on rank 0, which saves their "
                      "exchanges' latency. 1 = split every level with two cells per rank and direction; 0 = "
                      "automatic (by backend: measured on GPUs, 1 on the CPU)");
    prm.declare_entry("Overlap exchanges", to_string(d.overlap), choice<ExchangeOverlap>(),
                      "On several GPUs, each vertex-patch smoother colour's ghost exchange runs on a second stream "
                      "beside the colour's patches away from the shared faces: auto = on the levels large enough "
                      "to gain (measured), always = wherever a rank has such patches, never = after the colour");
    prm.declare_entry("Repetitions", std::to_string(d.repetitions), Pattern::integer(1, 100),
                      "Solve this many times and report the fastest (timings only)");
    prm.leave_subsection();
    prm.enter_subsection("Output");
    prm.declare_entry("JSON file", "", Pattern::anything(), "Write the summary as JSON here (also --json FILE)");
    prm.declare_entry("CSV file", "", Pattern::anything(), "Write the runtime breakdown as CSV here");
    prm.declare_entry("VTU file", "", Pattern::anything(), "Write the solution for ParaView here (small runs)");
    prm.declare_entry("Verbose", "true", Pattern::boolean(), "Print a line per iteration and setup progress");
    prm.leave_subsection();
  }

  SolverParameters read_parameters(const ParameterHandler &prm)
  {
    SolverParameters p;
    auto             fail = [&](const std::string &path, const std::string &what) {
      throw ParameterError(prm.where(path) + ": " + what);
    };
    p.dim                   = int(prm.get_integer("Dimension"));
    p.degree                = int(prm.get_integer("Polynomial degree"));
    p.refinement_level      = int(prm.get_integer("Mesh/Refinement level"));
    p.deformation.type      = get_choice<Deformation>(prm, "Mesh/Deformation");
    p.deformation.amplitude = prm.get_double("Mesh/Deformation amplitude");
    // one value for every direction, or one per direction
    auto per_direction = [&](const std::string &path, auto convert, auto &out) {
      const std::vector<std::string> v = prm.get_list(path);
      if (v.size() != 1 && int(v.size()) != p.dim)
        fail(path, "expected one value or " + std::to_string(p.dim) + " (one per direction) in " +
                     std::to_string(p.dim) + "D, not " + std::to_string(v.size()));
      for (int d = 0; d < 3; ++d)
        out[d] = convert(v[v.size() == 1 ? 0 : std::min<std::size_t>(d, v.size() - 1)]);
    };
    per_direction(
      "Mesh/Coarse cells", [](const std::string &v) { return int(std::stol(v)); }, p.coarse_cells);
    per_direction(
      "Mesh/Box lower", [](const std::string &v) { return std::stod(v); }, p.box_lower);
    per_direction(
      "Mesh/Box upper", [](const std::string &v) { return std::stod(v); }, p.box_upper);
    for (int d = 0; d < p.dim; ++d)
      if (!(p.box_upper[d] > p.box_lower[d]))
        // blamed on the one of the two the input set (the other kept its default)
        fail(prm.where("Mesh/Box upper") == "default" ? "Mesh/Box lower" : "Mesh/Box upper",
             "'Box upper' must be larger than 'Box lower' in every direction (direction " + std::to_string(d) + ": " +
               std::to_string(p.box_lower[d]) + " and " + std::to_string(p.box_upper[d]) + ")");

    p.rhs             = get_choice<RightHandSide>(prm, "Problem/Right-hand side");
    p.rhs_function    = prm.get("Problem/Right-hand side function");
    p.boundary_values = prm.get("Problem/Boundary values");
    p.exact_solution  = prm.get("Problem/Exact solution");

    p.solver             = get_choice<SolverType>(prm, "Solver/Type");
    p.relative_tolerance = prm.get_double("Solver/Relative tolerance");
    p.max_iterations     = int(prm.get_integer("Solver/Maximum iterations"));
    p.gmres_restart      = int(prm.get_integer("Solver/GMRES restart"));
    p.preconditioning    = get_choice<PreconditioningSide>(prm, "Solver/Preconditioning side");
    p.orthogonalization  = get_choice<Orthogonalization>(prm, "Solver/Orthogonalization");

    p.precision               = get_choice<Precision>(prm, "Multigrid/Precision");
    p.smoother                = get_choice<SmootherType>(prm, "Multigrid/Smoother");
    p.patch.kernel            = get_choice<SmootherKernel>(prm, "Multigrid/Smoother kernel");
    p.patch.optimization      = get_choice<KernelOptimization>(prm, "Multigrid/Kernel optimization");
    p.level_operator          = get_choice<LevelOperatorType>(prm, "Multigrid/Level operator");
    p.geometry                = get_choice<GeometryMode>(prm, "Multigrid/Geometric factors");
    p.patch.patches_per_block = int(prm.get_integer("Multigrid/Patches per block"));
    p.patch.thread_structure  = get_choice<ThreadStructure>(prm, "Multigrid/Thread structure");
    p.patch.local_solver      = get_choice<LocalSolver>(prm, "Multigrid/Local solver");
    p.post_smoothing          = get_choice<PostSmoothingOrder>(prm, "Multigrid/Post-smoothing order");
    p.conventions             = get_choice<Conventions>(prm, "Multigrid/Conventions");
    p.chebyshev_degree        = int(prm.get_integer("Multigrid/Chebyshev degree"));
    p.chebyshev_range         = prm.get_double("Multigrid/Chebyshev smoothing range");
    p.patch_geometry          = get_choice<PatchGeometry>(prm, "Multigrid/Patch geometry");
    p.fitted_smoothing        = get_choice<FittedSmoothing>(prm, "Multigrid/Fitted patch smoothing");

    p.device        = get_choice<DeviceChoice>(prm, "Backend/Device");
    p.exchange      = get_choice<ExchangePath>(prm, "Backend/Exchange");
    p.min_rank_dofs = index_t(prm.get_integer("Backend/Minimum DoFs per rank"));
    p.overlap       = get_choice<ExchangeOverlap>(prm, "Backend/Overlap exchanges");
    p.repetitions   = int(prm.get_integer("Backend/Repetitions"));

    p.json_file = prm.get("Output/JSON file");
    p.csv_file  = prm.get("Output/CSV file");
    p.vtu_file  = prm.get("Output/VTU file");
    p.verbose   = prm.get_bool("Output/Verbose");

    // cross-checks, reported at the line that set the offending value
    if (p.degree > max_solver_degree(p.dim))
      fail("Polynomial degree", "the " + std::to_string(p.dim) + "D multigrid solver supports degrees 1.." +
                                  std::to_string(max_solver_degree(p.dim)) + ", not " + std::to_string(p.degree));
    if (const auto e = check_smoother_settings(p.patch, p.dim, p.degree, p.precision))
      {
        const char *path = nullptr;
        switch (e->setting)
          {
            case SmootherSetting::kernel:
              path = "Multigrid/Smoother kernel";
              break;
            case SmootherSetting::optimization:
              path = "Multigrid/Kernel optimization";
              break;
            case SmootherSetting::local_solver:
              path = "Multigrid/Local solver";
              break;
            case SmootherSetting::patches_per_block:
              path = "Multigrid/Patches per block";
              break;
            case SmootherSetting::thread_structure:
              path = "Multigrid/Thread structure";
              break;
          }
        fail(path, e->message);
      }
    if (p.deformation.type != Deformation::none && p.level_operator == LevelOperatorType::cartesian)
      fail("Mesh/Deformation", "a deformed mesh needs Multigrid/Level operator = bp3 or bp5 (cartesian assumes a "
                               "Cartesian mesh)");
    if (p.geometry == GeometryMode::on_the_fly && p.level_operator == LevelOperatorType::cartesian)
      fail("Multigrid/Geometric factors", "on_the_fly applies to the bp3 and bp5 level operators; cartesian has no "
                                          "geometric factors");
    if (p.deformation.type == Deformation::sine && p.deformation.amplitude > max_sine_amplitude(p.dim))
      fail("Mesh/Deformation amplitude", "the sine deformation needs an amplitude in [0, " +
                                           std::to_string(max_sine_amplitude(p.dim)).substr(0, p.dim == 3 ? 4 : 3) +
                                           "] in " + std::to_string(p.dim) + "D to stay invertible");
    if (p.deformation.type == Deformation::kershaw && p.deformation.amplitude <= 0.0)
      fail("Mesh/Deformation amplitude", "the Kershaw deformation needs epsilon in (0, 1]");
    if (p.chebyshev_range != 0 && p.chebyshev_range < 1.01)
      fail("Multigrid/Chebyshev smoothing range",
           "must be 0 (automatic) or at least 1.01, got " + std::to_string(p.chebyshev_range));
    if (p.solver == SolverType::cg && !p.symmetric_vcycle() && p.smoother == SmootherType::vertex_patch)
      fail("Multigrid/Post-smoothing order",
           "cg needs a symmetric V-cycle: Post-smoothing order must be reverse or auto");
    if (p.solver == SolverType::cg && p.preconditioning == PreconditioningSide::left)
      fail("Solver/Preconditioning side", "the preconditioning side applies to gmres only");
    check_problem(prm, p);
    check_mesh(prm, p);
    return p;
  }
} // namespace tpmg
