// VTK unstructured-grid output of a nodal solution for ParaView: every Q_k cell is split
// into k^d linear sub-cells through its nodes.
#pragma once

#include <tpmg/geometry.h>
#include <tpmg/mesh.h>

#include <string>
#include <vector>

namespace tpmg
{
  /// The most nodes a VTU file is written for (larger ASCII files are not useful).
  constexpr index_t max_vtu_nodes = 4000000;

  /// Writes `values` (one per node, lexicographic) of `level` to `filename` (ASCII .vtu), the
  /// nodes where `deformation` puts them (each cell the multilinear map through its deformed
  /// vertices, as the bake-off operators see it). Refuses levels above `max_nodes` nodes.
  void write_vtu(const std::string &filename, const CartesianLevel &level, const std::vector<double> &values,
                 const DeformationSettings &deformation = {}, index_t max_nodes = max_vtu_nodes);

  class BoxLayout;
  template <typename Number>
  class Vector;
  /// The fine-level solution of a run on the ranks of `layout` (every rank calls it): one .vtu
  /// file where the level is whole; on a distributed level each rank writes its owned cells to
  /// BASE_RANK.vtu and rank 0 writes BASE.pvtu, which ParaView opens as one mesh (BASE: the
  /// filename without .vtu or .pvtu). Returns the file to open; a file that some rank cannot
  /// write throws CollectiveError on every rank.
  std::string write_vtu(const std::string &filename, const BoxLayout &layout, const Vector<double> &values,
                        const DeformationSettings &deformation = {}, index_t max_nodes = max_vtu_nodes);
} // namespace tpmg
