#include <tpmg/solver_parameters.h>

namespace tpmg
{
  const char *to_string(SolverType t)
  {
    switch (t)
      {
        case SolverType::gmres: return "gmres";
        case SolverType::cg: return "cg";
        case SolverType::fmg: return "fmg";
        case SolverType::vcycle: return "vcycle";
      }
    return "?";
  }
  const char *to_string(Precision p) { return p == Precision::single ? "float" : "double"; }
  const char *to_string(SmootherKernel k)
  {
    return k == SmootherKernel::global ? "global" : k == SmootherKernel::separate ? "separate" : "fused";
  }
  const char *to_string(KernelOptimization o)
  {
    switch (o)
      {
        case KernelOptimization::basic: return "basic";
        case KernelOptimization::linear_indexing: return "linear_indexing";
        case KernelOptimization::conflict_free: return "conflict_free";
        case KernelOptimization::boundary: return "boundary";
        case KernelOptimization::tensor_core: return "tensor_core";
      }
    return "?";
  }
  const char *to_string(LevelOperatorType o)
  {
    return o == LevelOperatorType::cartesian ? "cartesian" : o == LevelOperatorType::bp3 ? "bp3" : "bp5";
  }
  const char *to_string(SmootherType s) { return s == SmootherType::vertex_patch ? "vertex_patch" : "chebyshev_jacobi"; }

