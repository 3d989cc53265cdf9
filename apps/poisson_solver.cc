// poisson_solver: solve -Δu = f on a box with Q_k elements, GMRES/CG/FMG with a vertex-patch
// multigrid V-cycle, on the GPU when one is present. See README.md and docs/interface.md.
#include <tpmg/parameters.h>
#include <tpmg/poisson.h>
#include <tpmg/report.h>
#include <tpmg/solver_parameters.h>
#include <tpmg/vtu.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace
{
  const char *usage = R"(usage: poisson_solver [FILE.prm] [options]

Solves -Δu = f, u = 0 on the boundary, with Q_k elements on a Cartesian mesh of a box,
by GMRES (or CG, or full multigrid) with a geometric multigrid V-cycle and vertex-patch
smoothers, on the GPU when one is present.

  FILE.prm                   parameters in deal.II ParameterHandler syntax
                             (without a file, all parameters take their defaults)
  --set "Section/Name=value" override one parameter (repeatable), e.g.
                             --set "Multigrid/Precision=double"
  --json OUT.json            write the summary as JSON (same as Output/JSON file)
  --print-parameters         print every parameter, documented, as a .prm file
  --help                     this text

Exit codes: 0 converged, 1 not converged or failed at run time, 2 bad input.
)";

  int bad_input(const std::string &message)
  {
    std::cerr << message << std::endl;
    return 2;
  }

  /// The rank count when started by an MPI launcher (its environment), 1 otherwise. The
  /// application solves on one rank: several would each run the whole problem.
  int launcher_ranks(int &rank)
  {
    for (const char *size_var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
      if (const char *v = std::getenv(size_var))
        {
          const char *r = std::getenv(std::string(size_var) == "OMPI_COMM_WORLD_SIZE" ? "OMPI_COMM_WORLD_RANK"
                                      : std::string(size_var) == "PMI_SIZE"           ? "PMI_RANK"
                                                                                      : "PMIX_RANK");
          rank          = r ? std::atoi(r) : 0;
          return std::max(1, std::atoi(v));
        }
    return 1;
  }
} // namespace

int main(int argc, char **argv)
{
  using namespace tpmg;
  if (int rank = 0, ranks = launcher_ranks(rank); ranks > 1)
    {
      if (rank == 0)
        std::cerr << "poisson_solver: started on " << ranks
                  << " MPI ranks; it solves on one rank (run it without mpirun, or with -np 1)" << std::endl;
      return 2;
    }
  ParameterHandler prm;
  declare_parameters(prm);

  std::string              file, json;
  std::vector<std::string> overrides;
  bool                     print_parameters = false;
  for (int i = 1; i < argc; ++i)
    {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h")
        {
          std::cout << usage;
          return 0;
        }
      else if (a == "--print-parameters")
        print_parameters = true;
      else if (a == "--set" || a == "--json")
        {
          if (i + 1 >= argc)
            return bad_input("poisson_solver: " + a + " needs an argument (see --help)");
          // before the file is read: `--set Mesh/Refinement level=2` without quotes would
          // otherwise report "level=2" as a parameter file that cannot be opened
          const std::string value = argv[i + 1];
          if (a == "--set" && value.find('=') == std::string::npos)
            try
              {
                prm.set_override(value); // throws the message of an argument without '='
              }
            catch (const ParameterError &e)
              {
                const bool split = i + 2 < argc && std::strchr(argv[i + 2], '=') && argv[i + 2][0] != '-';
                return bad_input(
                  e.what() + (split ? "; did you mean --set \"" + value + " " + argv[i + 2] + "\"?" : std::string()));
              }
          (a == "--set" ? overrides.emplace_back(argv[++i]) : (json = argv[++i]));
        }
      else if (a.size() > 1 && a[0] == '-')
        return bad_input("poisson_solver: unknown option '" + a + "' (see --help)");
      else if (file.empty())
        file = a;
      else
        return bad_input("poisson_solver: more than one parameter file given ('" + file + "', '" + a + "')");
    }

  SolverParameters params;
  try
    {
      if (!file.empty())
        prm.parse_file(file);
      for (const auto &o : overrides)
        prm.set_override(o);
      if (print_parameters)
        {
          prm.print(std::cout);
          return 0;
        }
      params        = read_parameters(prm);
      params.source = file.empty() && overrides.empty() ? "defaults" : file; // run-time errors name the inputs
      for (const auto &o : overrides)
        params.source += (params.source.empty() ? "" : " ") + std::string("--set ") + o;
      if (!json.empty())
        params.json_file = json;
      // the outputs can be written: checked before any work
      auto check_output = [](const std::string &path, const std::string &label) {
        if (!path.empty())
          if (const std::string why = output_path_problem(path); !why.empty())
            throw ParameterError(label + ": cannot write '" + path + "' (" + why + ")");
      };
      check_output(params.json_file, json.empty() ? prm.where("Output/JSON file") : "--json " + json);
      check_output(params.csv_file, prm.where("Output/CSV file"));
      check_output(params.vtu_file, prm.where("Output/VTU file"));
      if (!params.vtu_file.empty())
        {
          std::array<index_t, 3> cells{{1, 1, 1}};
          for (int d = 0; d < params.dim; ++d)
            cells[d] = index_t(params.coarse_cells[d]) << params.refinement_level;
          const index_t nodes = checked_level_dofs(params.dim, params.degree, cells);
          if (nodes > max_vtu_nodes)
            throw ParameterError(prm.where("Output/VTU file") + ": a VTU file of " + std::to_string(nodes) +
                                 " nodes is refused (at most " + std::to_string(max_vtu_nodes) +
                                 "); lower Mesh/Refinement level");
        }
    }
  catch (const ParameterError &e)
    {
      return bad_input(e.what());
    }

  try
    {
      const RunResult r = run_poisson(params, std::cout);
      print_report(std::cout, r);
      if (!params.json_file.empty())
        write_json_file(params.json_file, r);
      if (!params.csv_file.empty())
        write_csv_file(params.csv_file, r);
      if (!r.converged)
        {
          std::cerr << "poisson_solver: not converged: " << r.failure << std::endl;
          return 1;
        }
      return 0;
    }
  catch (const ParameterError &e)
    {
      return bad_input(e.what());
    }
  catch (const OutOfMemoryError &e)
    {
      return bad_input(params.source + ": " + e.what());
    }
  catch (const std::invalid_argument &e)
    {
      return bad_input(params.source + ": " + e.what());
    }
  catch (const std::exception &e)
    {
      std::cerr << "poisson_solver: error: " << e.what() << std::endl;
      return 1;
    }
}
