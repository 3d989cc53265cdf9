// multigrid_api: what run_poisson does, from its parts: a mesh hierarchy, the level operator
// in double, a single-precision multigrid V-cycle as preconditioner, and GMRES. Solves
// -Δu = f, u = 0 on the boundary, on [0, 2] x [0, 1] with Q4 elements and the manufactured f.
//
// Exit code: 0 when GMRES converged, 1 otherwise.
#include <tpmg/device.h>
#include <tpmg/laplace_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/multigrid.h>
#include <tpmg/problem.h>
#include <tpmg/solvers.h>

#include <exception>
#include <iostream>
#include <vector>

int main()
{
  using namespace tpmg;
  // Dimension and degree are template arguments: the library has Multigrid, the level
  // operators and compute_errors for every degree 1..max_solver_degree(dim).
  constexpr int dim = 2, degree = 4;
  try
    {
      // the GPU when the library has CUDA and one is there, else the CPU; vectors live there
      const Backend backend = cuda_compiled() && cuda_device_available() ? Backend::cuda : Backend::cpu;

      // levels 0..5 of the box: 2 x 1 cells on level 0, 64 x 32 on level 5
      Domain domain;
      domain.dim                               = dim;
      domain.upper                             = {{2.0, 1.0, 1.0}};
      domain.coarse_cells                      = {{2, 1, 1}};
      const std::vector<CartesianLevel> levels = make_hierarchy(domain, degree, 5);
      const CartesianLevel             &fine   = levels.back();

      // the preconditioner: one V-cycle in float with the vertex-patch smoother on every level
      // (MultigridSettings: the smoother, its kernels, the level operator)
      const MultigridSettings settings{}; // the defaults

      const Multigrid<dim, degree, float> multigrid(levels, backend, settings);

      // the V-cycle for the double vectors of the outer solver
      using Preconditioner = MixedPrecisionPreconditioner<float, Multigrid<dim, degree, float>>;
      const Preconditioner preconditioner(multigrid, backend, /*timers=*/nullptr);

      // the system in double: the matrix-free Laplacian and b_i = ∫ f φ_i
      const CartesianLaplaceOperator<dim, degree, double> A(fine, backend);
      Vector<double>                                      b, x(fine.n_dofs(), backend); // x = 0
      assemble_rhs(fine, RightHandSide::manufactured, backend, b);

      SolverControl control;
      control.relative_tolerance = 1e-10;
      control.zero_initial_guess = true;
      const SolveStats s         = gmres(A, preconditioner, b, x, control, /*left_preconditioning=*/false, nullptr);

      const ErrorNorms e = compute_errors(fine, x); // against the manufactured solution
      std::cout << "multigrid_api: " << dim << "D Q" << degree << ", " << fine.n_dofs() << " DoFs, levels "
                << multigrid.coarsest_level() << ".." << multigrid.finest_level() << ", " << to_string(backend)
                << " backend\n"
                << "  GMRES iterations: " << s.iterations << (s.converged ? "" : " (not converged)") << "\n"
                << "  relative residual: " << s.relative_residual() << "\n"
                << "  L2 error: " << e.l2 << ", H1 error: " << e.h1_semi << "\n";
      return s.converged ? 0 : 1;
    }
  catch (const std::exception &e)
    {
      std::cerr << "multigrid_api: " << e.what() << std::endl;
      return 1;
    }
}
