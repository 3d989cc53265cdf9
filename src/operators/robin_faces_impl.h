// The Robin term of the level operator (apply_robin_faces, add_robin_diagonal in
// tpmg/robin_faces.h); instantiated with the Cartesian operator (laplace_operator.inst.in).
#pragma once

#include <tpmg/fe_1d.h>
#include <tpmg/robin_faces.h>

#include <kernels/operators/robin_face.h>
#include <kernels/runtime/forall.h>

namespace tpmg
{
  /// The degree-k basis at the k + 1 Gauss points of a face direction (RobinFaceKernel::B).
  template <int k, typename Number>
  SmallMatrix<Number, k + 1, k + 1> robin_face_basis()
  {
    const Quadrature1D q = gauss_quadrature(unsigned(k + 1));
    return make_small_matrix<Number, k + 1, k + 1>(LagrangeBasis1D(unsigned(k)).values(q.points));
  }

  /// The cells of face f of `level` (all of them: colour -1).
  inline FaceCells face_cells_of(const CartesianLevel &level, int f)
  {
    FaceCells F;
    F.face   = f;
    F.dim    = level.dim;
    F.parity = level.offset_parity();
    for (int d = 0; d < 3; ++d)
      {
        F.cells[d] = d < level.dim ? level.cells[d] : 1;
        F.nodes[d] = level.nodes(d);
      }
    return F;
  }

  namespace internal
  {
    /// Runs `kern` over every Robin face of `robin`: on the CPU colour by colour, on the GPU all
    /// cells of a face at once (atomics).
    template <int dim, int k, typename Number>
    void run_robin_faces(const RobinFaces<Number> &robin, RobinFaceKernel<dim, k, Number> kern)
    {
      kern.B = robin_face_basis<k, Number>();
      for (int f = 0; f < 2 * dim; ++f)
        if (robin.has(f))
          {
            kern.F       = face_cells_of(robin.level(), f);
            kern.weights = robin.weights(f);
            if (robin.backend() == Backend::cuda)
              {
                kern.F.colour = -1;
                forall(Backend::cuda, kern.F.count(), kern);
              }
            else
              for (int colour = 0; colour < (1 << (dim - 1)); ++colour)
                {
                  kern.F.colour = colour;
                  forall(Backend::cpu, kern.F.count(), kern);
                }
          }
    }
  } // namespace internal

  template <int dim, int k, typename Number>
  void apply_robin_faces(const RobinFaces<Number> &robin, Number *dst, const Number *src, Number sign,
                         bool read_dirichlet)
  {
    RobinFaceKernel<dim, k, Number> kern;
    kern.src               = src;
    kern.dst               = dst;
    kern.sign              = sign;
    kern.write_constrained = robin.level().dirichlet_faces;
    kern.read_constrained  = read_dirichlet ? 0u : robin.level().dirichlet_faces;
    internal::run_robin_faces(robin, kern);
  }

  template <int dim, int k, typename Number>
  void add_robin_diagonal(const RobinFaces<Number> &robin, Number *diag)
  {
    RobinFaceKernel<dim, k, Number> kern;
    kern.dst               = diag;
    kern.diagonal          = true;
    kern.write_constrained = robin.level().dirichlet_faces;
    internal::run_robin_faces(robin, kern);
  }
} // namespace tpmg
