// tpmg::Communicator over MPI (TPMG_WITH_MPI) or a single rank. A one-rank communicator (self(),
// a default-constructed one, or world() of a run without MPI) never calls MPI, so that programs
// that never start MPI can use it.
#include <tpmg/communicator.h>

#include <src/base/nccl_transport.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#ifdef TPMG_WITH_MPI
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#endif

namespace tpmg
{
#ifdef TPMG_WITH_MPI
  struct Communicator::Handle
  {
    MPI_Comm comm;
  };
#else
  struct Communicator::Handle
  {};
#endif

  namespace
  {
    /// The messages of a one-rank exchange: to itself only, matched in order.
    void exchange_with_self(const std::vector<Communicator::Message> &sends,
                            const std::vector<Communicator::Message> &receives)
    {
      if (sends.size() != receives.size())
        throw std::invalid_argument("Communicator::exchange: unmatched messages on a one-rank run");
      for (std::size_t i = 0; i < sends.size(); ++i)
        {
          if (sends[i].rank != 0 || receives[i].rank != 0 || sends[i].bytes != receives[i].bytes)
            throw std::invalid_argument("Communicator::exchange: a message to another rank on a one-rank run");
          if (sends[i].bytes > 0)
            std::memcpy(receives[i].data, sends[i].data, sends[i].bytes);
        }
    }

#ifdef TPMG_WITH_MPI
    int message_count(std::size_t bytes)
    {
      if (bytes > std::size_t(std::numeric_limits<int>::max()))
        throw std::invalid_argument("Communicator: a message of " + std::to_string(bytes) +
                                    " bytes exceeds one MPI message");
      return int(bytes);
    }
#endif
  } // namespace

  Communicator Communicator::self() { return Communicator(); }

  ExchangePath resolve_exchange(ExchangePath requested, const ExchangeCapabilities &can)
  {
    const bool gpu = can.backend == Backend::cuda;
    switch (requested)
      {
        case ExchangePath::automatic:
          if (!gpu)
            return ExchangePath::host;
          return can.nccl && can.gpu_per_rank ? ExchangePath::nccl
                 : can.device_aware_mpi       ? ExchangePath::mpi
                                              : ExchangePath::host;
        case ExchangePath::nccl:
          if (!can.nccl)
            throw std::invalid_argument("Backend/Exchange = nccl, but this build has no NCCL (configure with "
                                        "-DTPMG_ENABLE_NCCL=ON where NCCL is installed)");
          if (!gpu)
            throw std::invalid_argument("Backend/Exchange = nccl needs the GPU backend, and this run is on the CPU");
          if (!can.gpu_per_rank)
            throw std::invalid_argument("Backend/Exchange = nccl needs a GPU per rank, and ranks share the GPUs of "
                                        "this host (start at most as many ranks per host as it has GPUs, or use "
                                        "host)");
          return requested;
        case ExchangePath::mpi:
          if (!gpu)
            throw std::invalid_argument("Backend/Exchange = mpi moves GPU buffers, and this run is on the CPU (use "
                                        "host or auto)");
          if (!can.device_aware_mpi)
            throw std::invalid_argument("Backend/Exchange = mpi needs an MPI that takes GPU memory, and this MPI "
                                        "library is not CUDA-aware (use nccl or host)");
          return requested;
        case ExchangePath::host:
          return requested;
      }
    throw std::invalid_argument("resolve_exchange: unknown path");
  }

  ExchangeCapabilities Communicator::capabilities(Backend backend, int gpus) const
  {
    ExchangeCapabilities c;
    c.backend          = backend;
    c.nccl             = with_nccl();
    c.device_aware_mpi = device_aware_mpi();
    c.gpu_per_rank     = !any(local_size() > gpus); // alike on every rank
    return c;
  }

  bool Communicator::with_nccl() { return NcclTransport::built(); }

  Communicator Communicator::with_exchange(ExchangePath path, int nccl_channels) const
  {
    if (path == ExchangePath::automatic)
      throw std::invalid_argument("Communicator::with_exchange: resolve the path first (resolve_exchange)");
    Communicator c = *this;
    c.path_        = path;
    c.nccl_.reset();
    if (path == ExchangePath::nccl && size_ > 1)
      c.nccl_ = std::make_shared<const NcclTransport>(*this, nccl_channels);
    return c;
  }

  void Communicator::exchange_on_stream(const std::vector<Message> &sends, const std::vector<Message> &receives) const
  {
    if (path_ != ExchangePath::nccl)
      throw std::logic_error("Communicator::exchange_on_stream: the exchange path is not nccl");
    NcclTransport::exchange(nccl_.get(), rank_, sends, receives);
  }

