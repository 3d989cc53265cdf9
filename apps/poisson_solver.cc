// poisson_solver: solve -Δu = f on a box with Q_k elements, GMRES/CG/FMG with a vertex-patch
// multigrid V-cycle, on the GPU when one is present. See README.md and docs/interface.md.
#include <tpmg/communicator.h>
#include <tpmg/device.h>
#include <tpmg/parameters.h>
#include <tpmg/partition.h>
#include <tpmg/poisson.h>
#include <tpmg/report.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/vtu.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

/// When the process began (static initialization), for the report's process time.
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

namespace
{
  const char *usage = R"(usage: poisson_solver [FILE.prm] [options]
       mpirun -np N poisson_solver [FILE.prm] [options]

Solves -Δu = f, u = g on the boundary, with Q_k elements on a Cartesian (or deformed) mesh of
a box, by GMRES (or CG, or full multigrid) with a geometric multigrid V-cycle and vertex-patch
smoothers, on the GPU when one is present. Under mpirun the mesh is split over the ranks, one
GPU per rank (ranks share GPUs when there are fewer), with the one-rank result.

  FILE.prm                   parameters in deal.II ParameterHandler syntax
                             (without a file, all parameters take their defaults)
  --set "Section/Name=value" override one parameter (repeatable), e.g.
                             --set "Multigrid/Precision=double"
  --json OUT.json            write the summary as JSON (same as Output/JSON file)
  --print-parameters         print every parameter, documented, as a .prm file
  --help                     this text

Exit codes: 0 converged, 1 not converged or failed at run time, 2 bad input.
)";

  /// Rank 0 of the run, which alone prints and writes the reports.
  bool root = true;

  /// Bad input: one line from rank 0, exit code 2 on every rank (every rank finds the same).
  int bad_input(const std::string &message)
  {
    if (root)
      std::cerr << message << std::endl;
    return 2;
  }

  /// A stream that discards what it gets (the progress log of ranks other than 0).
  struct NullBuffer : std::streambuf
  {
    int overflow(int c) override { return c; }
  };

  /// What the command line asks for.
  struct CommandLine
  {
    std::string              file, json;
    std::vector<std::string> overrides;
    bool                     print_parameters = false, help = false;
  };

  /// The command line; an error in it as ParameterError (a `--set` without '=' is checked here,
  /// before the file is read: `--set Mesh/Refinement level=2` without quotes would otherwise
  /// report "level=2" as a parameter file that cannot be opened).
  CommandLine parse_command_line(int argc, char **argv, tpmg::ParameterHandler &prm)
  {
    using tpmg::ParameterError;
    CommandLine c;
    for (int i = 1; i < argc; ++i)
      {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h")
          {
            c.help = true; // what follows is not read
            return c;
          }
        else if (a == "--print-parameters")
          c.print_parameters = true;
        else if (a == "--set" || a == "--json")
          {
            if (i + 1 >= argc)
              throw ParameterError("poisson_solver: " + a + " needs an argument (see --help)");
            const std::string value = argv[i + 1];
            if (a == "--set" && value.find('=') == std::string::npos)
              try
                {
                  prm.set_override(value); // throws the message of an argument without '='
                }
              catch (const ParameterError &e)
                {
                  const bool split = i + 2 < argc && std::strchr(argv[i + 2], '=') && argv[i + 2][0] != '-';
                  throw ParameterError(
                    e.what() + (split ? "; did you mean --set \"" + value + " " + argv[i + 2] + "\"?" : std::string()));
                }
            (a == "--set" ? c.overrides.emplace_back(argv[++i]) : (c.json = argv[++i]));
          }
        else if (a.size() > 1 && a[0] == '-')
          throw ParameterError("poisson_solver: unknown option '" + a + "' (see --help)");
        else if (c.file.empty())
          c.file = a;
        else
          throw ParameterError("poisson_solver: more than one parameter file given ('" + c.file + "', '" + a + "')");
      }
    return c;
  }

  /// The parameters of the file and the overrides, with the checks that need the whole input:
  /// the VTU size, and (on rank 0, which writes them) whether the outputs can be written.
  tpmg::SolverParameters read_input(tpmg::ParameterHandler &prm, const CommandLine &c)
  {
    using namespace tpmg;
    SolverParameters params = read_parameters(prm);
    params.source = c.file.empty() && c.overrides.empty() ? "defaults" : c.file; // run-time errors name the inputs
    for (const auto &o : c.overrides)
      params.source += (params.source.empty() ? "" : " ") + std::string("--set ") + o;
    if (!c.json.empty())
      params.json_file = c.json;
    if (!params.vtu_file.empty() && params.vtu_format == VtuFormat::ascii)
      {
        std::array<index_t, 3> cells{{1, 1, 1}};
        for (int d = 0; d < params.dim; ++d)
          cells[d] = index_t(params.coarse_cells[d]) << params.refinement_level;
        checked_level_dofs(params.dim, params.degree, cells); // (names a level too large to index)
        index_t nodes = 1;
        for (int d = 0; d < params.dim; ++d)
          nodes *= index_t(vtu_node_indices(cells[d] * params.degree + 1, 0, params.vtu_stride).size());
        if (nodes > max_vtu_nodes)
          throw ParameterError(prm.where("Output/VTU file") + ": an ASCII VTU file of " + std::to_string(nodes) +
                               " nodes is refused (at most " + std::to_string(max_vtu_nodes) +
                               "); set Output/VTU format = binary or a larger Output/VTU stride");
      }
    auto check_output = [](const std::string &path, const std::string &label) {
      if (!path.empty())
        if (const std::string why = output_path_problem(path); !why.empty())
          throw ParameterError(label + ": cannot write '" + path + "' (" + why + ")");
    };
    if (root)
      {
        check_output(params.json_file, c.json.empty() ? prm.where("Output/JSON file") : "--json " + c.json);
        check_output(params.csv_file, prm.where("Output/CSV file"));
        check_output(params.vtu_file, prm.where("Output/VTU file"));
      }
    return params;
  }

  /// The solve and its reports; the exit code. Errors that every rank finds alike (the
  /// partition, the memory check, the parameters) end every rank with exit code 2; any other
  /// error may have happened on one rank only, while the others wait for it: on several ranks it
  /// ends the whole run (MPI_Abort).
  int solve(const tpmg::SolverParameters &params, const tpmg::Communicator &world)
  {
    using namespace tpmg;
    const bool several = world.size() > 1;
    auto       fail    = [&](int code, const std::string &message) {
      if (!several)
        {
          std::cerr << message << std::endl;
          return code;
        }
      std::cerr << "rank " << world.rank() << ": " << message << std::endl;
      world.abort(code);
    };
    try
      {
        NullBuffer   discard;
        std::ostream quiet(&discard);
        RunResult    r   = run_poisson(params, root ? std::cout : quiet, world);
        r.process_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - process_start).count();
        if (root)
          {
            for (const std::string &w : r.warnings)
              std::cerr << "poisson_solver: warning: " << w << std::endl;
            print_report(std::cout, r);
            if (!params.json_file.empty())
              write_json_file(params.json_file, r);
            if (!params.csv_file.empty())
              write_csv_file(params.csv_file, r);
          }
        if (!r.converged)
          {
            if (root)
              std::cerr << "poisson_solver: not converged: " << r.failure << std::endl;
            return 1;
          }
        return 0;
      }
    catch (const ParameterError &e)
      {
        return bad_input(e.what());
      }
    catch (const PartitionError &e)
      {
        return bad_input(params.source + ": " + e.what());
      }
    catch (const OutOfMemoryError &e)
      {
        return bad_input(params.source + ": " + e.what());
      }
    catch (const std::invalid_argument &e)
      {
        return fail(2, params.source + ": " + e.what());
      }
    catch (const CollectiveError &e) // every rank ends here alike
      {
        if (root)
          std::cerr << "poisson_solver: error: " << e.what() << std::endl;
        return 1;
      }
    catch (const std::exception &e)
      {
        return fail(1, std::string("poisson_solver: error: ") + e.what());
      }
  }
} // namespace

