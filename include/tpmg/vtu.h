// VTK unstructured-grid output of a nodal solution for ParaView: every Q_k cell is split
// into k^d linear sub-cells through its nodes (or, with a stride, the sub-cells between the
// nodes kept).
#pragma once

#include <tpmg/geometry.h>
#include <tpmg/mesh.h>
#include <tpmg/option_enums.h>

#include <string>
#include <vector>

namespace tpmg
{
  /// The most nodes an ASCII VTU file is written for (larger text files are not useful; the
  /// binary format has no limit).
  constexpr index_t max_vtu_nodes = 4000000;

  /// How a VTU file is written: its format, and the stride s of the nodes it holds (every s-th
  /// node along each direction and the last, counted from the level's first node, so that the
  /// pieces of several ranks meet; s = k gives the cells' vertices).
  struct VtuSettings
  {
    VtuFormat format          = VtuFormat::binary;
    index_t   stride          = 1;
    index_t   max_ascii_nodes = max_vtu_nodes;
  };

  /// The node indices along one direction of `nodes` nodes, the first of which is node `first`
  /// of the whole level, that a VTU file with `stride` holds.
  std::vector<index_t> vtu_node_indices(index_t nodes, index_t first, index_t stride);
  /// The number of nodes a VTU file of the whole `level` holds.
  index_t vtu_nodes(const CartesianLevel &level, index_t stride);

  /// Writes `values` (one per node, lexicographic) of `level` to `filename` (.vtu), the nodes
  /// where `deformation` puts them (each cell the multilinear map through its deformed
  /// vertices, as the bake-off operators see it). Refuses ASCII files above
  /// settings.max_ascii_nodes nodes.
  void write_vtu(const std::string &filename, const CartesianLevel &level, const std::vector<double> &values,
                 const DeformationSettings &deformation = {}, const VtuSettings &settings = {});

  class BoxLayout;
  template <typename Number>
  class Vector;
  /// The fine-level solution of a run on the ranks of `layout` (every rank calls it): one .vtu
  /// file where the level is whole; on a distributed level each rank writes its owned cells to
  /// BASE_RANK.vtu and rank 0 writes BASE.pvtu, which ParaView opens as one mesh (BASE: the
  /// filename without .vtu or .pvtu). Returns the file to open; a file that some rank cannot
  /// write throws CollectiveError on every rank.
  std::string write_vtu(const std::string &filename, const BoxLayout &layout, const Vector<double> &values,
                        const DeformationSettings &deformation = {}, const VtuSettings &settings = {});
} // namespace tpmg
