// The ranks a distributed run spans: MPI's world communicator where the library is built with
// MPI (TPMG_WITH_MPI), a single rank otherwise. The header does not include mpi.h, so programs
// that use the library need no MPI compiler wrapper.
#pragma once

#include <tpmg/numbering.h>
#include <tpmg/options.h>

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

  class NcclTransport;

  /// What a run has to move ghost values with.
  struct ExchangeCapabilities
  {
    Backend backend          = Backend::cpu; ///< where the vectors live
    bool    nccl             = false;        ///< the library was built with NCCL
    bool    device_aware_mpi = false;        ///< the MPI library takes device pointers
    bool    gpu_per_rank     = true;         ///< no two ranks of a host share a GPU (NCCL needs it)
  };

  /// The path `requested` takes (ExchangePath::automatic: nccl, else mpi where the MPI takes
  /// device pointers, else host; host on the CPU backend). A path the build or the machine lacks
  /// throws std::invalid_argument with one line saying what is missing.
  ExchangePath resolve_exchange(ExchangePath requested, const ExchangeCapabilities &can);

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
    void all_gather(const double *send, int n, double *receive) const;
    /// Wall-clock seconds this process has spent in all_gather on several ranks (the solvers'
    /// reductions): mostly waiting for the slowest rank to arrive.
    static double all_gather_seconds();
    index_t       max(index_t value) const;
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

    /// How BoxLayout moves a GPU's ghost values over these ranks: ExchangePath::host unless
    /// with_exchange chose another.
    ExchangePath exchange_path() const { return path_; }
    /// This communicator with its exchanges over `path` (nccl, mpi or host, as resolve_exchange
    /// gives it). nccl sets up one NCCL communicator over the ranks on the current GPU: every rank
    /// must call it (collective); a failure on any rank throws CollectiveError on all of them.
    /// `nccl_channels` > 0 caps the channels (thread blocks) of that communicator's transfers
    /// (ncclConfig_t::maxCTAs), and so the channels it connects per peer at its first exchange.
    Communicator with_exchange(ExchangePath path, int nccl_channels = 0) const;
    /// exchange_path() == nccl: the messages (device buffers) as one group of NCCL sends and
    /// receives, queued on the library's stream behind the work queued before; returns at once.
    /// A message to this rank itself is a copy on the stream.
    void exchange_on_stream(const std::vector<Message> &sends, const std::vector<Message> &receives) const;

    /// The rank among those of this run on the same host (for the choice of the GPU), and how
    /// many ranks run there. Collective (a communicator split per host): every rank calls them,
    /// never one rank alone.
    int local_rank() const;
    int local_size() const;
    /// Ends every rank of the run with `code` (MPI_Abort; std::exit without MPI).
    [[noreturn]] void abort(int code) const;

    /// Whether the library was built with MPI.
    static bool with_mpi();
    /// Whether the MPI library takes CUDA device pointers (a CUDA-aware build, asked at run time).
    static bool device_aware_mpi();
    /// Whether the library was built with NCCL (TPMG_ENABLE_NCCL).
    static bool with_nccl();
    /// What this build and machine offer a run of these ranks on `backend`, with `gpus` GPUs on
    /// each host (resolve_exchange).
    ExchangeCapabilities capabilities(Backend backend, int gpus) const;

  private:
    struct Handle;
    std::shared_ptr<const Handle>        handle_;
    int                                  rank_ = 0, size_ = 1;
    ExchangePath                         path_ = ExchangePath::host;
    std::shared_ptr<const NcclTransport> nccl_;
  };

  /// OpenMP threads of one of `ranks_on_host` ranks on a host of `host_cores` cores that may run
  /// on `available_cores` of them: the host's cores divided among its ranks, no more than it may
  /// run on, at least one.
  int threads_per_rank(int available_cores, int host_cores, int ranks_on_host);

  /// MPI_Init in the constructor, MPI_Finalize in the destructor: one per program, in main. MPI
  /// starts only where the library has it, nobody started it yet and an MPI launcher started the
  /// process (launched_by_mpi): a program run on its own is one rank without MPI's start-up
  /// cost. Each rank then gets its share of the host's cores for OpenMP (threads_per_rank),
  /// unless OMP_NUM_THREADS says otherwise.
  class MpiSession
  {
  public:
    MpiSession(int &argc, char **&argv);
    ~MpiSession();
    MpiSession(const MpiSession &)            = delete;
    MpiSession &operator=(const MpiSession &) = delete;

    /// Whether the environment shows an MPI launcher (mpirun, mpiexec, srun with PMI or PMIx):
    /// the variables Open MPI, MPICH, Intel MPI, MVAPICH and Slurm set for the processes they
    /// start.
    static bool launched_by_mpi();

  private:
    bool finalize_ = false;
  };
} // namespace tpmg
