#include <tpmg/communicator.h>
#include <tpmg/device.h>
#include <tpmg/dispatch.h>
#include <tpmg/parameters.h>
#include <tpmg/poisson.h>

namespace tpmg
{
  namespace internal
  {
    /// The solver for one (dim, degree, V-cycle precision): poisson_impl.h, instantiated from
    /// poisson.inst.in for every solver degree.
    template <int dim, int k, typename Number>
    std::unique_ptr<PoissonSolver::Impl> make_solver(const SolverParameters &p, Backend backend, std::ostream &log,
                                                     const Communicator &comm);
  } // namespace internal

  Backend select_backend(const SolverParameters &p)
  {
    switch (p.device)
      {
        case DeviceChoice::cpu:
          return Backend::cpu;
        case DeviceChoice::cuda:
          if (!cuda_compiled())
            throw ParameterError(p.source + ": Backend/Device = cuda, but this build has no CUDA backend");
          if (!cuda_device_available())
            throw ParameterError(p.source + ": Backend/Device = cuda, but no CUDA device is available");
          return Backend::cuda;
        case DeviceChoice::automatic:
          break;
      }
    return cuda_compiled() && cuda_device_available() ? Backend::cuda : Backend::cpu;
  }

  RunResult run_poisson(const SolverParameters &p, std::ostream &log)
  {
    return run_poisson(p, log, Communicator::self());
  }

  RunResult run_poisson(const SolverParameters &p, std::ostream &log, const Communicator &comm)
  {
    return PoissonSolver(p, log, comm).solve();
  }

  PoissonSolver::PoissonSolver(const SolverParameters &p, std::ostream &log)
    : PoissonSolver(p, log, Communicator::self())
  {}
  PoissonSolver::~PoissonSolver()                                    = default;
  PoissonSolver::PoissonSolver(PoissonSolver &&) noexcept            = default;
  PoissonSolver &PoissonSolver::operator=(PoissonSolver &&) noexcept = default;
  const RunResult              &PoissonSolver::setup_result() const { return impl_->setup_result(); }
  RunResult                     PoissonSolver::solve() { return impl_->solve(); }
  RunResult                     PoissonSolver::solve(const ProblemFunctions &problem) { return impl_->solve(problem); }
  RunResult                     PoissonSolver::solve(const Vector<double> &b) { return impl_->solve(b); }
  void                          PoissonSolver::update_coefficient(const std::string &coefficient)
  {
    impl_->update_coefficients(&coefficient, nullptr);
  }
  void PoissonSolver::update_coefficients(const std::string &coefficient, const std::string &reaction)
  {
    impl_->update_coefficients(&coefficient, &reaction);
  }
  const Vector<double>                   &PoissonSolver::solution() const { return impl_->solution(); }
  const std::shared_ptr<const BoxLayout> &PoissonSolver::layout() const { return impl_->layout(); }
  std::vector<double> PoissonSolver::values_at(const std::vector<std::array<double, 3>> &points) const
  {
    return impl_->values_at(points);
  }

  PoissonSolver::PoissonSolver(const SolverParameters &p, std::ostream &log, const Communicator &comm)
  {
    p.problem_functions(); // (expressions that do not parse: an ExpressionError naming the field)
    // every rank must find a usable backend, and the same one
    Backend     b = Backend::cpu;
    std::string why;
    try
      {
        b = select_backend(p);
      }
    catch (const ParameterError &e)
      {
        why = e.what();
      }
    if (const std::string error = comm.first_error(why); !error.empty())
      throw ParameterError(error);
    if (comm.any(b == Backend::cuda) && comm.any(b == Backend::cpu))
      throw ParameterError(p.source + ": Backend/Device = auto found GPUs on some ranks' hosts only; set cpu or "
                                      "cuda");
    // the exchange path, checked on one rank too (the same file on several ranks must work), set
    // up where several ranks exchange
    ExchangePath path = ExchangePath::host;
    try
      {
        path = resolve_exchange(p.exchange, comm.capabilities(b, b == Backend::cuda ? cuda_device_count() : 0));
      }
    catch (const std::invalid_argument &e)
      {
        why = p.source + ": " + e.what();
      }
    if (const std::string error = comm.first_error(why); !error.empty())
      throw ParameterError(error);
    const Communicator ranks = comm.size() > 1 ? comm.with_exchange(path, p.nccl_channels) : comm;
    impl_                    = dispatch_dim(p.dim, [&](auto D) {
      constexpr int dim = decltype(D)::value;
      return dispatch_degree<max_solver_degree(dim)>(p.degree, [&](auto K) {
        constexpr int k = decltype(K)::value;
        return p.precision == Precision::fp32 ? internal::make_solver<dim, k, float>(p, b, log, ranks)
                                                                 : internal::make_solver<dim, k, double>(p, b, log, ranks);
      });
    });
  }
} // namespace tpmg
