# The library's compile-time matrix: which (dimension, degree, precision, variant) combinations
# exist. Each template *.inst.in is expanded over its axes into the build folder
# (cmake/tpmg_instantiate.cmake); the degree limits reach the C++ code as tpmg/degrees.h.
#
#   add a degree:            raise a limit below
#   add a kernel variant:    add its value to the template's axis (or a line to the template)
#   add a component:         write its .inst.in and add a line here

# Degrees of the level operators, the grid data and the error norms, in 2D and 3D.
set(TPMG_MAX_DEGREE 10)
# Degrees of the multigrid solver: in 3D the range of the paper's experiments, for which every
# smoother kernel is tuned and tested (at k = 8 a patch has 17^3 nodes).
set(TPMG_MAX_SOLVER_DEGREE_2D 10)
set(TPMG_MAX_SOLVER_DEGREE_3D 8)

set(TPMG_GENERATED_HOST_SOURCES "")
set(TPMG_GENERATED_DEVICE_SOURCES "")
set(dims DIM 2 3)
set(numbers NUMBER float double)

# host code
tpmg_instantiate(operators/laplace_operator.inst.in DEGREES operator AXES ${dims} ${numbers})
tpmg_instantiate(operators/bp_operator.inst.in DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(operators/bp_diagonal.inst.in DEGREES solver AXES ${dims})
tpmg_instantiate(multigrid/multigrid.inst.in DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(smoothers/patch_smoother.inst.in DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(smoothers/fitted_patch_solver.inst.in DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(discretization/problem_errors.inst.in DEGREES operator AXES ${dims})
tpmg_instantiate(discretization/problem_functions.inst.in DEGREES solver AXES ${dims})
tpmg_instantiate(app/poisson.inst.in DEGREES solver AXES ${dims} ${numbers})

# device code (CUDA builds)
tpmg_instantiate(operators/laplace_kernels.inst.in DEVICE DEGREES operator AXES ${dims} ${numbers})
tpmg_instantiate(operators/bp_kernels.inst.in DEVICE DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(operators/bp_diagonal_kernels.inst.in DEVICE DEGREES solver AXES ${dims})
tpmg_instantiate(multigrid/transfer_kernels.inst.in DEVICE DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(smoothers/patch_basic_kernels.inst.in DEVICE DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(smoothers/fitted_patch_kernels.inst.in DEVICE DEGREES solver AXES ${dims} ${numbers})
tpmg_instantiate(smoothers/fitted_patch_tensor_kernels.inst.in DEVICE DEGREES solver MAX_DEGREE 8 AXES ${dims} ${numbers})
tpmg_instantiate(smoothers/patch_fiber_kernels.inst.in DEVICE DEGREES solver
                 AXES ${dims} ${numbers} OPTIMIZATION linear_indexing conflict_free reduced_residual LUMPED false true)
tpmg_instantiate(smoothers/patch_mma_kernels.inst.in DEVICE DEGREES solver MIN_DEGREE 2 AXES DIM 3 ${numbers})
tpmg_instantiate(discretization/problem_kernels.inst.in DEVICE DEGREES operator AXES ${dims})
tpmg_instantiate(discretization/function_kernels.inst.in DEVICE DEGREES solver AXES ${dims})
