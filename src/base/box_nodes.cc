// The nodes of a rank's box and the summation over shared faces (include/tpmg/box_nodes.h).
#include <tpmg/box_nodes.h>

#include <stdexcept>
#include <string>

namespace tpmg
{
  BoxNodes::BoxNodes(const HierarchyPartition &partition, int l, const Communicator &comm)
    : owned_(partition.owned(l, comm.rank())), comm_(comm)
  {
    if (comm.size() != partition.grid().size())
      throw std::invalid_argument("BoxNodes: " + std::to_string(comm.size()) + " ranks for a grid of " +
                                  std::to_string(partition.grid().size()));
    const int k     = owned_.degree;
    bool      empty = false;
    for (int d = 0; d < owned_.dim; ++d)
      empty = empty || owned_.cell_end[d] <= owned_.cell_begin[d];
    for (int d = 0; d < 3; ++d)
      {
        const bool active = d < owned_.dim;
        first_[d]         = active ? k * owned_.cell_begin[d] : 0;
        extent_[d]        = empty ? 0 : active ? k * (owned_.cell_end[d] - owned_.cell_begin[d]) + 1 : 1;
      }
    if (empty || !partition.distributed(l))
      return;
    const auto c = partition.grid().coordinates(comm.rank());
    for (int d = 0; d < owned_.dim; ++d)
      {
        auto lower = c, upper = c;
        --lower[std::size_t(d)];
        ++upper[std::size_t(d)];
        if (c[std::size_t(d)] > 0)
          lower_neighbour_[d] = partition.grid().rank_of(lower);
        if (c[std::size_t(d)] + 1 < partition.grid().ranks[d])
          upper_neighbour_[d] = partition.grid().rank_of(upper);
      }
  }

  index_t BoxNodes::global_index(index_t i) const
  {
    const index_t x = i % extent_[0], y = (i / extent_[0]) % extent_[1], z = i / (extent_[0] * extent_[1]);
    return owned_.dof_index(first_[0] + x, first_[1] + y, first_[2] + z);
  }

  void BoxNodes::sum_shared(std::vector<double> &values) const
  {
    if (index_t(values.size()) != size())
      throw std::invalid_argument("BoxNodes::sum_shared: " + std::to_string(values.size()) + " values for " +
                                  std::to_string(size()) + " nodes");
    const auto &e = extent_;
    for (int d = 0; d < owned_.dim; ++d)
      {
        // the plane of nodes with coordinate `layer` in direction d
        const int     a = (d + 1) % 3, b = (d + 2) % 3;
        const index_t n    = e[std::size_t(a)] * e[std::size_t(b)];
        auto          node = [&](index_t layer, index_t p) {
          std::array<index_t, 3> x{};
          x[std::size_t(d)] = layer;
          x[std::size_t(a)] = p % e[std::size_t(a)];
          x[std::size_t(b)] = p / e[std::size_t(a)];
          return x[0] + e[0] * (x[1] + e[1] * x[2]);
        };
        std::vector<double> send(static_cast<std::size_t>(n)), receive(static_cast<std::size_t>(n));
        // upward: my upper plane to the upper neighbour, the lower neighbour's upper plane added
        // to my lower plane, which then holds the shared plane's sum; downward: that sum
        // replaces the lower neighbour's upper plane
        for (int direction : {+1, -1})
          {
            const int     to   = direction > 0 ? upper_neighbour_[d] : lower_neighbour_[d];
            const int     from = direction > 0 ? lower_neighbour_[d] : upper_neighbour_[d];
            const index_t out  = direction > 0 ? e[std::size_t(d)] - 1 : 0;
            const index_t in   = direction > 0 ? 0 : e[std::size_t(d)] - 1;
            if (to < 0 && from < 0)
              continue;
            for (index_t p = 0; p < n; ++p)
              send[std::size_t(p)] = values[std::size_t(node(out, p))];
            comm_.send_receive(send.data(), to, receive.data(), from, n, 2 * d + (direction > 0 ? 0 : 1));
            if (from >= 0)
              for (index_t p = 0; p < n; ++p)
                {
                  double &v = values[std::size_t(node(in, p))];
                  v         = direction > 0 ? v + receive[std::size_t(p)] : receive[std::size_t(p)];
                }
          }
      }
  }
} // namespace tpmg
