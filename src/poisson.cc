#include <tpmg/device.h>
#include <tpmg/dispatch.h>
#include <tpmg/poisson.h>

namespace tpmg
{
  namespace internal
  {
    RunResult run_2d(const SolverParameters &p, Backend b, std::ostream &log);
    RunResult run_3d(const SolverParameters &p, Backend b, std::ostream &log);
  } // namespace internal

  Backend select_backend(const SolverParameters &p)
  {
    switch (p.device)
      {
        case DeviceChoice::cpu:
          return Backend::cpu;
        case DeviceChoice::cuda:
          if (!cuda_compiled())
            throw ParameterError(p.source + ": Backend/Device = cuda, but this build has no CUDA backend");
          if (!cuda_device_available())
            throw ParameterError(p.source + ": Backend/Device = cuda, but no CUDA device is available");
          return Backend::cuda;
        case DeviceChoice::automatic:
          break;
      }
    return cuda_compiled() && cuda_device_available() ? Backend::cuda : Backend::cpu;
  }

  RunResult run_poisson(const SolverParameters &p, std::ostream &log)
  {
    const Backend b = select_backend(p);
    return p.dim == 2 ? internal::run_2d(p, b, log) : internal::run_3d(p, b, log);
  }
} // namespace tpmg
