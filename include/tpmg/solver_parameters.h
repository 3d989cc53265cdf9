// The parameters of poisson_solver (docs/interface.md), their declaration in a ParameterHandler
// and their validated, typed form.
#pragma once

#include <tpmg/boundary_conditions.h>
#include <tpmg/geometry.h>
#include <tpmg/multigrid.h>
#include <tpmg/parameters.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/problem.h>
#include <tpmg/smoother_configuration.h>

#include <array>
#include <string>
#include <vector>

namespace tpmg
{
  struct SolverParameters
  {
    int                   dim = 3, degree = 4;
    int                   refinement_level = 3;
    std::array<int, 3>    coarse_cells{{1, 1, 1}};    ///< N0 per direction
    std::array<double, 3> box_lower{{0.0, 0.0, 0.0}}; ///< the box [lower, upper] per direction
    std::array<double, 3> box_upper{{1.0, 1.0, 1.0}};
    DeformationSettings   deformation;
    /// Mesh/Deformation function: "X; Y (; Z)" for Deformation = function (read_parameters and
    /// the solver parse it into deformation.map where that is empty)
    std::string deformation_function;

    RightHandSide rhs = RightHandSide::manufactured;
    /// Problem/Right-hand side function, Boundary values, Exact solution: expressions in x, y
    /// (, z) (expression.h); the exact solution may be empty (none).
    std::string rhs_function = "0", boundary_values = "0", exact_solution;
    /// Problem/Boundary types; Boundary flux h and Robin coefficient alpha (expressions) on the
    /// Neumann and Robin faces: du/dn + alpha u = h.
    BoundaryConditions boundary;
    std::string        boundary_flux = "0", robin_coefficient = "0";
    /// Problem/Coefficient: a of −∇·(a ∇u) = f (expression; "1": the Laplacian)
    std::string coefficient = "1";
    /// Problem/Reaction coefficient: c of −∇·(a ∇u) + c u = f (an expression, ≥ 0; "0": none)
    std::string reaction = "0";

    SolverType          solver             = SolverType::gmres;
    double              relative_tolerance = 1e-9;
    int                 max_iterations     = 100;
    int                 gmres_restart      = 30;
    PreconditioningSide preconditioning    = PreconditioningSide::right;
    Orthogonalization   orthogonalization  = Orthogonalization::modified; ///< of GMRES

    Precision             precision = Precision::fp32;
    SmootherType          smoother  = SmootherType::vertex_patch;
    PatchSmootherSettings patch; ///< the vertex-patch smoother's kernels
    LevelOperatorType     level_operator   = LevelOperatorType::cartesian;
    GeometryMode          geometry         = GeometryMode::stored; ///< bp3/bp5: geometric factors
    Conventions           conventions      = Conventions::standard;
    PostSmoothingOrder    post_smoothing   = PostSmoothingOrder::automatic;
    int                   chebyshev_degree = 0; ///< 0: automatic (set_chebyshev_polynomial)
    double                chebyshev_range  = 0; ///< λ_max / the lower end of the interval; 0: automatic
    PatchGeometry         patch_geometry   = PatchGeometry::automatic;
    FittedSmoothing       fitted_smoothing = FittedSmoothing::chebyshev_additive;
    FittedPatchKernel     fitted_kernel    = FittedPatchKernel::automatic;
    FittedPatchLaunch     fitted_launch    = FittedPatchLaunch::automatic;
    CoarseLevel           coarse_level     = CoarseLevel::automatic; ///< Multigrid/Coarse level

    /// The box and its coarse mesh.
    Domain domain() const
    {
      Domain d;
      d.dim             = dim;
      d.lower           = box_lower;
      d.upper           = box_upper;
      d.coarse_cells    = coarse_cells;
      d.dirichlet_faces = all_faces & ~boundary.natural_faces(dim);
      d.robin_faces     = boundary.faces_of(BoundaryType::robin, dim);
      d.periodic        = boundary.periodic_directions(dim);
      return d;
    }

