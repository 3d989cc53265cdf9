// The NCCL side of Communicator (exchange path `nccl`): one NCCL communicator over the ranks of
// a run, and the ghost exchanges as grouped point-to-point sends and receives queued on the
// library's stream. Built with TPMG_WITH_NCCL; without it, built() is false and constructing
// one throws.
#pragma once

#include <tpmg/communicator.h>

#include <memory>
#include <vector>

namespace tpmg
{
  class NcclTransport
  {
  public:
    /// Whether the library was built with NCCL.
    static bool built();
    /// An NCCL communicator over the ranks of `comm`, each on its current GPU: rank 0's unique
    /// id is broadcast over `comm`, then every rank joins (collective).
    /// `max_channels` > 0: at most that many channels (ncclConfig_t::maxCTAs); 0: NCCL's default.
    explicit NcclTransport(const Communicator &comm, int max_channels = 0);
    ~NcclTransport();
    NcclTransport(const NcclTransport &)            = delete;
    NcclTransport &operator=(const NcclTransport &) = delete;

    /// The messages of rank `rank` (device buffers) as one NCCL group on the library's stream;
    /// a message to `rank` itself is a device copy (the i-th send to itself fills the i-th
    /// receive from itself). `transport` may be null where every message goes to `rank` itself.
    static void exchange(const NcclTransport *transport, int rank, const std::vector<Communicator::Message> &sends,
                         const std::vector<Communicator::Message> &receives);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
  };
} // namespace tpmg
