// device.h for builds without the CUDA backend: only host memory exists.
#include <tpmg/device.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace tpmg
{
  bool cuda_compiled() { return false; }
  bool cuda_device_available() { return false; }

  [[noreturn]] void throw_no_cuda(const char *what)
  {
    throw std::runtime_error(std::string(what) + " needs the CUDA backend, but this build has none "
                                                 "(reconfigure with nvcc available and TPMG_ENABLE_CUDA=AUTO or ON)");
  }

  DeviceInfo cuda_device_info() { throw_no_cuda("device information"); }
  void      *device_allocate(std::size_t) { throw_no_cuda("device memory"); }
  void       device_free(void *) noexcept {}
  void      *host_pinned_allocate(std::size_t bytes)
  {
    void *p = std::malloc(bytes > 0 ? bytes : 1);
    if (!p)
      throw std::bad_alloc();
    return p;
  }
  void host_pinned_free(void *p) noexcept { std::free(p); }
  int  cuda_device_count() { return 0; }
  void select_cuda_device(int) { throw_no_cuda("a CUDA device"); }

  void copy_bytes(void *dst, Backend dst_space, const void *src, Backend src_space, std::size_t bytes)
  {
    if (dst_space == Backend::cuda || src_space == Backend::cuda)
      throw_no_cuda("a device copy");
    if (bytes)
      std::memcpy(dst, src, bytes);
  }

  void fill_zero(void *p, Backend space, std::size_t bytes)
  {
    if (space == Backend::cuda)
      throw_no_cuda("device memory");
    std::memset(p, 0, bytes);
  }

  void synchronize(Backend) {}
} // namespace tpmg

namespace tpmg
{
  void   graph_capture_begin() { throw_no_cuda("CUDA graphs"); }
  void  *graph_capture_end() { throw_no_cuda("CUDA graphs"); }
  void   graph_capture_abandon() noexcept {}
  void   graph_launch(void *) { throw_no_cuda("CUDA graphs"); }
  void   graph_destroy(void *) noexcept {}
  bool   graph_recording() noexcept { return false; }
  void  *event_create() { throw_no_cuda("CUDA events"); }
  void   event_destroy(void *) noexcept {}
  void   event_record(void *) { throw_no_cuda("CUDA events"); }
  double event_elapsed_seconds(void *, void *) { throw_no_cuda("CUDA events"); }
  void   event_wait(void *) { throw_no_cuda("CUDA events"); }
  void  *side_stream_create() { throw_no_cuda("CUDA streams"); }
  void   side_stream_destroy(void *) noexcept {}
  ScopedStream::ScopedStream(void *stream) : previous_(stream) {}
  ScopedStream::~ScopedStream() { (void)previous_; } // no stream to restore without CUDA
} // namespace tpmg
