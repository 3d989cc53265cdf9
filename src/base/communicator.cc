// tpmg::Communicator over MPI (TPMG_WITH_MPI) or a single rank.
#include <tpmg/communicator.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#ifdef TPMG_WITH_MPI
#include <mpi.h>
#endif

namespace tpmg
{
#ifdef TPMG_WITH_MPI
  struct Communicator::Handle
  {
    MPI_Comm comm;
  };

  Communicator Communicator::world()
  {
    Communicator c;
    c.handle_ = std::make_shared<const Handle>(Handle{MPI_COMM_WORLD});
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size_);
    return c;
  }

  Communicator Communicator::self()
  {
    Communicator c;
    c.handle_ = std::make_shared<const Handle>(Handle{MPI_COMM_SELF});
    return c;
  }

  double Communicator::sum(double value) const
  {
    double r = value;
    MPI_Allreduce(&value, &r, 1, MPI_DOUBLE, MPI_SUM, handle_->comm);
    return r;
  }

  index_t Communicator::sum(index_t value) const
  {
    static_assert(sizeof(index_t) == sizeof(std::int64_t));
    index_t r = value;
    MPI_Allreduce(&value, &r, 1, MPI_INT64_T, MPI_SUM, handle_->comm);
    return r;
  }

  double Communicator::max(double value) const
  {
    double r = value;
    MPI_Allreduce(&value, &r, 1, MPI_DOUBLE, MPI_MAX, handle_->comm);
    return r;
  }

  void Communicator::barrier() const { MPI_Barrier(handle_->comm); }

  void Communicator::send_receive(const double *send, int dest, double *receive, int source, index_t n, int tag) const
  {
    if (n > index_t(std::numeric_limits<int>::max()))
      throw std::invalid_argument("Communicator::send_receive: " + std::to_string(n) +
                                  " values exceed one MPI message");
    MPI_Sendrecv(send, int(n), MPI_DOUBLE, dest < 0 ? MPI_PROC_NULL : dest, tag, receive, int(n), MPI_DOUBLE,
                 source < 0 ? MPI_PROC_NULL : source, tag, handle_->comm, MPI_STATUS_IGNORE);
  }
  bool Communicator::with_mpi() { return true; }

  MpiSession::MpiSession(int &argc, char **&argv)
  {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
      {
        MPI_Init(&argc, &argv);
        finalize_ = true;
      }
  }

  MpiSession::~MpiSession()
  {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalize_ && !finalized)
      MPI_Finalize();
  }
#else
  struct Communicator::Handle
  {};

  Communicator Communicator::world() { return Communicator(); }
  Communicator Communicator::self() { return Communicator(); }
  double       Communicator::sum(double value) const { return value; }
  index_t      Communicator::sum(index_t value) const { return value; }
  double       Communicator::max(double value) const { return value; }
  void         Communicator::barrier() const {}
  void Communicator::send_receive(const double *send, int dest, double *receive, int source, index_t n, int) const
  {
    if (dest > 0 || source > 0)
      throw std::invalid_argument("Communicator::send_receive: rank " + std::to_string(std::max(dest, source)) +
                                  " of a one-rank run (built without MPI)");
    if (dest == 0 && source == 0)
      std::copy(send, send + n, receive);
  }
  bool Communicator::with_mpi() { return false; }

  MpiSession::MpiSession(int &, char **&) {}
  MpiSession::~MpiSession() = default;
#endif
} // namespace tpmg