  bool MpiSession::launched_by_mpi()
  {
    // Open MPI (mpirun), PMIx launchers, MPICH and Intel MPI (hydra: PMI_RANK), MVAPICH, Slurm's
    // srun with PMI-2
    for (const char *v :
         {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"})
      if (std::getenv(v))
        return true;
    return false;
  }

  int threads_per_rank(int available_cores, int host_cores, int ranks_on_host)
  {
    return std::max(1, std::min(available_cores, host_cores / std::max(1, ranks_on_host)));
  }

  namespace
  {
    /// This rank's share of the host's cores for OpenMP (threads_per_rank); unchanged where
    /// OMP_NUM_THREADS is set or the process runs alone on its host.
    void share_host_cores(int ranks_on_host)
    {
      if (ranks_on_host <= 1 || std::getenv("OMP_NUM_THREADS"))
        return;
      omp_set_num_threads(
        threads_per_rank(omp_get_num_procs(), int(std::thread::hardware_concurrency()), ranks_on_host));
    }
  } // namespace

#ifdef TPMG_WITH_MPI
  Communicator Communicator::world()
  {
    Communicator c;
    int          initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) // a program that did not start MPI runs on one rank
      return c;
    c.handle_ = std::make_shared<const Handle>(Handle{MPI_COMM_WORLD});
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size_);
    return c;
  }

  double Communicator::sum(double value) const
  {
    if (size_ == 1)
      return value;
    double r = value;
    MPI_Allreduce(&value, &r, 1, MPI_DOUBLE, MPI_SUM, handle_->comm);
    return r;
  }

  index_t Communicator::sum(index_t value) const
  {
    static_assert(sizeof(index_t) == sizeof(std::int64_t));
    if (size_ == 1)
      return value;
    index_t r = value;
    MPI_Allreduce(&value, &r, 1, MPI_INT64_T, MPI_SUM, handle_->comm);
    return r;
  }

