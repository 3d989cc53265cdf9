// The choice of the exchange path (Backend/Exchange), the detection of an MPI launcher and each
// rank's share of the host's cores: the logic around the transports, on the CPU.
#include <tpmg/communicator.h>
#include <tpmg/parameters.h>
#include <tpmg/solver_parameters.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace tpmg;

namespace
{
  ExchangeCapabilities can(Backend b, bool nccl, bool aware, bool gpu_per_rank = true)
  {
    ExchangeCapabilities c;
    c.backend          = b;
    c.nccl             = nccl;
    c.device_aware_mpi = aware;
    c.gpu_per_rank     = gpu_per_rank;
    return c;
  }

  /// The message resolve_exchange throws, "" where it resolves.
  std::string refusal(ExchangePath requested, const ExchangeCapabilities &c)
  {
    try
      {
        resolve_exchange(requested, c);
        return "";
      }
    catch (const std::invalid_argument &e)
      {
        return e.what();
      }
  }
} // namespace

TEST(Exchange, AutomaticTakesTheFastestPathThereIs)
{
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cuda, true, true)), ExchangePath::nccl);
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cuda, true, false)), ExchangePath::nccl);
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cuda, false, true)), ExchangePath::mpi);
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cuda, false, false)), ExchangePath::host);
  // ranks that share a GPU cannot use NCCL
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cuda, true, true, false)), ExchangePath::mpi);
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cuda, true, false, false)), ExchangePath::host);
  // the CPU backend's vectors are in host memory already, whatever the build has
  for (bool nccl : {false, true})
    for (bool aware : {false, true})
      EXPECT_EQ(resolve_exchange(ExchangePath::automatic, can(Backend::cpu, nccl, aware)), ExchangePath::host);
}

TEST(Exchange, AnExplicitPathIsTakenOrRefusedNamingWhatIsMissing)
{
  EXPECT_EQ(resolve_exchange(ExchangePath::nccl, can(Backend::cuda, true, false)), ExchangePath::nccl);
  EXPECT_EQ(resolve_exchange(ExchangePath::mpi, can(Backend::cuda, true, true)), ExchangePath::mpi);
  EXPECT_EQ(resolve_exchange(ExchangePath::host, can(Backend::cuda, true, true)), ExchangePath::host);
  EXPECT_EQ(resolve_exchange(ExchangePath::host, can(Backend::cpu, false, false)), ExchangePath::host);

  EXPECT_NE(refusal(ExchangePath::nccl, can(Backend::cuda, false, true)).find("this build has no NCCL"),
            std::string::npos);
  EXPECT_NE(refusal(ExchangePath::nccl, can(Backend::cpu, true, true)).find("needs the GPU backend"),
            std::string::npos);
  EXPECT_NE(refusal(ExchangePath::nccl, can(Backend::cuda, true, true, false)).find("needs a GPU per rank"),
            std::string::npos);
  EXPECT_NE(refusal(ExchangePath::mpi, can(Backend::cuda, true, false)).find("not CUDA-aware"), std::string::npos);
  EXPECT_NE(refusal(ExchangePath::mpi, can(Backend::cpu, true, true)).find("this run is on the CPU"),
            std::string::npos);
  // one line each, naming the parameter
  for (ExchangePath p : {ExchangePath::nccl, ExchangePath::mpi})
    {
      const std::string m = refusal(p, can(Backend::cpu, false, false));
      EXPECT_EQ(m.find('\n'), std::string::npos);
      EXPECT_EQ(m.rfind("Backend/Exchange = ", 0), 0u) << m;
    }
}

TEST(Exchange, ThisBuildsCapabilitiesAreConsistent)
{
  const ExchangeCapabilities c = Communicator::self().capabilities(Backend::cpu, 0);
  EXPECT_EQ(c.nccl, Communicator::with_nccl());
  EXPECT_FALSE(c.gpu_per_rank); // one rank, no GPU
  EXPECT_TRUE(Communicator::self().capabilities(Backend::cuda, 1).gpu_per_rank);
  EXPECT_EQ(resolve_exchange(ExchangePath::automatic, c), ExchangePath::host);
  // a one-rank communicator takes any resolved path and exchanges with itself alone
  const Communicator self = Communicator::self().with_exchange(ExchangePath::host);
  EXPECT_EQ(self.exchange_path(), ExchangePath::host);
  EXPECT_THROW(Communicator::self().with_exchange(ExchangePath::automatic), std::invalid_argument);
}

TEST(Exchange, TheParameterReadsEveryPathAndRefusesOthers)
{
  for (const char *name : {"auto", "nccl", "mpi", "host"})
    {
      ParameterHandler prm;
      declare_parameters(prm);
      prm.set_override(std::string("Backend/Exchange=") + name);
      EXPECT_EQ(to_string(read_parameters(prm).exchange), std::string(name));
    }
  ParameterHandler prm;
  declare_parameters(prm);
  EXPECT_THROW(prm.set_override("Backend/Exchange=ucx"), ParameterError);
  // the cap on NCCL's channels: 0 (NCCL's default) to 64
  EXPECT_EQ(read_parameters(prm).nccl_channels, 0);
  prm.set_override("Backend/NCCL channels=8");
  EXPECT_EQ(read_parameters(prm).nccl_channels, 8);
  EXPECT_THROW(prm.set_override("Backend/NCCL channels=65"), ParameterError);
  EXPECT_THROW(prm.set_override("Backend/NCCL channels=-1"), ParameterError);
}

TEST(MpiSession, StartsMpiOnlyUnderALauncher)
{
  const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK",      "PMI_RANK", "PMI_SIZE",
                        "MV2_COMM_WORLD_SIZE",  "MPI_LOCALNRANKS"};
  std::string saved[6];
  bool        had[6];
  for (int i = 0; i < 6; ++i)
    {
      const char *v = std::getenv(vars[i]);
      had[i]        = v != nullptr;
      saved[i]      = v ? v : "";
      unsetenv(vars[i]);
    }
  EXPECT_FALSE(MpiSession::launched_by_mpi());
  for (int i = 0; i < 6; ++i)
    {
      setenv(vars[i], "2", 1);
      EXPECT_TRUE(MpiSession::launched_by_mpi()) << vars[i];
      unsetenv(vars[i]);
    }
  for (int i = 0; i < 6; ++i)
    if (had[i])
      setenv(vars[i], saved[i].c_str(), 1);
}

TEST(MpiSession, EachRankGetsItsShareOfTheHostsCores)
{
  EXPECT_EQ(threads_per_rank(64, 64, 4), 16); // unbound ranks: the host divided
  EXPECT_EQ(threads_per_rank(64, 64, 1), 64);
  EXPECT_EQ(threads_per_rank(1, 64, 2), 1);   // a rank bound to one core keeps one
  EXPECT_EQ(threads_per_rank(8, 64, 2), 8);   // bound to a socket of 8: no more than that
  EXPECT_EQ(threads_per_rank(2, 2, 8), 1);    // oversubscribed: one thread each
  EXPECT_EQ(threads_per_rank(16, 16, 0), 16); // (no count: the process alone)
}
