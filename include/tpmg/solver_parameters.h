// The parameters of poisson_solver (DESIGN.md §9), their declaration in a ParameterHandler
// and their validated, typed form.
#pragma once

#include <tpmg/geometry.h>
#include <tpmg/multigrid.h>
#include <tpmg/parameters.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/problem.h>

#include <string>

namespace tpmg
{
  enum class SolverType
  {
    gmres,
    cg,
    fmg,
    vcycle ///< plain V-cycle iteration from x = 0
  };
  enum class Precision
  {
    single,
    dual ///< "double"
  };
  enum class DeviceChoice
  {
    automatic,
    cpu,
    cuda
  };
  /// `paper_code`: the conventions of the authors' public code (DESIGN.md §7): b = vector of
  /// ones, restricted to the coarser levels, colors odd-first.
  enum class Conventions
  {
    standard,
    paper_code
  };

  struct SolverParameters
  {
    int    dim = 3, degree = 4;
    int    refinement_level = 3, coarse_cells = 1;
    double box_lower = 0.0, box_upper = 1.0;
    DeformationSettings deformation;

    RightHandSide rhs = RightHandSide::manufactured;

    SolverType solver               = SolverType::gmres;
    double     relative_tolerance   = 1e-9;
    int        max_iterations       = 100;
    int        gmres_restart        = 30;
    bool       left_preconditioning = false;

    Precision          precision = Precision::single;
    SmootherType       smoother  = SmootherType::vertex_patch;
    SmootherKernel     kernel    = SmootherKernel::fused;
    KernelOptimization optimization = KernelOptimization::basic;
    LevelOperatorType  level_operator = LevelOperatorType::cartesian;
    GeometryMode       geometry       = GeometryMode::stored; ///< bp3/bp5: geometric factors
    LocalSolver        local_solver   = LocalSolver::fast_diagonalization;
    int                patches_per_block = 0; ///< 0: automatic
    ThreadStructure    thread_structure  = ThreadStructure::automatic; ///< basic patch kernels
    Conventions        conventions    = Conventions::standard;
    bool               symmetric_vcycle = false; ///< reverse colors in post-smoothing
    int                chebyshev_degree = 3;

    DeviceChoice device      = DeviceChoice::automatic;
    int          repetitions = 1;

    std::string json_file, csv_file, vtu_file;
    bool        verbose = true;

    /// where each value came from, for error messages naming the file and line
    std::string source;
  };

  /// Declares every parameter with its default, pattern and documentation.
  void declare_parameters(ParameterHandler &prm);
  /// Reads and cross-checks the parameters; errors are ParameterError "FILE:LINE: ...".
  SolverParameters read_parameters(const ParameterHandler &prm);

  const char *to_string(SolverType t);
  const char *to_string(Precision p);
  const char *to_string(SmootherKernel k);
  const char *to_string(KernelOptimization o);
  const char *to_string(LevelOperatorType o);
  const char *to_string(SmootherType s);
} // namespace tpmg
