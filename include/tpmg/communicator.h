// The ranks a distributed run spans: MPI's world communicator where the library is built with
// MPI (TPMG_WITH_MPI), a single rank otherwise. The header does not include mpi.h, so programs
// that use the library need no MPI compiler wrapper.
#pragma once

#include <tpmg/mesh.h>

#include <memory>

namespace tpmg
{
  class Communicator
  {
  public:
    /// All ranks of the run (MPI_COMM_WORLD; MPI must be initialized, see MpiSession).
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
    void   barrier() const;
    /// Sends n doubles to rank `dest` and receives n from rank `source` (MPI_Sendrecv; the two
    /// may differ), tagged `tag`; a rank of -1 means none (nothing sent, or nothing received).
    void send_receive(const double *send, int dest, double *receive, int source, index_t n, int tag) const;

    /// Whether the library was built with MPI.
    static bool with_mpi();

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
