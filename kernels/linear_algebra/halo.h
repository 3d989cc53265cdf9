// Packing and unpacking the boxes of nodes that ranks exchange (include/tpmg/box_layout.h): one
// forall body for the CPU and the GPU, all boxes of one exchange in one launch.
#pragma once

#include <tpmg/config.h>
#include <tpmg/numbering.h>

namespace tpmg
{
  namespace halo_kernels
  {
    /// Messages of one exchange with the immediate neighbours: at most 3^3 - 1.
    constexpr int max_boxes = 26;

    /// Boxes of nodes of a lexicographic array of nodes[0] × nodes[1] × nodes[2] values and
    /// their place in a contiguous buffer: box b holds the nodes [begin_b, begin_b + extent_b)
    /// and occupies the values [first_b, first_b + size_b) of the buffer, x fastest.
    struct BoxList
    {
      int     count = 0;
      index_t nodes[3]{1, 1, 1};
      index_t begin[max_boxes][3];
      index_t extent[max_boxes][3];
      index_t first[max_boxes + 1]; ///< first[0] = 0, first[count] = values in all boxes

      /// The array index of buffer value i. Within a box in 32 bits (a box holds fewer than 2^32
      /// values: BoxLayout checks): two 32-bit divisions, where 64-bit ones cost several times
      /// as many instructions per value on a GPU.
      TPMG_HD index_t node(index_t i) const
      {
        int b = 0;
        while (b + 1 < count && i >= first[b + 1])
          ++b;
        const unsigned r = unsigned(i - first[b]), ex = unsigned(extent[b][0]), ey = unsigned(extent[b][1]);
        const unsigned q = r / ex, x = r - q * ex, z = q / ey, y = q - z * ey;
        return (begin[b][0] + x) + nodes[0] * ((begin[b][1] + y) + nodes[1] * (begin[b][2] + z));
      }
    };

    /// buffer[i] = v[node i of the boxes]
    template <typename Number>
    struct Pack
    {
      BoxList       boxes;
      const Number *v;
      Number       *buffer;
      TPMG_HD void  operator()(index_t i) const { buffer[i] = v[boxes.node(i)]; }
    };

    /// v[node i of the boxes] = buffer[i], or += with `add`
    template <typename Number>
    struct Unpack
    {
      BoxList       boxes;
      const Number *buffer;
      Number       *v;
      bool          add = false;
      TPMG_HD void  operator()(index_t i) const
      {
        const index_t g = boxes.node(i);
        v[g]            = add ? v[g] + buffer[i] : buffer[i];
      }
    };
  } // namespace halo_kernels
} // namespace tpmg
