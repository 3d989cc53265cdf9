#include <tpmg/device.h>

#include <fstream>
#include <string>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tpmg
{
  std::string host_description()
  {
    std::string   model = "CPU";
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);)
      if (line.rfind("model name", 0) == 0)
        {
          const auto colon = line.find(':');
          if (colon != std::string::npos)
            model = line.substr(colon + 2);
          break;
        }
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    return model + " (" + std::to_string(threads) + " threads)";
  }
} // namespace tpmg
