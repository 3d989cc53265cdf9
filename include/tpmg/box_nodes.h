// The nodes of the box a rank owns on one level, and their exchange with the neighbouring
// boxes (docs/method.md, "Distribution"). The box of cells [cell_begin, cell_end) holds the
// nodes [k cell_begin_d, k cell_end_d] in every direction, numbered lexicographically within
// the box (x fastest); the nodes on a face shared with a neighbour are held by both ranks.
#pragma once

#include <tpmg/communicator.h>
#include <tpmg/partition.h>

#include <array>
#include <vector>

namespace tpmg
{
  class BoxNodes
  {
  public:
    /// The nodes of `rank`'s box on level l of `partition`; `comm` spans the partition's ranks.
    BoxNodes(const HierarchyPartition &partition, int l, const Communicator &comm);

    /// Nodes per direction of the box (1 beyond the dimension); 0 everywhere for an empty box.
    const std::array<index_t, 3> &extent() const { return extent_; }
    /// Global node coordinates of the box's first node.
    const std::array<index_t, 3> &first() const { return first_; }
    index_t                       size() const { return extent_[0] * extent_[1] * extent_[2]; }
    /// The level's global index of local node `i`.
    index_t global_index(index_t i) const;

    /// After each rank has added its cells' contributions into its box's nodes, every copy of a
    /// shared node gets the sum over all ranks that hold it: the face planes are exchanged
    /// direction by direction (x, then y, then z), so that nodes on edges and corners, shared
    /// by up to 2^d ranks, need no messages of their own.
    void sum_shared(std::vector<double> &values) const;

  private:
    CartesianLevel         owned_;
    Communicator           comm_;
    std::array<index_t, 3> extent_{{0, 0, 0}}, first_{{0, 0, 0}};
    std::array<int, 3>     lower_neighbour_{{-1, -1, -1}}, upper_neighbour_{{-1, -1, -1}};
  };
} // namespace tpmg
