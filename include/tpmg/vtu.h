// VTK unstructured-grid output of a nodal solution for ParaView: every Q_k cell is split
// into k^d linear sub-cells through its nodes.
#pragma once

#include <tpmg/mesh.h>

#include <string>
#include <vector>

namespace tpmg
{
  /// Writes `values` (one per node, lexicographic) of `level` to `filename` (ASCII .vtu).
  /// Refuses levels above `max_nodes` nodes (such files are not useful).
  void write_vtu(const std::string &filename, const CartesianLevel &level, const std::vector<double> &values,
                 index_t max_nodes = 4000000);
} // namespace tpmg