    /// The right-hand side, boundary values and exact solution as functions (the expressions
    /// parsed; read_parameters has checked them). f is 1 for Right-hand side = one; not for the
    /// manufactured problem, which has its own (uses_problem_functions() is false there).
    ProblemFunctions problem_functions() const
    {
      ProblemFunctions f;
      f.rhs               = expression("rhs_function", rhs == RightHandSide::one ? "1" : rhs_function);
      f.boundary_values   = expression("boundary_values", boundary_values);
      f.boundary_flux     = expression("boundary_flux", boundary_flux);
      f.robin_coefficient = expression("robin_coefficient", robin_coefficient);
      if (!exact_solution.empty())
        f.exact_solution = expression("exact_solution", exact_solution);
      (void)expression("coefficient", coefficient); // (names the field where it does not parse)
      (void)expression("reaction", reaction);
      f.coefficient = make_coefficient(coefficient, dim);
      f.reaction    = make_reaction(reaction, dim);
      return f;
    }
    /// One of the expression fields parsed; an ExpressionError names the field.
    Expression expression(const std::string &field, const std::string &text) const
    {
      try
        {
          return Expression(text, dim);
        }
      catch (const ExpressionError &e)
        {
          throw ExpressionError("SolverParameters::" + field + " = '" + text + "': " + e.what());
        }
    }
    /// Whether the right-hand side comes from problem_functions() (a function, or f = 1 with
    /// non-zero boundary values or Neumann faces) rather than the built-in separable integrals.
    bool uses_problem_functions() const
    {
      return conventions == Conventions::standard &&
             (rhs == RightHandSide::function ||
              (rhs == RightHandSide::one &&
               (!expression("boundary_values", boundary_values).is_zero() || boundary.natural_faces(dim) != 0)));
    }

    /// The level operator that runs: with a coefficient or a reaction term that varies in space
    /// the cartesian one hands over to bp3 (the same Gauss k+2 points; its Kronecker form has
    /// one constant per direction, so it carries constant a and c itself). read_parameters and
    /// the solver apply it.
    LevelOperatorType level_operator_in_use() const
    {
      return level_operator == LevelOperatorType::cartesian && coefficients().varying() ? LevelOperatorType::bp3
                                                                                        : level_operator;
    }
    /// a and c as the operators take them (none where a = 1, c = 0).
    Coefficients coefficients() const
    {
      return Coefficients(make_coefficient(coefficient, dim), make_reaction(reaction, dim));
    }

    /// Whether post-smoothing reverses the colors (the symmetric V-cycle that CG needs).
    bool symmetric_vcycle() const
    {
      return post_smoothing == PostSmoothingOrder::reverse ||
             (post_smoothing == PostSmoothingOrder::automatic && solver == SolverType::cg);
    }

    DeviceChoice device   = DeviceChoice::automatic;
    ExchangePath exchange = ExchangePath::automatic;
    /// Backend/NCCL channels (0: NCCL's default; Communicator::with_exchange)
    int nccl_channels = 0;
    /// Backend/Minimum DoFs per rank (0: automatic_min_rank_dofs of the backend)
    index_t min_rank_dofs = 0;
    /// Backend/Overlap exchanges (MultigridSettings::overlap)
    ExchangeOverlap overlap = ExchangeOverlap::automatic;
    /// Backend/Gather level (HierarchyLayout)
    GatherLevel gather_level = GatherLevel::coarse;
    /// Backend/CUDA graph (MultigridSettings::cuda_graph, use_cuda_graph)
    CudaGraph cuda_graph = CudaGraph::automatic;
    /// Backend/CUDA graph DoFs per rank (MultigridSettings::cuda_graph_max_rank_dofs with `auto`)
    index_t cuda_graph_rank_dofs = index_t(cuda_graph_max_dofs);
    int     repetitions          = 1;

    std::string json_file, csv_file, vtu_file;
    VtuFormat   vtu_format = VtuFormat::binary;
    /// Output/VTU stride: the VTU file holds every stride-th node along each direction
    int vtu_stride = 1;
    /// Output/Point values: where u is printed and recorded (physical coordinates)
    std::vector<std::array<double, 3>> point_values;
    bool                               verbose = true;

    /// where each value came from, for error messages naming the file and line
    std::string source;
  };

  /// What keeps the solver from taking p.coefficient (Problem/Coefficient): a value ≤ 0 or not
  /// finite at a grid of 9 points per direction of the box, or, with a coefficient, the
  /// manufactured right-hand side, the paper_code conventions, a face that is not Dirichlet or
  /// factors computed on the fly; "" when nothing does. Throws ExpressionError where it does not
  /// parse.
  std::string coefficient_problem(const SolverParameters &p);
  /// The same for p.reaction (Problem/Reaction coefficient), which must be ≥ 0 and finite.
  std::string reaction_problem(const SolverParameters &p);

  /// Declares every parameter with its default, pattern and documentation.
  void declare_parameters(ParameterHandler &prm);
  /// Reads and cross-checks the parameters; errors are ParameterError "FILE:LINE: ...".
  SolverParameters read_parameters(const ParameterHandler &prm);
} // namespace tpmg
