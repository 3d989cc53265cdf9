// The parameters of poisson_solver: declaration with defaults, patterns and documentation, and
// their validated, typed form. The names of every choice come from the tables of
// tpmg/options.h; the smoother's rules from resolve_smoother (smoother_configuration.h).
#include <tpmg/geometry.h>
#include <tpmg/point_values.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/vtu.h>

#include <src/app/parameter_checks.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tpmg
{
  namespace
  {
    /// The pattern of a choice among `values` (default: every value of E).
    template <typename E>
    Pattern choice(const std::vector<E> &values = {})
    {
      return Pattern::selection(names_of<E>(values), aliases_of<E>(values));
    }
  } // namespace

  namespace
  {
    /// The points of a list "x, y (, z); x, y (, z); ...", dim coordinates each.
    std::vector<std::array<double, 3>> parse_points(const ParameterHandler &prm, const std::string &path, int dim)
    {
      std::vector<std::array<double, 3>> points;
      const std::string                  all = prm.get(path);
      if (all.find_first_not_of(" \t") == std::string::npos)
        return points;
      std::size_t begin = 0;
      while (begin <= all.size())
        {
          const std::size_t     end   = std::min(all.find(';', begin), all.size());
          const std::string     point = all.substr(begin, end - begin);
          std::array<double, 3> x{{0, 0, 0}};
          int                   n  = 0;
          std::size_t           at = 0;
          bool                  ok = true;
          while (ok && at <= point.size())
            {
              const std::size_t comma = std::min(point.find(',', at), point.size());
              const std::string value = point.substr(at, comma - at);
              char             *stop  = nullptr;
              const double      v     = std::strtod(value.c_str(), &stop);
              ok = stop != value.c_str() && std::string(stop).find_first_not_of(" \t") == std::string::npos &&
                   std::isfinite(v) && n < dim;
              if (ok)
                x[std::size_t(n++)] = v;
              at = comma + 1;
            }
          if (!ok || n != dim)
            throw ParameterError(prm.where(path) + ": point " + std::to_string(points.size() + 1) + " ('" +
                                 printable(point) + "') is not " + std::to_string(dim) + " numbers separated by ','");
          points.push_back(x);
          begin = end + 1;
        }
      return points;
    }

    /// One parameter of the file bound to its field of SolverParameters: declared with the
    /// field's default as its text, read into the field. `path`: "Section/Name", or "Name".
    struct Binding
    {
      std::string                                                       path;
      Pattern                                                           pattern;
      std::string                                                       doc;
      std::function<std::string(const SolverParameters &)>              text;
      std::function<void(const ParameterHandler &, SolverParameters &)> read;
    };

    /// The field a binding reads into: field(p) gives a reference to it in p, const or not.
    template <class Field>
    using FieldType = std::decay_t<decltype(std::declval<Field>()(std::declval<SolverParameters &>()))>;

    /// A choice among the names of an enum (default: all of them).
    template <class Field>
    Binding choice(const std::string &path, Field field, std::string doc,
                   const std::vector<FieldType<Field>> &values = {})
    {
      using E = FieldType<Field>;
      return {path, Pattern::selection(names_of<E>(values), aliases_of<E>(values)), std::move(doc),
              [field](const SolverParameters &p) { return std::string(to_string(field(p))); },
              [field, path](const ParameterHandler &prm, SolverParameters &p) {
                field(p) = *from_string<E>(prm.get(path)); // (the pattern admitted only its names)
              }};
    }

    /// An integer in [min, max].
    template <class Field>
    Binding integer(const std::string &path, Field field, long min, long max, std::string doc)
    {
      return {path, Pattern::integer(min, max), std::move(doc),
              [field](const SolverParameters &p) { return std::to_string(field(p)); },
              [field, path](const ParameterHandler &prm, SolverParameters &p) {
                field(p) = FieldType<Field>(prm.get_integer(path));
              }};
    }

    /// A real number in [min, max]; `text`: the default as the file writes it.
    template <class Field>
    Binding real(const std::string &path, Field field, double min, double max, std::string text, std::string doc)
    {
      return {path, Pattern::real(min, max), std::move(doc), [text](const SolverParameters &) { return text; },
              [field, path](const ParameterHandler &prm, SolverParameters &p) { field(p) = prm.get_double(path); }};
    }

    /// Text as it is (expressions, file names).
    template <class Field>
    Binding text(const std::string &path, Field field, std::string doc)
    {
      return {path, Pattern::anything(), std::move(doc), [field](const SolverParameters &p) { return field(p); },
              [field, path](const ParameterHandler &prm, SolverParameters &p) { field(p) = prm.get(path); }};
    }

    /// One value for every direction, or one per direction (read after the dimension); `text`:
    /// the default as the file writes it.
    template <class Field, class Convert>
    Binding per_direction(const std::string &path, Field field, const Pattern &element, Convert convert,
                          std::string text, std::string doc)
    {
      return {path, Pattern::list(element, 1, 3), std::move(doc), [text](const SolverParameters &) { return text; },
              [field, path, convert](const ParameterHandler &prm, SolverParameters &p) {
                const std::vector<std::string> v = prm.get_list(path);
                if (v.size() != 1 && int(v.size()) != p.dim)
                  throw ParameterError(prm.where(path) + ": expected one value or " + std::to_string(p.dim) +
                                       " (one per direction) in " + std::to_string(p.dim) + "D, not " +
                                       std::to_string(v.size()));
                for (int d = 0; d < 3; ++d)
                  field(p)[std::size_t(d)] = convert(v[v.size() == 1 ? 0 : std::min<std::size_t>(d, v.size() - 1)]);
              }};
    }

#define TPMG_FIELD(member) \
  [](auto &p) -> auto & { return p.member; }

    /// Every parameter, in the order of the file (the sections in turn).
    const std::vector<Binding> &bindings()
    {
      static const std::vector<Binding> all = [] {
        const SolverParameters d; // the defaults
        std::vector<Binding>   b;
        b.push_back(integer("Dimension", TPMG_FIELD(dim), 2, 3, "Space dimension"));
        b.push_back(integer("Polynomial degree", TPMG_FIELD(degree), 1, max_degree,
                            "Degree k of the Q_k elements (k <= " + std::to_string(max_solver_degree(3)) + " in 3D)"));
        // Mesh
        b.push_back(integer("Mesh/Refinement level", TPMG_FIELD(refinement_level), 0, 30,
                            "Finest level L; level l has N0 * 2^l cells per direction"));
        b.push_back(per_direction(
          "Mesh/Coarse cells", TPMG_FIELD(coarse_cells), Pattern::integer(1, 1024),
          [](const std::string &v) { return int(std::stol(v)); }, std::to_string(d.coarse_cells[0]),
          "Cells N0 of level 0: one value for every direction, or one per direction"));
        b.push_back(per_direction(
          "Mesh/Box lower", TPMG_FIELD(box_lower), Pattern::real(-1e6, 1e6),
          [](const std::string &v) { return std::stod(v); }, "0",
          "Lower corner of the box: one coordinate for every direction, or one per direction"));
        b.push_back(per_direction(
          "Mesh/Box upper", TPMG_FIELD(box_upper), Pattern::real(-1e6, 1e6),
          [](const std::string &v) { return std::stod(v); }, "1",
          "Upper corner of the box: one coordinate for every direction, or one per direction"));
        b.push_back(choice("Mesh/Deformation", TPMG_FIELD(deformation.type),
                           "Mesh deformation (needs Level operator bp3 or bp5): none, sine (x += a L prod "
                           "sin(pi xi), keeps the box), kershaw (CEED benchmarks; cells per direction multiple of "
                           "6), function (the map of Deformation function)"));
        b.push_back(text("Mesh/Deformation function", TPMG_FIELD(deformation_function),
                         "X; Y (; Z): the map of the box's points (x, y, z) onto the domain, one expression per "
                         "component separated by ';' (Deformation = function), e.g. (1 + x)*cos(pi/2*y); "
                         "(1 + x)*sin(pi/2*y) for a quarter annulus"));
        b.push_back(choice("Mesh/Mapping", TPMG_FIELD(deformation.mapping),
                           "The cells under a deformation: automatic (exact for function, multilinear otherwise), "
                           "exact (the map and its derivatives at every point: curved cells; function only), "
                           "multilinear (through the mapped vertices)"));
        b.push_back(real("Mesh/Deformation amplitude", TPMG_FIELD(deformation.amplitude), 0.0, 1.0, "0.1",
                         "sine: relative amplitude a in [0, " + std::to_string(max_sine_amplitude(2)).substr(0, 3) +
                           "] (2D), [0, " + std::to_string(max_sine_amplitude(3)).substr(0, 4) +
                           "] (3D); kershaw: epsilon in (0, 1], 1 = undeformed"));
        // Problem
        b.push_back(choice("Problem/Right-hand side", TPMG_FIELD(rhs),
                           "manufactured: u = prod sin(pi (x_i - a_i)/L_i) with its errors; one: f = 1; function: f "
                           "from 'Right-hand side function'",
                           {RightHandSide::manufactured, RightHandSide::one, RightHandSide::function}));
        b.push_back(text("Problem/Right-hand side function", TPMG_FIELD(rhs_function),
                         "f(x, y, z) for 'Right-hand side = function', in muparser syntax (e.g. -2 - 6*x*z; constants "
                         "pi, _e; functions sin, exp, sqrt, pow, ...; docs/interface.md)"));
        b.push_back(text("Problem/Boundary values", TPMG_FIELD(boundary_values),
                         "Dirichlet data g(x, y, z) on the whole boundary (expression; 0: homogeneous)"));
        b.push_back(
          {"Problem/Boundary types", Pattern::list(choice<BoundaryType>(), 1, 6),
           "Condition on each face, x-, x+, y-, y+ (, z-, z+), or one value for all: dirichlet (u = g), neumann "
           "(du/dn = h), robin (du/dn + alpha u = h; n the outer normal; with a coefficient a: a du/dn), "
           "periodic (opposite faces in pairs); without a Dirichlet face, Robin face or reaction term u is fixed "
           "up to a constant (the solution gets the exact solution's mean, or zero mean)",
           [](const SolverParameters &) { return std::string(to_string(BoundaryType::dirichlet)); },
           [](const ParameterHandler &prm, SolverParameters &p) {
             const std::string              path = "Problem/Boundary types";
             const std::vector<std::string> v    = prm.get_list(path);
             if (v.size() != 1 && int(v.size()) != 2 * p.dim)
               throw ParameterError(prm.where(path) + ": expected one type or " + std::to_string(2 * p.dim) +
                                    " (faces x-, x+, y-, y+" + (p.dim == 3 ? ", z-, z+" : "") + ") in " +
                                    std::to_string(p.dim) + "D, not " + std::to_string(v.size()));
             for (int f = 0; f < 6; ++f)
               p.boundary.type[std::size_t(f)] = f < 2 * p.dim
                                                   ? *from_string<BoundaryType>(v[v.size() == 1 ? 0 : std::size_t(f)])
                                                   : BoundaryType::dirichlet;
           }});
        b.push_back(
          text("Problem/Boundary flux", TPMG_FIELD(boundary_flux),
               "h(x, y, z) on the Neumann and Robin faces: du/dn + alpha u = h (a du/dn with a coefficient a), "
               "n the outer normal (expression)"));
        b.push_back(text("Problem/Robin coefficient", TPMG_FIELD(robin_coefficient),
                         "alpha(x, y, z) >= 0 on the Robin faces (expression)"));
        b.push_back(text("Problem/Coefficient", TPMG_FIELD(coefficient),
                         "a(x, y, z) > 0 of -div(a grad u) = f (expression; 1: the Laplacian); with a coefficient "
                         "the level operator is bp3 (or bp5) and the smoother's patches fitted"));
        b.push_back(text("Problem/Reaction coefficient", TPMG_FIELD(reaction),
                         "c(x, y, z) >= 0 of -div(a grad u) + c u = f (expression; 0: none), e.g. 1/dt of an "
                         "implicit time step; as with a coefficient, the level operator is bp3 (or bp5) and "
                         "the smoother's patches fitted"));
        b.push_back(text("Problem/Exact solution", TPMG_FIELD(exact_solution),
                         "u(x, y, z) to report the L2 and H1 errors against (expression; empty: none)"));
        // Solver
        b.push_back(choice("Solver/Type", TPMG_FIELD(solver),
                           "gmres (double, V-cycle preconditioner), cg (symmetric V-cycle), fmg (full multigrid), "
                           "vcycle (V-cycle iteration from x = 0)"));
        b.push_back(real("Solver/Relative tolerance", TPMG_FIELD(relative_tolerance), 1e-16, 1.0, "1e-9",
                         "Stop at this relative residual"));
        b.push_back(integer("Solver/Maximum iterations", TPMG_FIELD(max_iterations), 1, 100000, "Iteration limit"));
        b.push_back(integer("Solver/GMRES restart", TPMG_FIELD(gmres_restart), 1, 1000,
                            "GMRES basis size before a restart (each basis vector costs two fine-level double "
                            "vectors with right preconditioning, one with left)"));
        b.push_back(choice("Solver/Preconditioning side", TPMG_FIELD(preconditioning),
                           "GMRES preconditioning: right (flexible, true residual) or left (preconditioned residual)"));
        b.push_back(choice("Solver/Orthogonalization", TPMG_FIELD(orthogonalization),
                           "GMRES Gram-Schmidt: modified (one reduction over the MPI ranks per basis vector, the "
                           "faster on one GPU) or classical applied twice (three reductions per iteration: for many "
                           "ranks)"));
        // Multigrid
        b.push_back(choice("Multigrid/Precision", TPMG_FIELD(precision),
                           "Arithmetic of the V-cycle (the outer solver is always double)"));
        b.push_back(choice("Multigrid/Smoother", TPMG_FIELD(smoother),
                           "Multiplicative vertex-patch Schwarz smoother, or Chebyshev with point Jacobi"));
        b.push_back(
          choice("Multigrid/Smoother kernel", TPMG_FIELD(patch.kernel),
                 "Vertex-patch kernel variant: global residual + patch solve, two patch kernels, one patch kernel"));
        b.push_back(choice("Multigrid/Kernel optimization", TPMG_FIELD(patch.optimization),
                           "Vertex-patch kernel optimization (docs/kernels.md): automatic = the fastest measured for "
                           "the device, dimension, degree and precision; tensor_core: 3D fused kernel, 1D products on "
                           "the FP64 tensor cores"));
        b.push_back(
          choice("Multigrid/Level operator", TPMG_FIELD(level_operator),
                 "Matrix-free level operator: Kronecker form, CEED BP3 (Gauss k+2) or BP5 (GLL collocation)"));
        b.push_back(
          choice("Multigrid/Geometric factors", TPMG_FIELD(geometry),
                 "bp3/bp5: factors stored per quadrature point, or computed from the cell vertices in the kernel",
                 {GeometryMode::stored, GeometryMode::on_the_fly}));
        b.push_back(
          integer("Multigrid/Patches per block", TPMG_FIELD(patch.patches_per_block), 0, 64,
                  "Vertex patches per thread block of the optimized kernels: 0 = automatic, else a power of two"));
        b.push_back(choice("Multigrid/Thread structure", TPMG_FIELD(patch.thread_structure),
                           "Basic patch kernels: one thread per column of 2k+1 DoFs or one per DoF; automatic = the "
                           "faster on the H100 (per DoF in 2D for k >= 4 and in 3D double for k >= 7)"));
        b.push_back(choice("Multigrid/Local solver", TPMG_FIELD(patch.local_solver),
                           "Patch solver: fast diagonalization, or a stored dense inverse (the baseline)"));
        b.push_back(choice("Multigrid/Post-smoothing order", TPMG_FIELD(post_smoothing),
                           "Color order in post-smoothing: auto = reverse for cg (symmetric cycle), same otherwise"));
        b.push_back(choice("Multigrid/Conventions", TPMG_FIELD(conventions),
                           "paper_code: rhs = vector of ones restricted to coarser levels, colors odd-first "
                           "(reproduces the tables)"));
        b.push_back(
          integer("Multigrid/Chebyshev degree", TPMG_FIELD(chebyshev_degree), 0, 30,
                  "Operator applications per Chebyshev smoothing step; 0 = automatic: 3 with point Jacobi; "
                  "with the fitted patches per level 4 on mildly sheared cells whose coefficients vary little "
                  "within a patch, else 16"));
        b.push_back(real("Multigrid/Chebyshev smoothing range", TPMG_FIELD(chebyshev_range), 0, 1e6,
                         std::to_string(d.chebyshev_range).substr(0, 4),
                         "The Chebyshev polynomial damps the interval [lambda_max / range, 1.2 lambda_max] of the "
                         "preconditioned operator; 0 = automatic: 15 with point Jacobi; with the fitted patches "
                         "per level 15 on mildly sheared cells whose coefficients vary little within a patch, else "
                         "400"));
        b.push_back(choice("Multigrid/Patch geometry", TPMG_FIELD(patch_geometry),
                           "Vertex-patch problems: cartesian (undeformed cell widths, the fast fused kernels) or "
                           "fitted (separable surrogates fitted to the deformed cells, residuals of the level "
                           "operator); auto = fitted on deformed meshes and with coefficients that vary in space"));
        b.push_back(choice("Multigrid/Fitted patch kernel", TPMG_FIELD(fitted_kernel),
                           "Fitted patches: the 1D products of the patch solves on the FP32/FP64 units (scalar), "
                           "or as tile products on the tensor cores, exact in FP64 (tensor_fp64) or with operands "
                           "rounded to TF32 (tensor_tf32); automatic = the fastest measured for the device, "
                           "dimension, degree and precision"));
        b.push_back(choice("Multigrid/Fitted patch smoothing", TPMG_FIELD(fitted_smoothing),
                           "Fitted patches: multiplicative Schwarz (a residual before each color), or additive "
                           "Schwarz in a Chebyshev polynomial of Chebyshev degree"));
        b.push_back(choice("Multigrid/Fitted patch launch", TPMG_FIELD(fitted_launch),
                           "Fitted patches, additive Schwarz: the patches one color per launch (by_colour; the "
                           "sums in a fixed order), or all in one launch with atomic additions (all_at_once); "
                           "auto = all_at_once on the GPU, by_colour on the CPU"));
        b.push_back(choice("Multigrid/Coarse level", TPMG_FIELD(coarse_level),
                           "The level of the V-cycle's coarse solve: auto = the finest level below the finest that "
                           "fast diagonalization solves exactly with at most " +
                             std::to_string(fast_diagonalization_coarse_extent) +
                             " unknowns per direction (Cartesian level operator, constant coefficients, no periodic "
                             "or Robin faces, not singular), else as mesh; mesh = the coarse mesh's level (level 1 "
                             "from one coarse cell), the paper's hierarchy"));
        // Backend
        b.push_back(choice("Backend/Device", TPMG_FIELD(device), "auto: the GPU when one is present, else the CPU"));
        b.push_back(choice("Backend/Exchange", TPMG_FIELD(exchange),
                           "How ghost values travel between the ranks of a distributed run: nccl (NCCL between GPU "
                           "buffers), mpi (MPI on GPU buffers: a CUDA-aware MPI), host (MPI on host memory: staged "
                           "through page-locked buffers on a GPU); auto = the first of these the build and the "
                           "machine have (host on the CPU backend)"));
        b.push_back(integer("Backend/NCCL channels", TPMG_FIELD(nccl_channels), 0, 64,
                            "On the nccl exchange path, the most channels (thread blocks) NCCL's sends and receives "
                            "use; NCCL connects each peer's channels at the first exchange, in the setup (about 6 ms "
                            "a channel on H200s), and fewer channels move large messages slower; 0 = NCCL's default "
                            "(32 point-to-point channels per peer on H200s)"));
        b.push_back(integer("Backend/Minimum DoFs per rank", TPMG_FIELD(min_rank_dofs), 0, 1L << 40,
                            "On several ranks, a level coarser than the finest is split over the ranks only where "
                            "each gets at least this many of its DoFs; smaller levels live on rank 0, which saves "
                            "their exchanges' latency. 1 = split every level with two cells per rank and direction; "
                            "0 = automatic (by backend: measured on GPUs, 1 on the CPU)"));
        b.push_back(
          choice("Backend/Overlap exchanges", TPMG_FIELD(overlap),
                 "On several GPUs, each vertex-patch smoother colour's ghost exchange runs on a second "
                 "stream beside the colour's patches away from the shared faces, and each level operator's "
                 "beside its cells away from them: auto = on the levels large enough to gain, not on the levels "
                 "replayed as a CUDA graph nor the outer operator beside a whole cycle replayed so "
                 "(measured), "
                 "always = wherever a rank has such patches or cells, never = after the colour or the "
                 "operator"));
        b.push_back(choice("Backend/Gather level", TPMG_FIELD(gather_level),
                           "On several ranks, which level's values travel to rank 0 where the V-cycle continues on "
                           "the levels that live there: coarse = the first of those levels, restricted on the "
                           "ranks' parts of it (an eighth of the finer level's values in 3D; where the finer "
                           "level's boxes halve into boxes of two cells per direction or more), fine = the finer, "
                           "split level's, restricted on rank 0"));
        b.push_back(choice("Backend/CUDA graph", TPMG_FIELD(cuda_graph),
                           "Record the V-cycle's launches once as a CUDA graph and replay it (one rank on a GPU, "
                           "or ranks on GPUs exchanging over NCCL, whose sends and receives the graph records): "
                           "fewer launch latencies where the levels are small; the report then times the levels "
                           "in the graph as a whole. auto = the levels up to Backend/CUDA graph DoFs per rank, "
                           "from the second solve on (Backend/Repetitions, PoissonSolver): the whole V-cycle "
                           "where the finest level is that small, else the coarser levels, replayed inside each "
                           "cycle; always = the whole V-cycle from the first solve, never"));
        b.push_back(integer("Backend/CUDA graph DoFs per rank", TPMG_FIELD(cuda_graph_rank_dofs), 1, 1L << 40,
                            "With CUDA graph = auto, the graph records the finest level whose part holds at most "
                            "this many DoFs per rank (all of a level on rank 0 alone) and the coarser ones; above "
                            "it the levels' kernels are long and their launches cost little"));
        b.push_back(integer("Backend/Repetitions", TPMG_FIELD(repetitions), 1, 100,
                            "Solve this many times and report the fastest (timings only)"));
        // Output
        b.push_back(
          text("Output/JSON file", TPMG_FIELD(json_file), "Write the summary as JSON here (also --json FILE)"));
        b.push_back(text("Output/CSV file", TPMG_FIELD(csv_file), "Write the runtime breakdown as CSV here"));
        b.push_back(text("Output/VTU file", TPMG_FIELD(vtu_file),
                         "Write the solution for ParaView here (.vtu; on several ranks a .pvtu and a piece per rank)"));
        b.push_back(choice("Output/VTU format", TPMG_FIELD(vtu_format),
                           "binary = the arrays as raw bytes after the XML (compact, any size), ascii = as text "
                           "(readable, at most " +
                             std::to_string(max_vtu_nodes) + " nodes)"));
        b.push_back(integer("Output/VTU stride", TPMG_FIELD(vtu_stride), 1, 1 << 20,
                            "Write every s-th node along each direction (and each direction's last), for a view of "
                            "a run too large to write whole; s = Polynomial degree writes the cells' vertices"));
        b.push_back(
          {"Output/Point values", Pattern::anything(),
           "Points where the solution is printed and written to the JSON report: x, y (, z) per point in physical "
           "coordinates, points separated by ';' (e.g. 0.5, 0.5, 0.5; 0.25, 0.5, 0.75)",
           [](const SolverParameters &) { return std::string(); },
           [](const ParameterHandler &prm, SolverParameters &p) {
             p.point_values = parse_points(prm, "Output/Point values", p.dim);
           }});
        b.push_back(
          {"Output/Verbose", Pattern::boolean(), "Print a line per iteration and setup progress",
           [](const SolverParameters &p) { return std::string(p.verbose ? "true" : "false"); },
           [](const ParameterHandler &prm, SolverParameters &p) { p.verbose = prm.get_bool("Output/Verbose"); }});
        return b;
      }();
      return all;
    }
#undef TPMG_FIELD
  } // namespace

  void declare_parameters(ParameterHandler &prm)
  {
    const SolverParameters d; // the defaults
    std::string            section;
    for (const Binding &b : bindings())
      {
        const std::size_t slash = b.path.find('/');
        const std::string s     = slash == std::string::npos ? "" : b.path.substr(0, slash);
        if (s != section)
          {
            if (!section.empty())
              prm.leave_subsection();
            if (!s.empty())
              prm.enter_subsection(s);
            section = s;
          }
        prm.declare_entry(slash == std::string::npos ? b.path : b.path.substr(slash + 1), b.text(d), b.pattern, b.doc);
      }
    if (!section.empty())
      prm.leave_subsection();
  }

  SolverParameters read_parameters(const ParameterHandler &prm)
  {
    SolverParameters p;
    auto             fail = [&](const std::string &path, const std::string &what) {
      throw ParameterError(prm.where(path) + ": " + what);
    };
    for (const Binding &b : bindings()) // (the dimension first: the per-direction lists need it)
      b.read(prm, p);
    for (int d = 0; d < p.dim; ++d)
      if (!(p.box_upper[d] > p.box_lower[d]))
        // blamed on the one of the two the input set (the other kept its default)
        fail(prm.where("Mesh/Box upper") == "default" ? "Mesh/Box lower" : "Mesh/Box upper",
             "'Box upper' must be larger than 'Box lower' in every direction (direction " + std::to_string(d) + ": " +
               std::to_string(p.box_lower[d]) + " and " + std::to_string(p.box_upper[d]) + ")");

    for (const std::array<double, 3> &x : p.point_values) // (the built-in meshes fill their box;
      for (int d = 0; d < p.dim && p.deformation.type != Deformation::function; ++d) // a map's: where found)
        {
          const std::size_t dd    = std::size_t(d);
          const double      slack = 1e-12 * (p.box_upper[dd] - p.box_lower[dd]);
          if (!(x[dd] >= p.box_lower[dd] - slack && x[dd] <= p.box_upper[dd] + slack))
            fail("Output/Point values", "the point (" + format_point(x, p.dim) + ") lies outside the box (direction " +
                                          std::to_string(d) + ": " + format_point({{p.box_lower[dd]}}, 1) + " to " +
                                          format_point({{p.box_upper[dd]}}, 1) + ")");
        }

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
    if (const std::string e = fitted_patch_kernel_problem(p.fitted_kernel, p.degree); !e.empty())
      fail("Multigrid/Fitted patch kernel", e);
    if (p.deformation.type == Deformation::function)
      {
        std::string fold;
        try
          {
            p.deformation.map = make_deformation_map(p.deformation_function, p.dim);
            fold              = map_fold(p.deformation, p.box_lower, p.box_upper, p.dim); // (derivatives)
          }
        catch (const std::exception &e) // (ExpressionError, invalid_argument)
          {
            fail("Mesh/Deformation function", e.what());
          }
        if (!fold.empty())
          fail("Mesh/Deformation function", "the map folds the box: " + fold + " (it must be > 0 everywhere)");
        if (p.rhs == RightHandSide::manufactured)
          fail("Mesh/Deformation", "the manufactured problem is posed on the box and its built-in deformations; "
                                   "with a function map give f with 'Right-hand side = function' (or one)");
        if (exact_mapping(p.deformation) && p.geometry != GeometryMode::stored)
          fail("Multigrid/Geometric factors", "an exact map needs stored geometric factors (on_the_fly assumes "
                                              "multilinear cells); or set Mesh/Mapping = multilinear");
      }
    else if (!p.deformation_function.empty() && prm.where("Mesh/Deformation function") != "default")
      fail("Mesh/Deformation function", std::string("a map is given, but Mesh/Deformation is ") +
                                          to_string(p.deformation.type) + "; set Deformation = function");
    if (p.deformation.mapping == Mapping::exact && p.deformation.type != Deformation::function)
      fail("Mesh/Mapping", "exact needs Mesh/Deformation = function (the map and its derivatives)");
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
    internal::check_problem_and_mesh(prm, p);
    p.level_operator = p.level_operator_in_use();
    return p;
  }
} // namespace tpmg
