// The conditions on the faces of the box: which faces carry Dirichlet data, which are natural
// (Neumann, Robin: their nodes are unknowns) and which directions are periodic
// (docs/method.md, "Boundary conditions").
#pragma once

#include <tpmg/option_enums.h>

#include <array>
#include <string>

namespace tpmg
{
  /// Face f of the box: the lower (f = 2d) or upper (f = 2d + 1) face of direction d, named
  /// x-, x+, y-, y+, z-, z+ in this order.
  struct BoundaryConditions
  {
    std::array<BoundaryType, 6> type{{BoundaryType::dirichlet, BoundaryType::dirichlet, BoundaryType::dirichlet,
                                      BoundaryType::dirichlet, BoundaryType::dirichlet, BoundaryType::dirichlet}};

    /// Whether one of the first 2 dim faces has type t.
    bool any(BoundaryType t, int dim) const
    {
      for (int f = 0; f < 2 * dim; ++f)
        if (type[std::size_t(f)] == t)
          return true;
      return false;
    }
    bool all_dirichlet(int dim) const
    {
      return !any(BoundaryType::neumann, dim) && !any(BoundaryType::robin, dim) && !any(BoundaryType::periodic, dim);
    }
    /// The faces of type t among the first 2 dim: bit f.
    unsigned faces_of(BoundaryType t, int dim) const
    {
      unsigned m = 0;
      for (int f = 0; f < 2 * dim; ++f)
        if (type[std::size_t(f)] == t)
          m |= 1u << f;
      return m;
    }
    /// Directions whose two faces are periodic: bit d.
    unsigned periodic_directions(int dim) const
    {
      unsigned m = 0;
      for (int d = 0; d < dim; ++d)
        if (type[std::size_t(2 * d)] == BoundaryType::periodic)
          m |= 1u << d;
      return m;
    }
    /// Faces whose nodes are unknowns of the discrete problem (Neumann and Robin): bit f.
    unsigned natural_faces(int dim) const
    {
      return faces_of(BoundaryType::neumann, dim) | faces_of(BoundaryType::robin, dim);
    }
    /// Whether no face fixes the constant (all Neumann or periodic: the operator is singular).
    bool singular(int dim) const { return !any(BoundaryType::dirichlet, dim) && !any(BoundaryType::robin, dim); }

    static std::string face_name(int f) { return std::string(1, char('x' + f / 2)) + (f % 2 ? "+" : "-"); }
  };
} // namespace tpmg