  void Communicator::sum(double *values, int n) const
  {
    if (size_ > 1 && n > 0)
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, handle_->comm);
  }

  namespace
  {
    double all_gather_wall = 0; // Communicator::all_gather_seconds
  }                             // namespace

  double Communicator::all_gather_seconds() { return all_gather_wall; }

  void Communicator::all_gather(const double *send, int n, double *receive) const
  {
    if (size_ == 1)
      {
        std::copy(send, send + n, receive);
        return;
      }
    const auto start = std::chrono::steady_clock::now();
    MPI_Allgather(send, n, MPI_DOUBLE, receive, n, MPI_DOUBLE, handle_->comm);
    all_gather_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  double Communicator::max(double value) const
  {
    if (size_ == 1)
      return value;
    double r = value;
    MPI_Allreduce(&value, &r, 1, MPI_DOUBLE, MPI_MAX, handle_->comm);
    return r;
  }

  index_t Communicator::max(index_t value) const
  {
    if (size_ == 1)
      return value;
    index_t r = value;
    MPI_Allreduce(&value, &r, 1, MPI_INT64_T, MPI_MAX, handle_->comm);
    return r;
  }

  bool Communicator::any(bool flag) const
  {
    if (size_ == 1)
      return flag;
    int in = flag ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, handle_->comm);
    return out != 0;
  }

  void Communicator::barrier() const
  {
    if (size_ > 1)
      MPI_Barrier(handle_->comm);
  }

  std::string Communicator::broadcast(const std::string &text, int root) const
  {
    if (size_ == 1)
      return text;
    long long n = rank_ == root ? (long long)text.size() : 0;
    MPI_Bcast(&n, 1, MPI_LONG_LONG, root, handle_->comm);
    std::string out = rank_ == root ? text : std::string(std::size_t(n), ' ');
    if (n > 0)
      MPI_Bcast(out.data(), message_count(std::size_t(n)), MPI_CHAR, root, handle_->comm);
    return out;
  }

  std::string Communicator::first_error(const std::string &mine) const
  {
    if (size_ == 1)
      return mine;
    int in = mine.empty() ? size_ : rank_, first = size_;
    MPI_Allreduce(&in, &first, 1, MPI_INT, MPI_MIN, handle_->comm);
    return first == size_ ? std::string() : broadcast(mine, first);
  }

  void Communicator::send_receive(const double *send, int dest, double *receive, int source, index_t n, int tag) const
  {
    if (size_ == 1)
      {
        if (dest > 0 || source > 0)
          throw std::invalid_argument("Communicator::send_receive: rank " + std::to_string(std::max(dest, source)) +
                                      " of a one-rank run");
        if (dest == 0 && source == 0)
          std::copy(send, send + n, receive);
        return;
      }
    const int count = message_count(std::size_t(n) * sizeof(double)) / int(sizeof(double));
    MPI_Sendrecv(send, count, MPI_DOUBLE, dest < 0 ? MPI_PROC_NULL : dest, tag, receive, count, MPI_DOUBLE,
                 source < 0 ? MPI_PROC_NULL : source, tag, handle_->comm, MPI_STATUS_IGNORE);
  }

  void Communicator::exchange(const std::vector<Message> &sends, const std::vector<Message> &receives, int tag) const
  {
    if (size_ == 1)
      return exchange_with_self(sends, receives);
    for (const Message &m : sends) // every size checked before anything is posted
      message_count(m.bytes);
    for (const Message &m : receives)
      message_count(m.bytes);
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + receives.size());
    for (const Message &m : receives)
      {
        requests.emplace_back();
        MPI_Irecv(m.data, message_count(m.bytes), MPI_BYTE, m.rank, tag, handle_->comm, &requests.back());
      }
    for (const Message &m : sends)
      {
        requests.emplace_back();
        MPI_Isend(m.data, message_count(m.bytes), MPI_BYTE, m.rank, tag, handle_->comm, &requests.back());
      }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  }

  namespace
  {
    /// This rank's place among the ranks on its host, and their number.
    std::pair<int, int> host_rank_and_size(MPI_Comm comm, int rank)
    {
      MPI_Comm node;
      MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
      int r = 0, n = 1;
      MPI_Comm_rank(node, &r);
      MPI_Comm_size(node, &n);
      MPI_Comm_free(&node);
      return {r, n};
    }
  } // namespace

  int Communicator::local_rank() const { return size_ == 1 ? 0 : host_rank_and_size(handle_->comm, rank_).first; }
  int Communicator::local_size() const { return size_ == 1 ? 1 : host_rank_and_size(handle_->comm, rank_).second; }

  void Communicator::abort(int code) const
  {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
      MPI_Abort(handle_ ? handle_->comm : MPI_COMM_WORLD, code);
    std::exit(code);
  }

  bool Communicator::with_mpi() { return true; }

  bool Communicator::device_aware_mpi()
  {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    int initialized = 0;
    MPI_Initialized(&initialized);
    return initialized && MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }

  MpiSession::MpiSession(int &argc, char **&argv)
  {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized && launched_by_mpi())
      {
        MPI_Init(&argc, &argv);
        finalize_ = true;
      }
    share_host_cores(Communicator::world().local_size());
  }

  MpiSession::~MpiSession()
  {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalize_ && !finalized)
      MPI_Finalize();
  }
#else
  Communicator Communicator::world() { return Communicator(); }
  double       Communicator::sum(double value) const { return value; }
  index_t      Communicator::sum(index_t value) const { return value; }
  void         Communicator::sum(double *, int) const {}
  void         Communicator::all_gather(const double *send, int n, double *receive) const
  {
    std::copy(send, send + n, receive);
  }
  double      Communicator::all_gather_seconds() { return 0; }
  double      Communicator::max(double value) const { return value; }
  index_t     Communicator::max(index_t value) const { return value; }
  bool        Communicator::any(bool flag) const { return flag; }
  void        Communicator::barrier() const {}
  std::string Communicator::broadcast(const std::string &text, int) const { return text; }
  std::string Communicator::first_error(const std::string &mine) const { return mine; }
  void Communicator::send_receive(const double *send, int dest, double *receive, int source, index_t n, int) const
  {
    if (dest > 0 || source > 0)
      throw std::invalid_argument("Communicator::send_receive: rank " + std::to_string(std::max(dest, source)) +
                                  " of a one-rank run (built without MPI)");
    if (dest == 0 && source == 0)
      std::copy(send, send + n, receive);
  }
  void Communicator::exchange(const std::vector<Message> &sends, const std::vector<Message> &receives, int) const
  {
    exchange_with_self(sends, receives);
  }
  int  Communicator::local_rank() const { return 0; }
  int  Communicator::local_size() const { return 1; }
  void Communicator::abort(int code) const { std::exit(code); }
  bool Communicator::with_mpi() { return false; }
  bool Communicator::device_aware_mpi() { return false; }

  MpiSession::MpiSession(int &, char **&) { share_host_cores(1); }
  MpiSession::~MpiSession() = default;
#endif
} // namespace tpmg
