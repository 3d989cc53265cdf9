// Memory and device management that host code needs; implemented in src/cuda/device.cu
// when the CUDA backend is built, and in src/device_none.cc otherwise.
#pragma once

#include <tpmg/config.h>
#include <tpmg/option_enums.h>

#include <cstddef>
#include <string>

namespace tpmg
{
  /// What cuda_device_info reports about the GPU.
  struct DeviceInfo
  {
    std::string name; ///< "NVIDIA H100 80GB HBM3", or the CPU description
    std::size_t free_bytes         = 0;
    std::size_t total_bytes        = 0;
    int         multiprocessors    = 0;
    int         compute_capability = 0; ///< 90 for sm_90
  };

  /// True when the library has CUDA and a device is present.
  bool cuda_device_available();
  /// The current CUDA device (name, memory, multiprocessors); throws without one.
  DeviceInfo cuda_device_info();
  /// The CPU model and the number of OpenMP threads, for reports.
  std::string host_description();
  /// Bytes of memory the operating system reports available (MemAvailable), 0 if unknown.
  std::size_t host_available_memory();

  /// Raw device memory (what Vector uses on the cuda backend).
  void *device_allocate(std::size_t bytes);
  void  device_free(void *p) noexcept;
  /// Page-locked host memory where the CUDA backend is built (fast copies to and from the
  /// device: the staging buffers of MPI exchanges), ordinary host memory otherwise.
  void *host_pinned_allocate(std::size_t bytes);
  void  host_pinned_free(void *p) noexcept;
  /// Makes device `index` current for this process (CUDA builds; throws for a bad index).
  void select_cuda_device(int index);
  /// Number of CUDA devices (0 without CUDA or a device).
  int cuda_device_count();
  /// Copies between any combination of host and device memory.
  void copy_bytes(void *dst, Backend dst_space, const void *src, Backend src_space, std::size_t bytes);
  /// Sets `bytes` bytes at p, in host or device memory, to zero.
  void fill_zero(void *p, Backend space, std::size_t bytes);
  /// Waits for all queued device work (no-op on the CPU backend).
  void synchronize(Backend b);
} // namespace tpmg

namespace tpmg
{
  /// CUDA events on the library's stream (used by Timers).
  void *event_create();
  void  event_destroy(void *e) noexcept;
  void  event_record(void *e);
  /// Waits for `stop`, returns the seconds between the two events.
  double event_elapsed_seconds(void *start, void *stop);
  /// Work queued on the library's stream from now on waits until event `e` has happened.
  void event_wait(void *e);

  /// A second stream for transfers that overlap the library's stream (ghost exchanges beside the
  /// smoother's interior patches): non-blocking, at the device's highest priority, so that its
  /// small packing and NCCL kernels get the next free multiprocessors.
  void *side_stream_create();
  void  side_stream_destroy(void *s) noexcept;

  /// CUDA graphs. Between graph_capture_begin and graph_capture_end the work the library queues
  /// on its stream is recorded, not run (on a capture stream of this thread), and becomes an
  /// executable graph that graph_launch replays on the library's stream. A call that cannot be
  /// recorded (an allocation, a copy to the host, a wait for the device) fails with an exception
  /// inside the capture; graph_capture_abandon then ends the capture and clears the error.
  /// Kernel constants are uploaded afresh by the first kernel of each kind after any of these
  /// calls, so that recorded and replayed launches find their constants (cuda_runner.cuh).
  void  graph_capture_begin();
  void *graph_capture_end();
  void  graph_capture_abandon() noexcept;
  void  graph_launch(void *graph);
  void  graph_destroy(void *graph) noexcept;
  /// Whether this thread is between graph_capture_begin and its end: work queued now is recorded,
  /// so no event of it can be timed and nothing may wait for it on the host.
  bool graph_recording() noexcept;

  /// Makes `stream` the library's stream of this thread for the object's lifetime: every kernel,
  /// copy, event and NCCL call the library queues goes there. On the CPU backend (null stream)
  /// nothing changes.
  class ScopedStream
  {
  public:
    explicit ScopedStream(void *stream);
    ~ScopedStream();
    ScopedStream(const ScopedStream &)            = delete;
    ScopedStream &operator=(const ScopedStream &) = delete;

  private:
    void *previous_;
  };
} // namespace tpmg
