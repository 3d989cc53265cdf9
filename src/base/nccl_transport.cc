// NcclTransport (src/base/nccl_transport.h): NCCL point-to-point on the library's stream.
#include <src/base/nccl_transport.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#ifdef TPMG_WITH_NCCL
#include <tpmg/cuda_check.h>

#include <nccl.h>
#endif

namespace tpmg
{
#ifdef TPMG_WITH_NCCL
  namespace
  {
    void nccl_check(ncclResult_t r, const char *call)
    {
      if (r == ncclSuccess)
        return;
      std::string detail = ncclGetLastError(nullptr);
      throw std::runtime_error(std::string("NCCL: ") + call + " failed (" + ncclGetErrorString(r) + ")" +
                               (detail.empty() ? "" : ": " + detail));
    }
  } // namespace

  struct NcclTransport::Impl
  {
    ncclComm_t comm = nullptr;
  };

  bool NcclTransport::built() { return true; }

  NcclTransport::NcclTransport(const Communicator &comm, int max_channels) : impl_(std::make_unique<Impl>())
  {
    // Point-to-point alone: NVLink SHARP (multicast) serves collectives, which the library does
    // not use, and its set-up at the communicator's start can take a shared host's GPUs out of
    // service; off unless the user says otherwise.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    std::string mine;
    if (comm.rank() == 0)
      {
        const ncclResult_t r = ncclGetUniqueId(&id);
        if (r != ncclSuccess)
          mine = std::string("NCCL: ncclGetUniqueId failed (") + ncclGetErrorString(r) + ")";
      }
    if (const std::string error = comm.first_error(mine); !error.empty())
      throw CollectiveError(error);
    const std::string bytes = comm.broadcast(std::string(id.internal, sizeof id.internal), 0);
    std::memcpy(id.internal, bytes.data(), sizeof id.internal);
    // a failure on one rank ends the run there (the application's MPI_Abort ends the others)
    // NCCL connects a peer's channels at the first transfer with it (measured on 2 H200s: about
    // 6 ms a channel, 32 point-to-point channels per peer by default): a cap makes the setup
    // shorter and large transfers slower (docs/performance/scaling.md, "Start-up of a
    // distributed run")
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    if (max_channels > 0)
      {
        config.minCTAs = 1;
        config.maxCTAs = max_channels;
      }
    nccl_check(ncclCommInitRankConfig(&impl_->comm, comm.size(), id, comm.rank(), &config), "ncclCommInitRankConfig");
  }

  NcclTransport::~NcclTransport()
  {
    if (impl_ && impl_->comm)
      ncclCommDestroy(impl_->comm);
  }

  void NcclTransport::exchange(const NcclTransport *transport, int rank,
                               const std::vector<Communicator::Message> &sends,
                               const std::vector<Communicator::Message> &receives)
  {
    const cudaStream_t stream = current_stream();
    // the messages to this rank itself, in order
    std::vector<const Communicator::Message *> to_self, from_self;
    for (const Communicator::Message &m : sends)
      if (m.rank == rank)
        to_self.push_back(&m);
    for (const Communicator::Message &m : receives)
      if (m.rank == rank)
        from_self.push_back(&m);
    if (to_self.size() != from_self.size())
      throw std::invalid_argument("Communicator::exchange_on_stream: unmatched messages to the rank itself");
    for (std::size_t i = 0; i < to_self.size(); ++i)
      {
        if (to_self[i]->bytes != from_self[i]->bytes)
          throw std::invalid_argument("Communicator::exchange_on_stream: a message to itself of another size");
        if (to_self[i]->bytes > 0)
          TPMG_CUDA_CHECK(
            cudaMemcpyAsync(from_self[i]->data, to_self[i]->data, to_self[i]->bytes, cudaMemcpyDeviceToDevice, stream));
      }
    if (to_self.size() == sends.size() && from_self.size() == receives.size())
      return;
    if (!transport)
      throw std::logic_error("Communicator::exchange_on_stream: messages to other ranks without NCCL");
    const ncclComm_t comm = transport->impl_->comm;
    nccl_check(ncclGroupStart(), "ncclGroupStart");
    for (const Communicator::Message &m : receives)
      if (m.rank != rank && m.bytes > 0)
        nccl_check(ncclRecv(m.data, m.bytes, ncclInt8, m.rank, comm, stream), "ncclRecv");
    for (const Communicator::Message &m : sends)
      if (m.rank != rank && m.bytes > 0)
        nccl_check(ncclSend(m.data, m.bytes, ncclInt8, m.rank, comm, stream), "ncclSend");
    nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  }
#else
  struct NcclTransport::Impl
  {};

  bool NcclTransport::built() { return false; }

  NcclTransport::NcclTransport(const Communicator &, int)
  {
    throw std::invalid_argument(
      "this build has no NCCL (configure with -DTPMG_ENABLE_NCCL=ON where NCCL is installed)");
  }

  NcclTransport::~NcclTransport() = default;

  void NcclTransport::exchange(const NcclTransport *, int, const std::vector<Communicator::Message> &,
                               const std::vector<Communicator::Message> &)
  {
    throw std::invalid_argument("this build has no NCCL");
  }
#endif
} // namespace tpmg