int main(int argc, char **argv)
{
  using namespace tpmg;
  MpiSession         mpi(argc, argv);
  const Communicator world = Communicator::world();
  root                     = world.rank() == 0;
  // one GPU per rank where the host has several, in the order of the ranks on the host
  if (world.size() > 1 && cuda_compiled())
    if (const int gpus = cuda_device_count(); gpus > 0)
      select_cuda_device(world.local_rank() % gpus);
  ParameterHandler prm;
  declare_parameters(prm);

  CommandLine command;
  try
    {
      command = parse_command_line(argc, argv, prm);
    }
  catch (const ParameterError &e)
    {
      return bad_input(e.what());
    }
  if (command.help)
    {
      if (root)
        std::cout << usage;
      return 0;
    }

  // The input, read on every rank: an error is found alike on every rank (the same file), or on
  // some ranks only (a file one host cannot read); the ranks agree on it before going on, and
  // rank 0 reports it.
  SolverParameters params;
  std::string      input_error;
  try
    {
      if (!command.file.empty())
        prm.parse_file(command.file);
      for (const auto &o : command.overrides)
        prm.set_override(o);
      if (!command.print_parameters)
        params = read_input(prm, command);
    }
  catch (const ParameterError &e)
    {
      input_error = e.what();
    }
  if (const std::string error = world.first_error(input_error); !error.empty())
    return bad_input(error);
  if (command.print_parameters)
    {
      if (root)
        prm.print(std::cout);
      return 0;
    }
  return solve(params, world);
}
