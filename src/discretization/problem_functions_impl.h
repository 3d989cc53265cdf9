// The (dim, degree) part of problems given by functions (problem.h, ProblemFunctions): sets up
// the kernels of kernels/problem/function_kernels.h and launches them colour by colour.
// Instantiated from problem_functions.inst.in.
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/geometry.h>
#include <tpmg/problem.h>

#include <kernels/problem/cell_integrals.h>
#include <kernels/problem/function_kernels.h>
#include <kernels/runtime/cell_launch.h>
#include <kernels/runtime/forall.h>
#include <src/discretization/level_mesh.h>

#include <cmath>

namespace tpmg
{
  namespace internal
  {
    /// The rule of nq points (Gauss, or Gauss–Lobatto when `lobatto`) and the degree-k basis at it.
    template <int dim, int k, int nq>
    problem_kernels::CellRule<dim, k + 1, nq> cell_rule(bool lobatto)
    {
      const Quadrature1D                        q = lobatto ? gauss_lobatto_quadrature(nq) : gauss_quadrature(nq);
      const LagrangeBasis1D                     basis(k);
      problem_kernels::CellRule<dim, k + 1, nq> r;
      r.B = make_small_matrix<double, nq, k + 1>(basis.values(q.points));
      r.D = make_small_matrix<double, nq, k + 1>(basis.derivatives(q.points));
      for (int i = 0; i < nq; ++i)
        {
          r.points[i]  = q.points[std::size_t(i)];
          r.weights[i] = q.weights[std::size_t(i)];
        }
      return r;
    }

    /// Runs one of cell_integrals.h's kernels over the level's cells (one launch on the GPU, a
    /// colour at a time on the CPU).
    template <int dim, class Kernel>
    void launch_cell_integrals(Backend backend, const Kernel &kern)
    {
      launch_cells<Kernel>(backend, kern, &Kernel::count, dim, kern.mesh.parity);
    }

    /// b += ∫ f φ_i (interior nodes).
    template <int dim, int k>
    void add_function_integrals(const CartesianLevel &level, const LevelGeometry &geometry, const Expression &f,
                                Vector<double> &b)
    {
      problem_kernels::IntegrateFunction<dim, k, k + 2> kern;
      kern.f = on_level(f, level).program();
      kern.set_mesh(problem_kernels::level_mesh(level, geometry));
      kern.rule = cell_rule<dim, k, k + 2>(false);
      kern.b    = b.data();
      launch_cell_integrals<dim>(b.backend(), kern);
    }

    /// b += ∫_F h φ_i over the faces F of the box that are not Dirichlet faces (their images on a
    /// deformed level, h at the physical points), with k+2 Gauss points per direction of a face.
    template <int dim, int k>
    void add_face_integrals(const CartesianLevel &level, const LevelGeometry &geometry, const Expression &h,
                            Vector<double> &b)
    {
      problem_kernels::IntegrateFaceFunction<dim, k, k + 2> kern;
      kern.h                  = on_level(h, level).program();
      kern.mesh               = problem_kernels::level_mesh(level, geometry);
      const Quadrature1D    q = gauss_quadrature(k + 2);
      const LagrangeBasis1D basis(k);
      kern.B = make_small_matrix<double, k + 2, k + 1>(basis.values(q.points));
      for (int i = 0; i < k + 2; ++i)
        {
          kern.points[i]  = q.points[std::size_t(i)];
          kern.weights[i] = q.weights[std::size_t(i)];
        }
      kern.b = b.data();
      for (int face = 0; face < 2 * dim; ++face)
        if (!level.dirichlet(face))
          for (int colour = 0; colour < (1 << (dim - 1)); ++colour)
            {
              kern.face   = face;
              kern.colour = colour;
              forall(b.backend(), problem_kernels::face_cells(kern.mesh, dim, face, colour), kern);
            }
    }

    /// b -= a(g_h, φ_i) (interior nodes) with the quadrature of the level operator.
    template <int dim, int k>
    void subtract_lifting(const CartesianLevel &level, const LevelGeometry &geometry, LevelOperatorType op,
                          const Coefficients &coefficients, const Vector<double> &g_h, Vector<double> &b)
    {
      auto run = [&](auto kern) {
        kern.set_mesh(problem_kernels::level_mesh(level, geometry));
        kern.g = g_h.data();
        kern.b = b.data();
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
        launch_cell_integrals<dim>(b.backend(), kern);
      };
      if (op == LevelOperatorType::bp5)
        {
          problem_kernels::SubtractLifting<dim, k, k + 1> kern;
          kern.rule = cell_rule<dim, k, k + 1>(true);
          run(kern);
        }
      else
        {
          problem_kernels::SubtractLifting<dim, k, k + 2> kern;
          kern.rule = cell_rule<dim, k, k + 2>(false);
          run(kern);
        }
    }

    /// The error kernel of u_h against u on the level's owned cells (du with `gradient`), and the
    /// number of those cells.
    template <int dim, int k>
    problem_kernels::FunctionError<dim, k, k + 3> error_kernel(const CartesianLevel &level,
                                                               const LevelGeometry &geometry, const Expression &u,
                                                               const Vector<double> &u_h, bool gradient, index_t &owned)
    {
      problem_kernels::FunctionError<dim, k, k + 3> kern;
      kern.mesh = problem_kernels::level_mesh(level, geometry);
      kern.rule = cell_rule<dim, k, k + 3>(false);
      kern.uh   = u_h.data();
      kern.u    = u.program();
      if (gradient)
        for (int d = 0; d < dim; ++d)
          kern.du[d] = u.derivative(d).program();
      owned = 1; // the owned cells: each cell of the whole level counted once
      for (int d = 0; d < 3; ++d)
        {
          kern.box_begin[d] = d < dim ? level.owned_begin(d) : 0;
          kern.box_cells[d] = d < dim ? level.owned_end(d) - level.owned_begin(d) : 1;
          owned *= kern.box_cells[d];
        }
      return kern;
    }

    template <int dim, int k>
    ErrorNorms function_errors(const CartesianLevel &level, const LevelGeometry &geometry, const Expression &u,
                               const Vector<double> &u_h)
    {
      index_t      owned = 0;
      const auto   kern  = error_kernel<dim, k>(level, geometry, u, u_h, true, owned);
      DoubleDouble sums[2];
      reduce_sum_accurate<2>(u_h.backend(), owned, kern, sums);
      ErrorNorms e;
      e.l2      = std::sqrt(std::max(0.0, sums[0].value()));
      e.h1_semi = std::sqrt(std::max(0.0, sums[1].value()));
      return e;
    }

    template <int dim, int k>
    MeanDifference function_mean_difference(const CartesianLevel &level, const LevelGeometry &geometry,
                                            const Expression &u, const Vector<double> &u_h)
    {
      index_t owned = 0;
      auto    kern  = error_kernel<dim, k>(level, geometry, u, u_h, false, owned);
      kern.mean     = true;
      DoubleDouble sums[2];
      reduce_sum_accurate<2>(u_h.backend(), owned, kern, sums);
      MeanDifference m;
      m.integral = sums[0].value();
      m.volume   = sums[1].value();
      return m;
    }
  } // namespace internal
} // namespace tpmg
