// The ranks a distributed run spans: MPI's world communicator where the library is built with
// MPI (TPMG_WITH_MPI), a single rank otherwise. The header does not include mpi.h, so programs
// that use the library need no MPI compiler wrapper.
#pragma once

#include <tpmg/mesh.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  /// A run-time failure that every rank of a run throws alike, after the ranks agreed on it
  /// (Communicator::first_error): each rank may end normally, none waits for another.
  class CollectiveError : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  class Communicator
  {
  public:
    /// All ranks of the run: MPI_COMM_WORLD where MPI is initialized (MpiSession), else this
    /// rank alone.
    static Communicator world();
    /// This rank alone.
    static Communicator self();

    int rank() const { return rank_; }
    int size() const { return size_; }

    /// Σ over the ranks, the same on every rank.
    double  sum(double value) const;
    index_t sum(index_t value) const;
    /// The largest value over the ranks.
    double max(double value) const;
    /// Σ over the ranks of each of n values, in place (one reduction for all of them).
    void sum(double *values, int n) const;
    /// Every rank's n values, in rank order, on every rank (receive: n × size() values).
    void    all_gather(const double *send, int n, double *receive) const;
    index_t max(index_t value) const;
    /// Whether `flag` is true on any rank.
    bool any(bool flag) const;
    /// `text` of rank `root`, on every rank.
    std::string broadcast(const std::string &text, int root) const;
    /// After a step that may fail on some ranks only (`mine`: this rank's error message, "" if it
    /// succeeded): the message of the lowest failing rank, on every rank ("" where none failed).
    /// Every rank must call it: ranks agree on a failure instead of waiting for the failed ones.
    std::string first_error(const std::string &mine) const;
    void        barrier() const;
    /// Sends n doubles to rank `dest` and receives n from rank `source` (MPI_Sendrecv; the two
    /// may differ), tagged `tag`; a rank of -1 means none (nothing sent, or nothing received).
    void send_receive(const double *send, int dest, double *receive, int source, index_t n, int tag) const;

    /// A buffer sent to or received from a rank.
    struct Message
    {
      int         rank  = 0;
      void       *data  = nullptr;
      std::size_t bytes = 0;
    };
    /// Posts every receive and every send (tagged `tag`), then waits for all of them. The
    /// buffers may be device memory only where device_aware_mpi() says so.
    void exchange(const std::vector<Message> &sends, const std::vector<Message> &receives, int tag) const;

    /// The rank among those of this run on the same host (for the choice of the GPU), and how
    /// many ranks run there.
    int local_rank() const;
    int local_size() const;
    /// Ends every rank of the run with `code` (MPI_Abort; std::exit without MPI).
    [[noreturn]] void abort(int code) const;

    /// Whether the library was built with MPI.
    static bool with_mpi();
    /// Whether the MPI library takes CUDA device pointers (a CUDA-aware build, asked at run time).
    static bool device_aware_mpi();

  private:
    struct Handle;
    std::shared_ptr<const Handle> handle_;
    int                           rank_ = 0, size_ = 1;
  };

  /// MPI_Init in the constructor (if MPI is present and not yet initialized), MPI_Finalize in
  /// the destructor: one per program, in main.
  class MpiSession
  {
  public:
    MpiSession(int &argc, char **&argv);
    ~MpiSession();
    MpiSession(const MpiSession &)            = delete;
    MpiSession &operator=(const MpiSession &) = delete;

  private:
    bool finalize_ = false;
  };
} // namespace tpmg
