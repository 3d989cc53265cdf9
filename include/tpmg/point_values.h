// The solution at given points: where a point lies in the mesh (its cell and reference
// coordinates, through the cell maps the operators use) and the Q_k interpolant's value there.
#pragma once

#include <tpmg/geometry.h>
#include <tpmg/mesh.h>

#include <array>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace tpmg
{
  class BoxLayout;
  template <typename Number>
  class Vector;

  /// A point's cell of a whole level (cell indices per direction) and its reference
  /// coordinates in [0, 1]^dim there.
  struct PointLocation
  {
    std::array<index_t, 3> cell{{0, 0, 0}};
    std::array<double, 3>  xi{{0, 0, 0}};
  };

  /// The cell of the whole `level` that holds the physical point x, and x's reference
  /// coordinates in it: on a box directly, on a deformed mesh by Newton's method on the cell's
  /// multilinear map through its deformed vertices, walking from cell to cell from the cell the
  /// undeformed box puts x in. Empty where x lies outside the mesh (or the walk finds no cell).
  std::optional<PointLocation> locate_point(const CartesianLevel &level, const DeformationSettings &deformation,
                                            const std::array<double, 3> &x);

  /// "x, y" or "x, y, z", as the parameter file writes a point.
  inline std::string format_point(const std::array<double, 3> &x, int dim)
  {
    std::string text;
    for (int d = 0; d < dim; ++d)
      {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.10g", x[std::size_t(d)]);
        text += (d ? ", " : "") + std::string(buffer);
      }
    return text;
  }

  /// The values at `where` (cells of layout.whole()) of the nodal Q_k function u on the ranks
  /// of `layout`: the rank that owns a point's cell evaluates it from the cell's nodes. Every
  /// rank calls it and gets every value.
  std::vector<double> point_values(const BoxLayout &layout, const Vector<double> &u,
                                   const std::vector<PointLocation> &where);
} // namespace tpmg
