#include <kernels/common/cell_grid.h>

#include <stdexcept>
#include <string>

namespace tpmg::internal
{
  void fast_divisor_out_of_range(std::int64_t divisor)
  {
    throw std::invalid_argument("FastDivisor: divisor " + std::to_string(divisor) + " outside 1..2^31-1");
  }

  void cell_grid_too_large(const char *what, std::int64_t cells)
  {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(cells) +
                                " cells, more than the kernels' 32-bit cell indices allow (2^31 - 1)");
  }
} // namespace tpmg::internal
