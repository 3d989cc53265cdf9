// The cell kernels' view of a level (problem_kernels::LevelMesh, kernels/problem/function_kernels.h)
// made from the level (CartesianLevel): the host side of those kernels.
#pragma once

#include <tpmg/expression.h>
#include <tpmg/geometry.h>
#include <tpmg/mesh.h>
#include <tpmg/vector.h>

#include <kernels/problem/function_kernels.h>

namespace tpmg
{
  /// A level's geometry as the cell kernels read it, on their backend: the deformed vertices
  /// (multilinear cells), or an exact map's programs (problem_kernels::LevelMesh::map, packed into
  /// doubles); both empty on the box.
  struct LevelGeometry
  {
    Vector<double> vertices;
    Vector<double> map;
  };
  /// The geometry of `level` under `deformation` on `backend`.
  LevelGeometry level_geometry(const CartesianLevel &level, const DeformationSettings &deformation, Backend backend);

  /// geometric_factors (tpmg/geometry.h) computed on `backend` into `factors` (resized) by
  /// problem_kernels::GeometricFactorsAt, one thread per point: the same numbers up to rounding,
  /// on the GPU without the host loop and the upload that took most of a deformed level
  /// operator's setup. A folded mesh throws geometric_factors' error.
  void geometric_factors_at_points(const CartesianLevel &level, const DeformationSettings &deformation,
                                   const Quadrature1D &q, GeometricFactorKind kind, const Coefficient &coefficient,
                                   Backend backend, Vector<double> &factors);

  /// geometric_factors in host memory, computed where `backend` says: on the GPU by
  /// geometric_factors_at_points and copied back (the host loop took 10 ms per 10^5 points, the
  /// fitted patches' data of a level), on the CPU by the host loop itself.
  std::vector<double> geometric_factors_on(const CartesianLevel &level, const DeformationSettings &deformation,
                                           const Quadrature1D &q, GeometricFactorKind kind,
                                           const Coefficient &coefficient, Backend backend);

  /// A function of the coordinates as the kernels of `level` evaluate it: along the level's
  /// periodic directions periodic (the ghost cells of a part beyond a periodic face lie outside
  /// the box and see the values at the other end).
  inline Expression on_level(const Expression &e, const CartesianLevel &level)
  {
    if (level.periodic == 0)
      return e;
    double lower[3]{0, 0, 0}, period[3]{0, 0, 0};
    for (int d = 0; d < level.dim; ++d)
      if (level.periodic_in(d))
        {
          lower[d]  = level.origin(d);
          period[d] = level.extent(d);
        }
    return e.periodic(lower, period);
  }
} // namespace tpmg

namespace tpmg::problem_kernels
{
  /// The kernels' view of a level; `vertices`: its deformed vertices, or null for the box.
  inline LevelMesh level_mesh(const CartesianLevel &level, const double *vertices)
  {
    LevelMesh m;
    m.vertices = vertices;
    for (int d = 0; d < 3; ++d)
      {
        m.cells[d]  = d < level.dim ? level.cells[d] : 1;
        m.nodes[d]  = level.nodes(d);
        m.origin[d] = d < level.dim ? level.origin(d) : 0.0;
        m.offset[d] = d < level.dim ? level.global_offset(d) : 0;
        m.h[d]      = level.h[d];
      }
    m.parity      = level.offset_parity();
    m.constrained = level.dirichlet_faces;
    return m;
  }
  /// The kernels' view of a level with its geometry.
  inline LevelMesh level_mesh(const CartesianLevel &level, const LevelGeometry &g)
  {
    LevelMesh m = level_mesh(level, g.vertices.size() > 0 ? g.vertices.data() : nullptr);
    if (g.map.size() > 0)
      m.map = reinterpret_cast<const ExpressionProgram *>(g.map.data());
    return m;
  }
} // namespace tpmg::problem_kernels
