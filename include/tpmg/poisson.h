// The whole job of poisson_solver: set up the hierarchy on the chosen backend, solve, measure.
#pragma once

#include <tpmg/solver_parameters.h>

#include <array>
#include <iosfwd>
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
    double  total() const { return smoother + matvec + vector + restriction + prolongation + coarse_solve; }
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
    std::string              rhs;               ///< manufactured, one, function, ones_vector
    std::string              rhs_function;      ///< f (with rhs = function)
    std::string              boundary_values;   ///< g
    std::string              exact_solution;    ///< u ("" if none)
    std::vector<std::string> boundary_types;    ///< per face: x-, x+, y-, y+ (, z-, z+)
    std::string              boundary_flux;     ///< h on the Neumann and Robin faces
    std::string              robin_coefficient; ///< alpha on the Robin faces
    std::string              deformation;       ///< none, sine, kershaw
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
    std::string    coarse_solver;
    int            coarsest_level = 0;

    int         ranks                   = 1;   ///< MPI ranks of the run
    std::string process_grid            = "1"; ///< their grid, "2 x 2 x 1"
    int         first_distributed_level = 0;   ///< coarser levels live on rank 0
    index_t     max_rank_dofs           = 0;   ///< the most fine-level values one rank stores (ghosts included)
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

    double              setup_time_s = 0, solve_time_s = 0;
    double              rhs_time_s = 0; ///< of setup_time_s: the fine-level right-hand side (and lifting)
    std::vector<double> solve_times;    ///< every repetition
    std::size_t         memory_bytes = 0, memory_estimate_bytes = 0;
    /// Runtime breakdown (docs/interface.md) of the fastest repetition: component name -> seconds
    std::vector<std::pair<std::string, double>> breakdown;
    std::vector<LevelTimes>                     levels;

    double dofs_per_second() const { return solve_time_s > 0 ? double(dofs) / solve_time_s : 0.0; }
  };

  class Communicator;
  /// Runs the solver; progress and per-iteration lines go to `log` when verbose.
  RunResult run_poisson(const SolverParameters &params, std::ostream &log);
  /// Runs the solver on the ranks of `comm` (every rank calls it; the levels are split over
  /// them, PartitionError where they cannot be); progress goes to `log` on rank 0. The result is
  /// the same on every rank.
  RunResult run_poisson(const SolverParameters &params, std::ostream &log, const Communicator &comm);

  /// Backend that `params.device` selects on this machine (throws ParameterError if the
  /// GPU was asked for and none is usable).
  Backend select_backend(const SolverParameters &params);
} // namespace tpmg
