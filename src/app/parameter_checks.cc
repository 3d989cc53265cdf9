// The checks of a run's parameters beyond their patterns: the faces' types and the data given
// for them, the expressions sampled where they are used, the mesh and its deformation, the
// operator coefficients (docs/interface.md, "Errors"). Each failure is a ParameterError naming the
// parameter's file and line.
#include <src/app/parameter_checks.h>

#include <tpmg/geometry.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/solver_parameters.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace tpmg
{
  namespace
  {
    /// A point of the box where the problem's functions are sampled, moved by a function map
    /// (the built-in deformations keep the box, their points stay).
    void to_physical(const SolverParameters &p, double (&x)[3])
    {
      if (p.deformation.type != Deformation::function || int(p.deformation.map.size()) != p.dim)
        return;
      double y[3] = {0, 0, 0};
      for (int d = 0; d < p.dim; ++d)
        y[d] = p.deformation.map[std::size_t(d)](x[0], x[1], x[2]);
      for (int d = 0; d < 3; ++d)
        x[d] = y[d];
    }

    /// Whether the vertex-patch smoother would solve fitted patch problems (MultigridSettings'
    /// rule).
    bool fitted_patches(const SolverParameters &p) { return internal::multigrid_settings(p).fitted_patches(); }

    /// The faces' types agree with each other, with the data given for them and with the rest of
    /// the problem; alpha >= 0 where sampled on the Robin faces.
    void check_boundary(const ParameterHandler &prm, const SolverParameters &p)
    {
      auto fail = [&](const std::string &path, const std::string &what) {
        throw ParameterError(prm.where(path) + ": " + what);
      };
      const BoundaryConditions &bc    = p.boundary;
      const std::string         types = "Problem/Boundary types";
      for (int d = 0; d < p.dim; ++d)
        {
          const BoundaryType lo = bc.type[std::size_t(2 * d)], hi = bc.type[std::size_t(2 * d + 1)];
          if ((lo == BoundaryType::periodic) != (hi == BoundaryType::periodic))
            fail(types, "face " + BoundaryConditions::face_name(lo == BoundaryType::periodic ? 2 * d : 2 * d + 1) +
                          " is periodic but the opposite face " +
                          BoundaryConditions::face_name(lo == BoundaryType::periodic ? 2 * d + 1 : 2 * d) + " is " +
                          to_string(lo == BoundaryType::periodic ? hi : lo) + "; periodic faces come in pairs");
        }
      const bool natural = bc.natural_faces(p.dim) != 0;
      const bool robin   = bc.any(BoundaryType::robin, p.dim);
      if (!Expression(p.boundary_flux, p.dim).is_zero() && !natural)
        fail("Problem/Boundary flux", "a boundary flux is given, but no face is neumann or robin (Boundary types)");
      if (!Expression(p.boundary_values, p.dim).is_zero() && !bc.any(BoundaryType::dirichlet, p.dim))
        fail("Problem/Boundary values", "boundary values are given, but no face is dirichlet (Boundary types)");
      if (!Expression(p.robin_coefficient, p.dim).is_zero() && !robin)
        fail("Problem/Robin coefficient", "a Robin coefficient is given, but no face is robin (Boundary types)");
      if (robin) // alpha >= 0 on a grid of points of each Robin face
        {
          const Expression alpha(p.robin_coefficient, p.dim);
          constexpr int    n        = 9;
          double           positive = 0; // the largest sampled alpha
          for (int f = 0; f < 2 * p.dim; ++f)
            if (bc.type[std::size_t(f)] == BoundaryType::robin)
              for (int i = 0; i < (p.dim == 3 ? n * n : n); ++i)
                {
                  double x[3] = {0, 0, 0};
                  for (int d = 0, t = 0; d < p.dim; ++d)
                    if (d == f / 2)
                      x[d] = f % 2 ? p.box_upper[d] : p.box_lower[d];
                    else
                      {
                        const int j = t++ == 0 ? i % n : i / n;
                        x[d]        = p.box_lower[d] + (p.box_upper[d] - p.box_lower[d]) * j / (n - 1);
                      }
                  const double a = alpha(x[0], x[1], x[2]);
                  if (!(a >= 0) || !std::isfinite(a))
                    fail("Problem/Robin coefficient",
                         "alpha = " + std::to_string(a) + " at (" + std::to_string(x[0]) + ", " + std::to_string(x[1]) +
                           (p.dim == 3 ? ", " + std::to_string(x[2]) : std::string()) + ") on face " +
                           BoundaryConditions::face_name(f) + "; the Robin coefficient must be >= 0");
                  positive = std::max(positive, a);
                }
          // without a Dirichlet face only alpha > 0 somewhere (or a reaction term) fixes the constant
          if (!bc.any(BoundaryType::dirichlet, p.dim) && !(positive > 0) && !make_reaction(p.reaction, p.dim))
            fail("Problem/Robin coefficient", "alpha is 0 wherever it was sampled on the Robin faces and no face is "
                                              "dirichlet: u would be fixed only up to a constant; make those faces "
                                              "neumann (or give alpha > 0)");
        }
      if (bc.all_dirichlet(p.dim))
        return;
      if (p.rhs == RightHandSide::manufactured)
        fail(types, "the manufactured problem has Dirichlet faces only; give f, g, h (and alpha) with 'Right-hand "
                    "side = function' or one");
      if (p.conventions == Conventions::paper_code)
        fail(types, "the paper_code conventions solve the authors' all-Dirichlet problem; use Conventions = standard");
      // what this version implements: Neumann and Robin faces with every level operator, on boxes
      // and deformed meshes, and the smoothers that have patches (or rows) on those faces
      // (docs/method.md, "Boundary conditions")
      if (const unsigned periodic = bc.periodic_directions(p.dim))
        {
          // periodic directions: the parts' ghost layers beyond the faces copy cells of the
          // other end (docs/method.md, "Periodic faces")
          if (p.deformation.type != Deformation::none)
            fail("Mesh/Deformation", "periodic faces need the box itself (Mesh/Deformation = none): a deformed "
                                     "mesh would have to match its own image across the faces");
          for (int d = 0; d < p.dim; ++d)
            if ((periodic >> d & 1u) && p.coarse_cells[std::size_t(d)] < 2)
              fail("Mesh/Coarse cells", "the periodic direction " + std::string(1, char('x' + d)) + " has " +
                                          std::to_string(p.coarse_cells[std::size_t(d)]) +
                                          " coarse cell; a periodic direction needs at least 2 (the ghost layers "
                                          "beyond its faces copy two cells of the other end)");
          if (p.cuda_graph == CudaGraph::always)
            fail("Backend/CUDA graph", "a periodic box exchanges the copies beyond its faces inside the V-cycle, "
                                       "which the graph does not record; use auto or never");
        }
    }

    void check_samples(const ParameterHandler &prm, const SolverParameters &p);
    void check_coefficient(const ParameterHandler &prm, const SolverParameters &p);

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
                         {"Problem/Boundary flux", p.boundary_flux},
                         {"Problem/Robin coefficient", p.robin_coefficient},
                         {"Problem/Coefficient", p.coefficient},
                         {"Problem/Reaction coefficient", p.reaction},
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
      check_boundary(prm, p);
      check_samples(prm, p);
      check_coefficient(prm, p);
    }

    /// The problem's expressions give finite values where they are used, sampled at 9 points per
    /// direction of the box (f and the exact solution in the closed box, g on the Dirichlet
    /// faces, h on the Neumann and Robin faces; alpha: check_boundary), and the exact solution
    /// equals g on the Dirichlet faces there (to 1e-9 relative): a solve would otherwise end in
    /// NaN, or report the error against a function that is not the problem's solution.
    void check_samples(const ParameterHandler &prm, const SolverParameters &p)
    {
      constexpr int n     = 9;
      auto          where = [&](const double(&x)[3]) {
        return "(" + std::to_string(x[0]) + ", " + std::to_string(x[1]) +
               (p.dim == 3 ? ", " + std::to_string(x[2]) : std::string()) + ")";
      };
      // the grid points of the closed box (face < 0) or of one face of it
      auto each_point = [&](int face, auto &&fn) {
        const int m = face < 0 ? p.dim : p.dim - 1, count = m == 3 ? n * n * n : m == 2 ? n * n : n;
        for (int i = 0; i < count; ++i)
          {
            double x[3] = {0, 0, 0};
            for (int d = 0, r = i; d < p.dim; ++d)
              if (d == face / 2 && face >= 0)
                x[d] = face % 2 ? p.box_upper[std::size_t(d)] : p.box_lower[std::size_t(d)];
              else
                {
                  const int j = r % n;
                  r /= n;
                  x[d] = p.box_lower[std::size_t(d)] +
                         (p.box_upper[std::size_t(d)] - p.box_lower[std::size_t(d)]) * j / (n - 1);
                }
            to_physical(p, x);
            fn(x);
          }
      };
      auto finite = [&](const char *path, const std::string &text, int face) {
        const Expression e(text, p.dim);
        each_point(face, [&](const double(&x)[3]) {
          const double v = e(x[0], x[1], x[2]);
          if (!std::isfinite(v))
            throw ParameterError(prm.where(path) + ": " + std::string(path).substr(8) + " '" + printable(text) +
                                 "' is " + std::to_string(v) + " at " + where(x) +
                                 (face >= 0 ? " on face " + BoundaryConditions::face_name(face) : std::string()) +
                                 "; it must be finite wherever it is used");
        });
      };
      if (p.rhs == RightHandSide::function)
        finite("Problem/Right-hand side function", p.rhs_function, -1);
      if (!p.exact_solution.empty())
        finite("Problem/Exact solution", p.exact_solution, -1);
      for (int f = 0; f < 2 * p.dim; ++f)
        {
          const BoundaryType t = p.boundary.type[std::size_t(f)];
          if (t == BoundaryType::dirichlet)
            finite("Problem/Boundary values", p.boundary_values, f);
          if (t == BoundaryType::neumann || t == BoundaryType::robin)
            finite("Problem/Boundary flux", p.boundary_flux, f);
        }
      if (p.exact_solution.empty() || p.rhs == RightHandSide::manufactured)
        return;
      const Expression u(p.exact_solution, p.dim), g(p.boundary_values, p.dim);
      for (int f = 0; f < 2 * p.dim; ++f)
        if (p.boundary.type[std::size_t(f)] == BoundaryType::dirichlet)
          each_point(f, [&](const double(&x)[3]) {
            const double ux = u(x[0], x[1], x[2]), gx = g(x[0], x[1], x[2]);
            if (std::fabs(ux - gx) > 1e-9 * (1 + std::fabs(ux)))
              throw ParameterError(prm.where("Problem/Exact solution") + ": the exact solution is " +
                                   std::to_string(ux) + " at " + where(x) + " on the Dirichlet face " +
                                   BoundaryConditions::face_name(f) + ", where the boundary values give " +
                                   std::to_string(gx) + "; give its values there as Boundary values");
          });
    }

    /// The coefficients a > 0 and c >= 0 of −∇·(a ∇u) + c u, finite at 9 points per direction of
    /// the closed box, and what this version solves with them: Dirichlet faces, f given (the
    /// manufactured f is −Δu's), stored factors of the bp3/bp5 operators.
    void check_coefficient(const ParameterHandler &prm, const SolverParameters &p)
    {
      if (const std::string problem = coefficient_problem(p); !problem.empty())
        throw ParameterError(prm.where("Problem/Coefficient") + ": " + problem);
      if (const std::string problem = reaction_problem(p); !problem.empty())
        throw ParameterError(prm.where("Problem/Reaction coefficient") + ": " + problem);
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
      const MultigridSettings           mg     = internal::multigrid_settings(p);
      const CartesianLevel             &coarse = levels[coarsest_level(levels, mg)];
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
      if (p.deformation.type == Deformation::function && mesh_folds(coarse, p.deformation))
        fail("Mesh/Deformation function", "the map folds a cell of the coarsest level (" + coarse.describe() +
                                            "): a non-positive Jacobian determinant at a quadrature point or vertex");
      if (mesh_folds(coarse, p.deformation))
        {
          const double a = largest_unfolded_amplitude(coarse, p.deformation);
          fail("Mesh/Deformation amplitude", "amplitude " + std::to_string(p.deformation.amplitude) +
                                               " folds a cell of the coarsest level (" + coarse.describe() +
                                               "); this coarse mesh allows amplitudes up to " + std::to_string(a));
        }
    }
  } // namespace

  namespace internal
  {
    void check_problem_and_mesh(const ParameterHandler &prm, const SolverParameters &p)
    {
      check_problem(prm, p);
      check_mesh(prm, p);
    }

    MultigridSettings multigrid_settings(const SolverParameters &p)
    {
      MultigridSettings mg;
      mg.smoother          = p.smoother;
      mg.patch             = p.patch;
      mg.color_order       = p.conventions == Conventions::paper_code ? ColorOrder::odd_first : ColorOrder::standard;
      mg.level_operator    = p.level_operator_in_use();
      mg.deformation       = p.deformation;
      mg.robin_coefficient = p.robin_coefficient;
      mg.coefficients      = p.coefficients();
      mg.geometry          = p.geometry;
      mg.patch_geometry    = p.patch_geometry;
      mg.fitted_smoothing  = p.fitted_smoothing;
      mg.fitted_kernel     = p.fitted_kernel;
      mg.fitted_launch     = p.fitted_launch;
      set_chebyshev_polynomial(mg, p.chebyshev_degree, p.chebyshev_range);
      mg.symmetric = p.symmetric_vcycle();
      mg.overlap   = p.overlap;
      mg.fast_diagonalization_extent =
        p.coarse_level == CoarseLevel::automatic ? index_t(fast_diagonalization_coarse_extent) : 0;
      return mg;
    }
  } // namespace internal

  namespace
  {
    /// What keeps the solver from taking the operator coefficient `text` (named `name` in the
    /// messages): a sample at 9 points per direction of the closed box (the deformations keep the
    /// box) that is not finite or not > 0 (>= 0 where `zero_allowed`); then, where `given`, the
    /// problems this version solves only without it.
    std::string operator_coefficient_problem(const SolverParameters &p, const std::string &text,
                                             const std::string &name, bool zero_allowed, bool given)
    {
      const Expression a(text, p.dim);
      constexpr int    n     = 9;
      const int        count = p.dim == 3 ? n * n * n : n * n;
      for (int i = 0; i < count; ++i)
        {
          double x[3] = {0, 0, 0};
          for (int d = 0, r = i; d < p.dim; ++d, r /= n)
            x[d] = p.box_lower[std::size_t(d)] +
                   (p.box_upper[std::size_t(d)] - p.box_lower[std::size_t(d)]) * (r % n) / (n - 1);
          to_physical(p, x);
          const double v = a(x[0], x[1], x[2]);
          if (!(zero_allowed ? v >= 0 : v > 0) || !std::isfinite(v))
            return "the " + name + " '" + printable(text) + "' is " + std::to_string(v) + " at (" +
                   std::to_string(x[0]) + ", " + std::to_string(x[1]) +
                   (p.dim == 3 ? ", " + std::to_string(x[2]) : std::string()) + "); it must be finite and " +
                   (zero_allowed ? ">= 0" : "> 0") + " everywhere in the box";
        }
      if (!given)
        return "";
      if (p.rhs == RightHandSide::manufactured)
        return "the manufactured problem is -Laplace(u) = f; with a " + name +
               " give f with 'Right-hand side = function' (or one)";
      if (p.conventions == Conventions::paper_code)
        return "the paper_code conventions solve the authors' problem (-Laplace(u) = f); use Conventions = standard";
      if (p.geometry != GeometryMode::stored && p.level_operator_in_use() != LevelOperatorType::cartesian)
        return "a " + name +
               " needs Multigrid/Geometric factors = stored (its values at the quadrature points "
               "beside their factors)";
      return "";
    }
  } // namespace

  std::string coefficient_problem(const SolverParameters &p)
  {
    return operator_coefficient_problem(p, p.coefficient, "coefficient", false,
                                        make_coefficient(p.coefficient, p.dim).has_value());
  }

  std::string reaction_problem(const SolverParameters &p)
  {
    const bool given = make_reaction(p.reaction, p.dim).has_value();
    if (std::string problem = operator_coefficient_problem(p, p.reaction, "reaction coefficient", true, given);
        !problem.empty() || !given)
      return problem;
    if (p.smoother == SmootherType::vertex_patch && !fitted_patches(p) &&
        (p.patch.optimization == KernelOptimization::tensor_core ||
         p.patch.optimization == KernelOptimization::conflict_free))
      return "the " + std::string(to_string(p.patch.optimization)) +
             " smoother kernels have no reaction term; choose another Multigrid/Kernel optimization (or "
             "Multigrid/Patch geometry = fitted)";
    return "";
  }
} // namespace tpmg
