// What the level operators cost in memory beside their vectors (tpmg/multigrid.h).
#include <tpmg/bp_operator.h>
#include <tpmg/multigrid.h>
#include <tpmg/robin_faces.h>

namespace tpmg
{
  std::size_t level_operator_memory_bytes(const CartesianLevel &level, LevelOperatorType type, GeometryMode geometry,
                                          std::size_t number_bytes, bool reaction)
  {
    if (type == LevelOperatorType::cartesian)
      return robin_faces_bytes(level, number_bytes); // the cell widths, α on the Robin faces
    return bp_geometry_bytes(level, bake_off(type), geometry, number_bytes, reaction);
  }
} // namespace tpmg
