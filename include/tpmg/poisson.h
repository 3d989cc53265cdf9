// The whole job of poisson_solver: set up the hierarchy on the chosen backend, solve, measure.
#pragma once

#include <tpmg/solver_parameters.h>

#include <array>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tpmg
{
  /// Thrown when the problem does not fit in the device's memory (bad input: exit code 2).
  class OutOfMemoryError : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  struct LevelTimes
  {
    int     level    = 0;
    index_t dofs     = 0;
    double  smoother = 0, matvec = 0, vector = 0, restriction = 0, prolongation = 0, coarse_solve = 0;
    /// replaying the CUDA graph that records this level and the coarser ones (Backend/CUDA
    /// graph; RunResult::cuda_graph_level), whose parts are then not timed apart
    double graph = 0;
    double total() const { return smoother + matvec + vector + restriction + prolongation + coarse_solve + graph; }
    /// On several ranks: the part of the above spent in the exchanges of the level's vectors
    /// (ghost updates, and the gather to and scatter from rank 0 into the coarser level), and
    /// their number.
    double exchange  = 0;
    long   exchanges = 0;
  };

  /// The inputs that define the problem (recorded in the JSON report).
  struct ProblemSummary
  {
    std::vector<double>      box_lower, box_upper; ///< one value per direction
    std::vector<int>         coarse_cells;
    std::string              rhs;                        ///< manufactured, one, function, ones_vector
    std::string              rhs_function;               ///< f (with rhs = function)
    std::string              boundary_values;            ///< g
    std::string              exact_solution;             ///< u ("" if none)
    std::vector<std::string> boundary_types;             ///< per face: x-, x+, y-, y+ (, z-, z+)
    std::string              boundary_flux;              ///< h on the Neumann and Robin faces
    std::string              robin_coefficient;          ///< alpha on the Robin faces
    std::string              coefficient          = "1"; ///< a of −∇·(a ∇u) + c u = f
    std::string              reaction_coefficient = "0"; ///< c
    std::string              deformation_function;       ///< Mesh/Deformation function (Deformation = function)
    std::string              mapping;                    ///< exact or multilinear cells (deformed meshes)
    std::string              deformation;                ///< none, sine, kershaw
    double                   deformation_amplitude = 0;
    double                   relative_tolerance    = 0;
  };

  struct RunResult
  {
    ProblemSummary problem;
    int            dim = 0, degree = 0, level = 0;
    index_t        dofs = 0;
    std::string    solver, precision, smoother, smoother_kernel, kernel_optimization, level_operator, backend, device;
    std::string    orthogonalization;      ///< GMRES's Gram-Schmidt
    std::string    smoother_configuration; ///< the kernels the vertex-patch smoother runs (resolve_smoother)
    std::string    fitted_patch_kernel;    ///< the fitted patch solves' kernel (empty without them)
    std::string    coarse_solver;
    int            coarsest_level = 0;
    /// the V-cycle, or its coarser levels, were replayed as a CUDA graph (Backend/CUDA graph);
    /// the whole cycle's time is then the breakdown's `vcycle_graph`, not the levels'
    bool cuda_graph = false;
    /// the finest level that graph recorded (the finest: the whole V-cycle; below it, the graph
    /// of that level and the coarser ones replayed inside each cycle, timed as that level's
    /// `graph`), -1 without a graph
    int cuda_graph_level = -1;

    int         ranks                   = 1;   ///< MPI ranks of the run
    std::string process_grid            = "1"; ///< their grid, "2 x 2 x 1"
    int         first_distributed_level = 0;   ///< coarser levels live on rank 0
    /// on several ranks, the level whose values the transfer into rank 0's levels gathers there
    /// (Backend/Gather level): first_distributed_level - 1 where it is split for that transfer,
    /// else first_distributed_level; -1 on one rank
    int         gathered_level = -1;
    index_t     max_rank_dofs  = 0; ///< the most fine-level values one rank stores (ghosts included)
    std::string exchange_path; ///< on several ranks, how ghost values travel: "nccl", "mpi" or "host" (ExchangePath)
    /// on several ranks, the fastest solve's seconds in the reductions over the ranks (host wall
    /// clock, the rank that waited longest: the others' lead on the slowest rank)
    double reduction_wait_s = 0;

    int                 iterations        = 0;
    bool                converged         = false;
    double              relative_residual = 0, average_reduction = 0;
    std::vector<double> history;
    std::string         failure;

    std::optional<double> l2_error, h1_error;
    /// The solution's smallest and largest nodal value and its mean (∫u_h / |Ω|).
    double solution_min = 0, solution_max = 0, solution_mean = 0;
    /// Output/Point values: the points and the solution's values there.
    std::vector<std::array<double, 3>> points;
    std::vector<double>                point_values;

    /// A problem without a Dirichlet face (u is fixed up to a constant, `singular`): Σ_i b_i of
    /// the assembled right-hand side, the data's compatibility defect (∫f + ∮h up to quadrature),
    /// removed from b as its mean; its size relative to √n ‖b‖; and the constant added to the
    /// solution to give it zero mean, or the exact solution's mean where one is given.
    bool   singular               = false;
    double compatibility_defect   = 0;
    double compatibility_relative = 0;
    double solution_shift         = 0;
    /// What the user should know although the run succeeded (incompatible data, say).
    std::vector<std::string> warnings;

    double setup_time_s = 0, solve_time_s = 0;
    double rhs_time_s = 0; ///< of setup_time_s: the fine-level right-hand side (and lifting)
    /// setup_time_s by part (name -> seconds; the slowest rank's each): hierarchy (meshes,
    /// partition, checks), level_operators, smoothers, vectors_and_transfers, coarse_solver,
    /// outer_operator_and_workspace, right_hand_side
    std::vector<std::pair<std::string, double>> setup_breakdown;
    /// Seconds to make the device's context before the setup (the CUDA driver's; 0 on the CPU).
    double device_init_s = 0;
    /// The whole process's wall seconds where a program sets it (poisson_solver), else 0.
    double process_time_s = 0;
    /// Seconds after the last solve for what the report says of u_h: the boundary values added,
    /// the errors, its range, mean and point values (the slowest rank's).
    double              postprocess_time_s = 0;
    std::vector<double> solve_times; ///< every repetition
    std::size_t         memory_bytes = 0, memory_estimate_bytes = 0;
    /// Runtime breakdown (docs/interface.md) of the fastest repetition: component name -> seconds
    std::vector<std::pair<std::string, double>> breakdown;
    std::vector<LevelTimes>                     levels;

    double dofs_per_second() const { return solve_time_s > 0 ? double(dofs) / solve_time_s : 0.0; }
  };

  class Communicator;
  class BoxLayout;
  template <typename Number>
  class Vector;
  struct ProblemFunctions;

  /// One setup, many solves: the hierarchy, the multigrid preconditioner (level operators,
  /// smoother data, coarse solver), the outer operator and the Krylov workspace are made once
  /// by the constructor, which also assembles the parameters' problem; each solve() then costs
  /// a solve alone (and the right-hand side where new data are given). On several ranks every
  /// rank constructs it and calls each function with the same arguments.
  class PoissonSolver
  {
  public:
    /// Sets up for `params` on the ranks of `comm` (Communicator::self(): one rank); progress
    /// goes to `log` (kept: it must outlive the solver) on rank 0 when params.verbose. Throws
    /// as run_poisson does.
    PoissonSolver(const SolverParameters &params, std::ostream &log, const Communicator &comm);
    PoissonSolver(const SolverParameters &params, std::ostream &log);
    ~PoissonSolver();
    PoissonSolver(PoissonSolver &&) noexcept;
    PoissonSolver &operator=(PoissonSolver &&) noexcept;

    /// What the setup made and measured (no solve yet: iterations 0).
    const RunResult &setup_result() const;
    /// Solves the parameters' problem (params.repetitions times; the fastest one's times).
    RunResult solve();
    /// Solves with new data: f, the Dirichlet values g, the flux h (and an exact solution for
    /// the errors) of `problem`, assembled on the fine level (its time: rhs_time_s). The Robin
    /// coefficient and the coefficients a and c are the ones set up (problem.robin_coefficient,
    /// problem.coefficient and problem.reaction are not read).
    RunResult solve(const ProblemFunctions &problem);
    /// Solves A u = b for a right-hand side this rank's part of which the caller assembled on
    /// layout() (as assemble_rhs makes it: zero at the Dirichlet nodes), on either backend; zero
    /// Dirichlet values. Not with Solver/Type = fmg, which needs the data as functions.
    RunResult solve(const Vector<double> &b);

    /// Replaces the coefficient a of −∇·(a ∇u) (an expression, as Problem/Coefficient; "1": the
    /// Laplacian) and makes again what depends on it: every level's operator, the smoothers'
    /// data, the coarse solver, the outer operator and the parameters' right-hand side; the
    /// hierarchy and its distribution stay. The next solve then equals a fresh solver's with
    /// that coefficient. The reaction coefficient stays. Throws std::invalid_argument
    /// (coefficient_problem) or ExpressionError.
    void update_coefficient(const std::string &coefficient);
    /// The same for a and the reaction coefficient c of −∇·(a ∇u) + c u together (as
    /// Problem/Reaction coefficient; "0": none), e.g. c = 1/Δt for a new time step.
    void update_coefficients(const std::string &coefficient, const std::string &reaction);

    /// The last solve's solution u_h on this rank's part of the finest level (every node, the
    /// boundary values included), on the solver's backend; update_coefficients keeps it (the
    /// previous step of a time loop).
    const Vector<double> &solution() const;
    /// The finest level's layout on this rank (its part, ghost layers, owned nodes).
    const std::shared_ptr<const BoxLayout> &layout() const;
    /// u_h of the last solve at physical points (every rank gets every value).
    std::vector<double> values_at(const std::vector<std::array<double, 3>> &points) const;

    class Impl;

  private:
    std::unique_ptr<Impl> impl_;
  };

  /// The interface of PoissonSolver's implementation for one dimension, degree and precision.
  class PoissonSolver::Impl
  {
  public:
    virtual ~Impl()                                                 = default;
    virtual const RunResult &setup_result() const                   = 0;
    virtual RunResult        solve()                                = 0;
    virtual RunResult        solve(const ProblemFunctions &problem) = 0;
    virtual RunResult        solve(const Vector<double> &b)         = 0;
    /// null: the one set up stays
    virtual void                                    update_coefficients(const std::string *a, const std::string *c) = 0;
    virtual const Vector<double>                   &solution() const                                                = 0;
    virtual const std::shared_ptr<const BoxLayout> &layout() const                                                  = 0;
    virtual std::vector<double> values_at(const std::vector<std::array<double, 3>> &points) const                   = 0;
  };

  /// Runs the solver (a PoissonSolver's setup and one solve); progress and per-iteration lines
  /// go to `log` when verbose.
  RunResult run_poisson(const SolverParameters &params, std::ostream &log);
  /// Runs the solver on the ranks of `comm` (every rank calls it; the levels are split over
  /// them, PartitionError where they cannot be); progress goes to `log` on rank 0. The result is
  /// the same on every rank.
  RunResult run_poisson(const SolverParameters &params, std::ostream &log, const Communicator &comm);

  /// Backend that `params.device` selects on this machine (throws ParameterError if the
  /// GPU was asked for and none is usable).
  Backend select_backend(const SolverParameters &params);
} // namespace tpmg