  void declare_parameters(ParameterHandler &prm)
  {
    prm.declare_entry("Dimension", "3", Pattern::integer(2, 3), "Space dimension");
    prm.declare_entry("Polynomial degree", "4", Pattern::integer(1, 10),
                      "Degree k of the Q_k elements (k <= 8 in 3D)");
    prm.enter_subsection("Mesh");
    prm.declare_entry("Refinement level", "3", Pattern::integer(0, 30),
                      "Finest level L; level l has N0 * 2^l cells per direction");
    prm.declare_entry("Coarse cells", "1", Pattern::integer(1, 1024), "Cells per direction N0 of level 0");
    prm.declare_entry("Box lower", "0", Pattern::real(-1e6, 1e6), "Lower corner coordinate a of the cube [a,b]^d");
    prm.declare_entry("Box upper", "1", Pattern::real(-1e6, 1e6), "Upper corner coordinate b of the cube [a,b]^d");
    prm.declare_entry("Deformation", "none", Pattern::selection({"none", "sine", "kershaw"}),
                      "Mesh deformation that keeps the box (needs Level operator bp3 or bp5): none, sine "
                      "(x += a L prod sin(pi xi)), kershaw (CEED benchmarks; cells per direction multiple of 6)");
    prm.declare_entry("Deformation amplitude", "0.1", Pattern::real(0.0, 1.0),
                      "sine: relative amplitude a in [0, 0.3] (2D), [0, 0.27] (3D); kershaw: epsilon in (0, 1], 1 = undeformed");
    prm.leave_subsection();
    prm.enter_subsection("Problem");
    prm.declare_entry("Right-hand side", "manufactured", Pattern::selection({"manufactured", "one"}),
                      "manufactured: u = prod sin(pi x_i) with its L2 error; one: f = 1");
    prm.leave_subsection();
    prm.enter_subsection("Solver");
    prm.declare_entry("Type", "gmres", Pattern::selection({"gmres", "cg", "fmg", "vcycle"}),
                      "gmres (double, V-cycle preconditioner), cg (symmetric V-cycle), fmg (full multigrid), "
                      "vcycle (V-cycle iteration from x = 0)");
    prm.declare_entry("Relative tolerance", "1e-9", Pattern::real(1e-16, 1.0), "Stop at this relative residual");
    prm.declare_entry("Maximum iterations", "100", Pattern::integer(1, 100000), "Iteration limit");
    prm.declare_entry("GMRES restart", "30", Pattern::integer(1, 1000),
                      "GMRES basis size before a restart (each costs two fine-level double vectors)");
    prm.declare_entry("Preconditioning side", "right", Pattern::selection({"right", "left"}),
                      "GMRES preconditioning: right (flexible, true residual) or left (preconditioned residual)");
    prm.leave_subsection();
    prm.enter_subsection("Multigrid");
    prm.declare_entry("Precision", "float", Pattern::selection({"float", "double"}),
                      "Arithmetic of the V-cycle (the outer solver is always double)");
    prm.declare_entry("Smoother", "vertex_patch", Pattern::selection({"vertex_patch", "chebyshev_jacobi"}),
                      "Multiplicative vertex-patch Schwarz smoother, or Chebyshev with point Jacobi");
    prm.declare_entry("Smoother kernel", "fused", Pattern::selection({"global", "separate", "fused"}),
                      "Vertex-patch kernel variant: global residual + patch solve, two patch kernels, one patch kernel");
    prm.declare_entry("Kernel optimization", "basic",
                      Pattern::selection({"basic", "linear_indexing", "conflict_free", "boundary", "tensor_core"}),
                      "Vertex-patch kernel optimization (DESIGN.md section 5); tensor_core: 3D fused kernel, "
                      "1D products on the FP64 tensor cores");
    prm.declare_entry("Level operator", "cartesian", Pattern::selection({"cartesian", "bp3", "bp5"}),
                      "Matrix-free level operator: Kronecker form, CEED BP3 (Gauss k+2) or BP5 (GLL collocation)");
    prm.declare_entry("Geometric factors", "stored", Pattern::selection({"stored", "on_the_fly"}),
                      "bp3/bp5: factors stored per quadrature point, or computed from the cell vertices in the kernel");
    prm.declare_entry("Patches per block", "0", Pattern::integer(0, 64),
                      "Vertex patches per thread block of the optimized kernels: 0 = automatic, else a power of two");
    prm.declare_entry("Thread structure", "automatic", Pattern::selection({"automatic", "column", "dof"}),
                      "Basic patch kernels: one thread per column of 2k+1 DoFs or one per DoF; automatic = the "
                      "faster on the H100 (per DoF in 2D for k >= 4 and in 3D double for k >= 7)");
    prm.declare_entry("Local solver", "fast_diagonalization", Pattern::selection({"fast_diagonalization", "inverse_matrix"}),
                      "Patch solver: fast diagonalization, or a stored dense inverse (the baseline)");
    prm.declare_entry("Post-smoothing order", "auto", Pattern::selection({"auto", "same", "reverse"}),
                      "Color order in post-smoothing: auto = reverse for cg (symmetric cycle), same otherwise");
    prm.declare_entry("Conventions", "standard", Pattern::selection({"standard", "paper_code"}),
                      "paper_code: rhs = vector of ones restricted to coarser levels, colors odd-first (reproduces the tables)");
    prm.declare_entry("Chebyshev degree", "3", Pattern::integer(1, 30), "Operator applications per Chebyshev smoothing step");
    prm.leave_subsection();
    prm.enter_subsection("Backend");
    prm.declare_entry("Device", "auto", Pattern::selection({"auto", "cpu", "cuda"}),
                      "auto: the GPU when one is present, else the CPU");
    prm.declare_entry("Repetitions", "1", Pattern::integer(1, 100),
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
    p.dim              = int(prm.get_integer("Dimension"));
    p.degree           = int(prm.get_integer("Polynomial degree"));
    p.refinement_level = int(prm.get_integer("Mesh/Refinement level"));
    p.coarse_cells     = int(prm.get_integer("Mesh/Coarse cells"));
    p.box_lower        = prm.get_double("Mesh/Box lower");
    p.box_upper        = prm.get_double("Mesh/Box upper");
    const std::string deform = prm.get("Mesh/Deformation");
    p.deformation.type       = deform == "none" ? Deformation::none : deform == "sine" ? Deformation::sine : Deformation::kershaw;
    p.deformation.amplitude  = prm.get_double("Mesh/Deformation amplitude");
    if (!(p.box_upper > p.box_lower))
      fail("Mesh/Box upper", "'Box upper' must be larger than 'Box lower'");

    p.rhs = prm.get("Problem/Right-hand side") == "one" ? RightHandSide::one : RightHandSide::manufactured;

    const std::string type = prm.get("Solver/Type");
    p.solver = type == "gmres" ? SolverType::gmres : type == "cg" ? SolverType::cg : type == "fmg" ? SolverType::fmg : SolverType::vcycle;
    p.relative_tolerance   = prm.get_double("Solver/Relative tolerance");
    p.max_iterations       = int(prm.get_integer("Solver/Maximum iterations"));
    p.gmres_restart        = int(prm.get_integer("Solver/GMRES restart"));
    p.left_preconditioning = prm.get("Solver/Preconditioning side") == "left";

    p.precision = prm.get("Multigrid/Precision") == "float" ? Precision::single : Precision::dual;
    p.smoother  = prm.get("Multigrid/Smoother") == "vertex_patch" ? SmootherType::vertex_patch : SmootherType::chebyshev_jacobi;
    const std::string kern = prm.get("Multigrid/Smoother kernel");
    p.kernel = kern == "global" ? SmootherKernel::global : kern == "separate" ? SmootherKernel::separate : SmootherKernel::fused;
    const std::string opt = prm.get("Multigrid/Kernel optimization");
    p.optimization = opt == "basic" ? KernelOptimization::basic
                     : opt == "linear_indexing" ? KernelOptimization::linear_indexing
                     : opt == "conflict_free"   ? KernelOptimization::conflict_free
                     : opt == "boundary"        ? KernelOptimization::boundary
                                                : KernelOptimization::tensor_core;
    const std::string lop = prm.get("Multigrid/Level operator");
    p.level_operator      = lop == "cartesian" ? LevelOperatorType::cartesian : lop == "bp3" ? LevelOperatorType::bp3 : LevelOperatorType::bp5;
    p.geometry = prm.get("Multigrid/Geometric factors") == "on_the_fly" ? GeometryMode::on_the_fly : GeometryMode::stored;
    p.patches_per_block = int(prm.get_integer("Multigrid/Patches per block"));
    const std::string ts = prm.get("Multigrid/Thread structure");
    p.thread_structure   = ts == "automatic" ? ThreadStructure::automatic : ts == "column" ? ThreadStructure::column
                                                                                           : ThreadStructure::dof;
    p.local_solver = prm.get("Multigrid/Local solver") == "inverse_matrix" ? LocalSolver::inverse_matrix
                                                                           : LocalSolver::fast_diagonalization;
    const std::string post = prm.get("Multigrid/Post-smoothing order");
    p.symmetric_vcycle     = post == "reverse" || (post == "auto" && p.solver == SolverType::cg);
    p.conventions = prm.get("Multigrid/Conventions") == "paper_code" ? Conventions::paper_code : Conventions::standard;
    p.chebyshev_degree = int(prm.get_integer("Multigrid/Chebyshev degree"));

    const std::string dev = prm.get("Backend/Device");
    p.device      = dev == "auto" ? DeviceChoice::automatic : dev == "cpu" ? DeviceChoice::cpu : DeviceChoice::cuda;
    p.repetitions = int(prm.get_integer("Backend/Repetitions"));

    p.json_file = prm.get("Output/JSON file");
    p.csv_file  = prm.get("Output/CSV file");
    p.vtu_file  = prm.get("Output/VTU file");
    p.verbose   = prm.get_bool("Output/Verbose");

    // cross-checks, reported at the line that set the offending value
    if (p.dim == 3 && p.degree > 8)
      fail("Polynomial degree", "the 3D multigrid solver supports degrees 1..8, not " + std::to_string(p.degree));
    if (p.optimization == KernelOptimization::boundary && p.kernel == SmootherKernel::global)
      fail("Multigrid/Kernel optimization",
           "the 'boundary' optimization (reduced local residual) applies to the separate and fused kernels, not to global");
    if (p.optimization == KernelOptimization::tensor_core && (p.dim != 3 || p.kernel != SmootherKernel::fused))
      fail("Multigrid/Kernel optimization", "tensor_core exists for the fused kernel in 3D");
    if (p.optimization == KernelOptimization::tensor_core && p.patches_per_block > 1)
      fail("Multigrid/Patches per block", "the tensor_core kernel runs one patch per block");
    if (p.optimization != KernelOptimization::basic && p.local_solver == LocalSolver::inverse_matrix)
      fail("Multigrid/Local solver", "the inverse_matrix local solver exists with Kernel optimization = basic only");
    if (p.patches_per_block != 0 && (p.patches_per_block & (p.patches_per_block - 1)) != 0)
      fail("Multigrid/Patches per block", "patches per block must be 0 (automatic) or a power of two");
    if (p.patches_per_block != 0 && p.optimization == KernelOptimization::basic)
      fail("Multigrid/Patches per block", "the basic kernels choose their patches per block themselves; "
                                          "set it with the optimized kernels only");
    if (p.thread_structure == ThreadStructure::dof && p.optimization != KernelOptimization::basic)
      fail("Multigrid/Thread structure", "one thread per DoF exists with Kernel optimization = basic only (the "
                                         "optimized kernels keep a column per thread in registers)");
    if (p.deformation.type != Deformation::none && p.level_operator == LevelOperatorType::cartesian)
      fail("Mesh/Deformation", "a deformed mesh needs Multigrid/Level operator = bp3 or bp5 (cartesian assumes a "
                               "Cartesian mesh)");
    if (p.geometry == GeometryMode::on_the_fly && p.level_operator == LevelOperatorType::cartesian)
      fail("Multigrid/Geometric factors", "on_the_fly applies to the bp3 and bp5 level operators; cartesian has no "
                                          "geometric factors");
    if (p.deformation.type == Deformation::sine && p.deformation.amplitude > (p.dim == 3 ? 0.27 : 0.3))
      fail("Mesh/Deformation amplitude", std::string("the sine deformation needs an amplitude in [0, ") +
                                           (p.dim == 3 ? "0.27" : "0.3") + "] in " + std::to_string(p.dim) +
                                           "D to stay invertible");
    if (p.deformation.type == Deformation::kershaw && p.deformation.amplitude <= 0.0)
      fail("Mesh/Deformation amplitude", "the Kershaw deformation needs epsilon in (0, 1]");
    if (p.deformation.type != Deformation::none && p.smoother == SmootherType::chebyshev_jacobi)
      fail("Multigrid/Smoother", "the Chebyshev-Jacobi smoother uses the Cartesian diagonal; use vertex_patch on "
                                 "deformed meshes");
    if (p.solver == SolverType::cg && !p.symmetric_vcycle && p.smoother == SmootherType::vertex_patch)
      fail("Multigrid/Post-smoothing order", "cg needs a symmetric V-cycle: Post-smoothing order must be reverse or auto");
    if (p.solver == SolverType::cg && p.left_preconditioning)
      fail("Solver/Preconditioning side", "the preconditioning side applies to gmres only");
    if (p.coarse_cells > 1 << 20 >> p.refinement_level)
      fail("Mesh/Refinement level", "the finest level would have more than 2^20 cells per direction");
    return p;
  }
} // namespace tpmg
