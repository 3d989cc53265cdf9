// CUDA implementation of device.h.
#include <tpmg/cuda_check.h>
#include <tpmg/device.h>

#include <kernels/runtime/cuda_forall.cuh>

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tpmg
{
  bool cuda_compiled() { return true; }

  void throw_cuda_error(cudaError_t err, const char *call, const char *file, int line)
  {
    std::ostringstream s;
    s << "CUDA error '" << cudaGetErrorString(err) << "' in " << call << " at " << file << ":" << line;
    throw std::runtime_error(s.str());
  }

  namespace
  {
    /// The library's stream on this thread: the per-thread default stream unless a ScopedStream
    /// says otherwise.
    thread_local cudaStream_t library_stream = cudaStreamPerThread;
  } // namespace

  cudaStream_t current_stream() { return library_stream; }

  ScopedStream::ScopedStream(void *stream) : previous_(library_stream)
  {
    if (stream)
      library_stream = static_cast<cudaStream_t>(stream);
  }
  ScopedStream::~ScopedStream() { library_stream = static_cast<cudaStream_t>(previous_); }

  void *side_stream_create()
  {
    int least = 0, greatest = 0;
    TPMG_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    TPMG_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    return s;
  }
  void side_stream_destroy(void *s) noexcept
  {
    if (s)
      cudaStreamDestroy(static_cast<cudaStream_t>(s));
  }

  namespace
  {
    /// A recorded graph and the page-locked copies of the kernel constants its upload nodes read
    /// at every replay (the kernels' own copies were on the host stack).
    struct RecordedGraph
    {
      cudaGraphExec_t exec  = nullptr;
      char           *arena = nullptr;
    };
    constexpr std::size_t     arena_bytes      = 256 * 1024;
    thread_local cudaStream_t capture_stream   = nullptr;
    thread_local cudaStream_t capture_previous = nullptr;
    thread_local char        *capture_arena    = nullptr; ///< non-null while recording
    thread_local std::size_t  capture_used     = 0;
  } // namespace

  namespace internal
  {
    unsigned constants_epoch = 0;

    const void *recorded_constants(const void *c, std::size_t bytes)
    {
      if (!capture_arena)
        return c;
      const std::size_t at = (capture_used + 15) / 16 * 16;
      if (at + bytes > arena_bytes)
        throw std::runtime_error("more kernel constants than the graph's " + std::to_string(arena_bytes / 1024) +
                                 " KiB buffer holds");
      std::memcpy(capture_arena + at, c, bytes);
      capture_used = at + bytes;
      return capture_arena + at;
    }
  } // namespace internal

  void graph_capture_begin()
  {
    if (!capture_stream)
      TPMG_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking));
    char *arena = nullptr;
    TPMG_CUDA_CHECK(cudaMallocHost(&arena, arena_bytes));
    // thread-local mode: an unsafe call of this thread (cudaMalloc, a synchronizing copy) fails
    const cudaError_t err = cudaStreamBeginCapture(capture_stream, cudaStreamCaptureModeThreadLocal);
    if (err != cudaSuccess)
      cudaFreeHost(arena);
    TPMG_CUDA_CHECK(err);
    capture_arena    = arena;
    capture_used     = 0;
    capture_previous = library_stream;
    library_stream   = capture_stream;
    ++internal::constants_epoch; // the graph uploads the constants its kernels need
  }

  void *graph_capture_end()
  {
    library_stream = capture_previous;
    ++internal::constants_epoch; // the uploads recorded since the beginning did not run
    auto *g           = new RecordedGraph{nullptr, capture_arena};
    capture_arena     = nullptr;
    cudaGraph_t graph = nullptr;
    cudaError_t err   = cudaStreamEndCapture(capture_stream, &graph);
    if (err == cudaSuccess)
      {
        err = cudaGraphInstantiate(&g->exec, graph, 0);
        cudaGraphDestroy(graph);
      }
    if (err != cudaSuccess)
      {
        graph_destroy(g);
        TPMG_CUDA_CHECK(err);
      }
    return g;
  }

  bool graph_recording() noexcept { return capture_arena != nullptr; }

  void graph_capture_abandon() noexcept
  {
    // (the library's stream comes back only from a capture that began and did not end: a
    // graph_capture_begin that failed never replaced it, and graph_capture_end restores it first)
    if (capture_arena)
      library_stream = capture_previous;
    ++internal::constants_epoch;
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(capture_stream, &graph);
    if (graph)
      cudaGraphDestroy(graph);
    cudaGetLastError(); // clear the capture's error
    if (capture_arena)
      cudaFreeHost(capture_arena);
    capture_arena = nullptr;
  }

  void graph_launch(void *graph)
  {
    TPMG_CUDA_CHECK(cudaGraphLaunch(static_cast<RecordedGraph *>(graph)->exec, library_stream));
    ++internal::constants_epoch; // the graph left its last constants in the symbols
  }

  void graph_destroy(void *graph) noexcept
  {
    auto *g = static_cast<RecordedGraph *>(graph);
    if (!g)
      return;
    if (g->exec)
      cudaGraphExecDestroy(g->exec);
    if (g->arena)
      cudaFreeHost(g->arena);
    delete g;
  }

  bool cuda_device_available()
  {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
      {
        cudaGetLastError(); // clear the error state
        return false;
      }
    return n > 0;
  }

  DeviceInfo cuda_device_info()
  {
    DeviceInfo     info;
    cudaDeviceProp prop;
    int            dev = 0;
    TPMG_CUDA_CHECK(cudaGetDevice(&dev));
    TPMG_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    info.name               = prop.name;
    info.multiprocessors    = prop.multiProcessorCount;
    info.compute_capability = prop.major * 10 + prop.minor;
    TPMG_CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
    return info;
  }

  void *device_allocate(std::size_t bytes)
  {
    void             *p   = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err != cudaSuccess)
      {
        cudaGetLastError();
        std::size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        std::ostringstream s;
        s << "GPU memory allocation of " << bytes / 1048576.0 << " MiB failed (" << cudaGetErrorString(err) << "; "
          << free_b / 1048576.0 << " MiB free of " << total_b / 1048576.0 << " MiB)";
        throw std::runtime_error(s.str());
      }
    return p;
  }

  void device_free(void *p) noexcept { cudaFree(p); }

  void *host_pinned_allocate(std::size_t bytes)
  {
    void *p = nullptr;
    if (cudaMallocHost(&p, bytes) != cudaSuccess)
      {
        cudaGetLastError();
        throw std::runtime_error("page-locked host allocation of " + std::to_string(bytes / 1048576.0) + " MiB failed");
      }
    return p;
  }

  void host_pinned_free(void *p) noexcept { cudaFreeHost(p); }

  int cuda_device_count()
  {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
      {
        cudaGetLastError();
        return 0;
      }
    return n;
  }

  void select_cuda_device(int index)
  {
    const int n = cuda_device_count();
    if (index < 0 || index >= n)
      throw std::invalid_argument("CUDA device " + std::to_string(index) + " does not exist (" + std::to_string(n) +
                                  " present)");
    TPMG_CUDA_CHECK(cudaSetDevice(index));
  }

  void copy_bytes(void *dst, Backend dst_space, const void *src, Backend src_space, std::size_t bytes)
  {
    if (bytes == 0)
      return;
    if (dst_space == Backend::cpu && src_space == Backend::cpu)
      {
        std::memcpy(dst, src, bytes);
        return;
      }
    const cudaMemcpyKind kind = dst_space == Backend::cuda
                                  ? (src_space == Backend::cuda ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                  : cudaMemcpyDeviceToHost;
    TPMG_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, current_stream()));
    if (dst_space == Backend::cpu || src_space == Backend::cpu)
      TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
  }

  void fill_zero(void *p, Backend space, std::size_t bytes)
  {
    if (space == Backend::cuda)
      TPMG_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, current_stream()));
    else
      std::memset(p, 0, bytes);
  }

  void synchronize(Backend b)
  {
    if (b == Backend::cuda)
      TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
  }

  [[noreturn]] void throw_no_cuda(const char *what)
  {
    throw std::logic_error(std::string("internal error: ") + what + " reached the no-CUDA path");
  }

  namespace internal
  {
    void *reduction_scratch(std::size_t bytes)
    {
      static void       *ptr      = nullptr;
      static std::size_t capacity = 0;
      if (bytes > capacity)
        {
          if (ptr)
            {
              TPMG_CUDA_CHECK(cudaStreamSynchronize(current_stream()));
              cudaFree(ptr);
            }
          capacity = std::max<std::size_t>(bytes, 1 << 20);
          ptr      = device_allocate(capacity);
        }
      return ptr;
    }

    ReductionSlots reduction_slots()
    {
      static ReductionSlots slots = [] {
        ReductionSlots r;
        r.counter = static_cast<unsigned *>(device_allocate(sizeof(unsigned)));
        TPMG_CUDA_CHECK(cudaMemsetAsync(r.counter, 0, sizeof(unsigned), current_stream()));
        void *host = nullptr, *device = nullptr;
        TPMG_CUDA_CHECK(cudaHostAlloc(&host, max_accurate_sums * sizeof(DoubleDouble), cudaHostAllocMapped));
        TPMG_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
        r.host   = static_cast<DoubleDouble *>(host);
        r.device = static_cast<DoubleDouble *>(device);
        return r;
      }();
      return slots;
    }

    int forall_grid_limit()
    {
      static int limit = [] {
        int dev = 0, sms = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        return std::max(1, sms) * 32;
      }();
      return limit;
    }
  } // namespace internal
} // namespace tpmg

namespace tpmg
{
  void *event_create()
  {
    cudaEvent_t e;
    TPMG_CUDA_CHECK(cudaEventCreate(&e));
    return e;
  }
  void   event_destroy(void *e) noexcept { cudaEventDestroy(static_cast<cudaEvent_t>(e)); }
  void   event_record(void *e) { TPMG_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(e), current_stream())); }
  void   event_wait(void *e) { TPMG_CUDA_CHECK(cudaStreamWaitEvent(current_stream(), static_cast<cudaEvent_t>(e), 0)); }
  double event_elapsed_seconds(void *start, void *stop)
  {
    TPMG_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop)));
    float ms = 0;
    TPMG_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(stop)));
    return ms * 1e-3;
  }
} // namespace tpmg
