// The cell kernels' view of a level (problem_kernels::LevelMesh, kernels/problem/function_kernels.h)
// made from the level (CartesianLevel): the host side of those kernels.
#pragma once

#include <tpmg/mesh.h>

#include <kernels/problem/function_kernels.h>

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
} // namespace tpmg::problem_kernels
