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

  std::size_t host_available_memory()
  {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);)
      if (line.rfind("MemAvailable:", 0) == 0)
        return std::size_t(std::stoull(line.substr(13))) * 1024; // kB
    return 0;
  }
} // namespace tpmg
