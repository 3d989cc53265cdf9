// The BP3/BP5 Laplacians' diagonal (kernels/operators/bp_diagonal.h): the colour-by-colour cell
// launches; instantiated from bp_diagonal.inst.in.
#pragma once

#include <tpmg/bp_operator.h>

#include <kernels/operators/bp_diagonal.h>
#include <kernels/operators/laplace_cartesian.h>
#include <kernels/runtime/forall.h>
#include <src/discretization/level_mesh.h>
#include <src/discretization/problem_functions_impl.h>

namespace tpmg
{
  namespace internal
  {
    template <int dim, int k, int nq>
    void bp_laplace_diagonal(const CartesianLevel &level, const LevelGeometry &geometry, bool lobatto,
                             const Coefficients &coefficients, Vector<double> &diag)
    {
      operator_kernels::LaplaceDiagonalCells<dim, k, nq> kern;
      kern.mesh = problem_kernels::level_mesh(level, geometry);
      kern.rule = cell_rule<dim, k, nq>(lobatto);
      if (coefficients.diffusion)
        {
          kern.coefficient     = on_level(*coefficients.diffusion, level).program();
          kern.has_coefficient = true;
        }
      if (coefficients.reaction)
        {
          kern.reaction     = on_level(*coefficients.reaction, level).program();
          kern.has_reaction = true;
        }
      kern.diag = diag.data();
      for (int colour = 0; colour < (1 << dim); ++colour)
        {
          kern.colour = colour;
          forall(diag.backend(), problem_kernels::colour_cells(kern.mesh, dim, colour), kern);
        }
      forall(diag.backend(), diag.size(),
             SetBoundaryNodes<double>{{level.nodes(0), level.nodes(1), level.nodes(2)},
                                      dim,
                                      1.0,
                                      diag.data(),
                                      level.dirichlet_faces});
    }
  } // namespace internal
} // namespace tpmg
