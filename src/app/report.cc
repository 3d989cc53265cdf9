#include <tpmg/boundary_conditions.h>
#include <tpmg/point_values.h>
#include <tpmg/report.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace tpmg
{
  namespace
  {
    std::string json_string(const std::string &s)
    {
      std::string out = "\"";
      for (char c : s)
        switch (c)
          {
            case '"':
              out += "\\\"";
              break;
            case '\\':
              out += "\\\\";
              break;
            case '\n':
              out += "\\n";
              break;
            case '\t':
              out += "\\t";
              break;
            default:
              if (static_cast<unsigned char>(c) < 0x20)
                {
                  char buf[8];
                  std::snprintf(buf, sizeof buf, "\\u%04x", c);
                  out += buf;
                }
              else
                out += c;
          }
      return out + "\"";
    }

    std::string json_number(double v)
    {
      if (!std::isfinite(v))
        return "null";
      std::ostringstream s;
      s << std::setprecision(17) << v;
      return s.str();
    }
  } // namespace

  void print_report(std::ostream &out, const RunResult &r)
  {
    const auto flags = out.flags();
    out << "\n=== Result: " << r.dim << "D Q" << r.degree << ", level " << r.level << ", " << r.dofs << " DoFs, "
        << r.solver << " with " << r.precision << " V-cycle, " << r.smoother << " (" << r.smoother_kernel << ", "
        << r.kernel_optimization << "), " << r.level_operator << " operator, on " << r.backend << ": " << r.device
        << "\n";
    out << std::left << std::setw(14) << "DoFs" << std::setw(8) << "its" << std::setw(12) << "rel.res" << std::setw(10)
        << "rate" << std::setw(12) << "solve [s]" << std::setw(12) << "DoF/s" << std::setw(12) << "L2 error"
        << std::setw(12) << "H1 error" << std::setw(12) << "memory"
        << "\n";
    out << std::setw(14) << r.dofs << std::setw(8) << r.iterations << std::scientific << std::setprecision(2)
        << std::setw(12) << r.relative_residual << std::setw(10) << r.average_reduction << std::setw(12)
        << r.solve_time_s << std::setw(12) << r.dofs_per_second();
    for (const std::optional<double> &e : {r.l2_error, r.h1_error}) // (only where an exact solution is known)
      if (e)
        out << std::setw(12) << *e;
      else
        out << std::setw(12) << "-";
    out << std::fixed << std::setprecision(2) << double(r.memory_bytes) / (1 << 30) << " GiB\n";
    out << "setup " << std::setprecision(3) << r.setup_time_s << " s; coarse solver on level " << r.coarsest_level
        << ": " << r.coarse_solver << (r.converged ? "" : "; NOT CONVERGED: " + r.failure) << "\n";
    if (!r.setup_breakdown.empty())
      {
        out << "setup by part [s]:" << std::defaultfloat << std::setprecision(3);
        if (r.device_init_s > 0)
          out << " (device context before it " << r.device_init_s << ")";
        for (const auto &[name, t] : r.setup_breakdown)
          out << " " << name << " " << t;
        out << std::fixed << "\n";
      }
    if (r.ranks > 1)
      out << "ranks: " << r.ranks << " (grid " << r.process_grid << "), levels from " << r.first_distributed_level
          << " distributed, level " << r.gathered_level << " gathered to rank 0, at most " << r.max_rank_dofs
          << " fine-level values per rank (ghosts included), "
          << "exchange path " << r.exchange_path << "\n";
    if (!r.smoother_configuration.empty())
      out << "smoother: " << r.smoother_configuration << "\n";
    if (r.cuda_graph && r.cuda_graph_level == r.level)
      out << "V-cycle: replayed as a CUDA graph (its levels are not timed apart: vcycle_graph)\n";
    else if (r.cuda_graph)
      out << "V-cycle: levels " << r.cuda_graph_level << " and below replayed as a CUDA graph in each cycle (timed "
          << "together as level " << r.cuda_graph_level << "'s graph)\n";
    const auto &types  = r.problem.boundary_types;
    const bool natural = std::any_of(types.begin(), types.end(), [](const std::string &t) { return t != "dirichlet"; });
    std::string faces; // the faces' types where not all are Dirichlet
    if (natural)
      {
        faces = ", faces";
        for (std::size_t f = 0; f < r.problem.boundary_types.size(); ++f)
          faces += " " + BoundaryConditions::face_name(int(f)) + " " + r.problem.boundary_types[f];
        faces += ", flux h = " + r.problem.boundary_flux + ", Robin alpha = " + r.problem.robin_coefficient;
      }
    if (!r.problem.deformation_function.empty())
      out << "domain: the box mapped by (" << r.problem.deformation_function << "), " << r.problem.mapping
          << " cells\n";
    const bool        coefficient = r.problem.coefficient != "1", reaction = r.problem.reaction_coefficient != "0";
    const std::string equation = coefficient || reaction
                                   ? std::string(coefficient ? "-div(a grad u)" : "-Laplace(u)") +
                                       (reaction ? " + c u" : "") + " = f" +
                                       (coefficient ? ", a = " + r.problem.coefficient : std::string()) +
                                       (reaction ? ", c = " + r.problem.reaction_coefficient : std::string()) + ", "
                                   : std::string();
    if (r.problem.rhs == "function" || r.problem.boundary_values != "0" || !r.problem.exact_solution.empty() ||
        !faces.empty() || coefficient || reaction)
      out << "problem: " << equation << "f = " << (r.problem.rhs == "function" ? r.problem.rhs_function : r.problem.rhs)
          << ", boundary values " << r.problem.boundary_values << faces
          << (r.problem.exact_solution.empty() ? "" : ", exact solution " + r.problem.exact_solution) << "\n";
    if (r.singular)
      out << std::scientific << std::setprecision(2) << "singular (no Dirichlet face): f + h integrate to "
          << r.compatibility_defect << " (relative " << r.compatibility_relative
          << "), taken from f; the solution shifted by " << r.solution_shift << " to "
          << (r.problem.exact_solution.empty() ? "zero mean" : "the exact solution's mean") << std::fixed << "\n";
    out << std::setprecision(6) << std::defaultfloat << "solution: min " << r.solution_min << ", max " << r.solution_max
        << ", mean " << r.solution_mean << "\n";
    for (std::size_t q = 0; q < r.points.size() && q < r.point_values.size(); ++q)
      out << "u(" << format_point(r.points[q], r.dim) << ") = " << std::setprecision(12) << r.point_values[q] << "\n";
    out << std::fixed;

    double total = 0;
    for (const auto &[name, t] : r.breakdown)
      total += t;
    out << "\nRuntime breakdown (fastest of " << r.solve_times.size() << " solve"
        << (r.solve_times.size() > 1 ? "s" : "") << ", timed sections " << std::setprecision(4) << total << " s):\n";
    for (const auto &[name, t] : r.breakdown)
      out << "  " << std::setw(18) << name << std::setw(12) << std::setprecision(6) << t << std::setw(8)
          << std::setprecision(1) << (total > 0 ? 100 * t / total : 0.0) << "%\n";
    const bool several = r.ranks > 1;
    out << "\nPer level [s]:\n  " << std::setw(7) << "level" << std::setw(14) << "DoFs" << std::setw(12) << "smoother"
        << std::setw(12) << "matvec" << std::setw(12) << "vector" << std::setw(12) << "restrict" << std::setw(12)
        << "prolongate" << std::setw(12) << "coarse" << std::setw(12) << "graph" << std::setw(12) << "total"
        << (several ? "  of which exchanges" : "") << "\n";
    out << std::setprecision(6);
    for (const LevelTimes &l : r.levels)
      {
        out << "  " << std::setw(7) << l.level << std::setw(14) << l.dofs << std::setw(12) << l.smoother
            << std::setw(12) << l.matvec << std::setw(12) << l.vector << std::setw(12) << l.restriction << std::setw(12)
            << l.prolongation << std::setw(12) << l.coarse_solve << std::setw(12) << l.graph << std::setw(12)
            << l.total();
        if (several)
          out << std::setw(12) << l.exchange << " (" << l.exchanges << ")";
        out << "\n";
      }
    out.flags(flags);
  }

  void write_json(std::ostream &out, const RunResult &r)
  {
    out << "{\n";
    auto kv = [&](const std::string &k, const std::string &v, bool last = false) {
      out << "  " << json_string(k) << ": " << v << (last ? "\n" : ",\n");
    };
    kv("dimension", std::to_string(r.dim));
    kv("degree", std::to_string(r.degree));
    kv("level", std::to_string(r.level));
    kv("dofs", std::to_string(r.dofs));
    auto string_list = [](const std::vector<std::string> &v) {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + json_string(v[i]);
      return s + "]";
    };
    {
      const ProblemSummary &q    = r.problem;
      auto                  list = [](const auto &v) {
        std::string s = "[";
        for (std::size_t i = 0; i < v.size(); ++i)
          s += (i ? ", " : "") + json_number(double(v[i]));
        return s + "]";
      };
      kv("problem",
         "{\"box_lower\": " + list(q.box_lower) + ", \"box_upper\": " + list(q.box_upper) + ", \"coarse_cells\": " +
           list(q.coarse_cells) + ", \"right_hand_side\": " + json_string(q.rhs) + ", \"right_hand_side_function\": " +
           (q.rhs == "function" ? json_string(q.rhs_function) : std::string("null")) + ", \"boundary_values\": " +
           json_string(q.boundary_values) + ", \"boundary_types\": " + string_list(q.boundary_types) +
           ", \"boundary_flux\": " + json_string(q.boundary_flux) + ", \"robin_coefficient\": " +
           json_string(q.robin_coefficient) + ", \"coefficient\": " + json_string(q.coefficient) +
           ", \"reaction_coefficient\": " + json_string(q.reaction_coefficient) +
           ", \"exact_solution\": " + (q.exact_solution.empty() ? std::string("null") : json_string(q.exact_solution)) +
           ", \"deformation\": " + json_string(q.deformation) + ", \"deformation_function\": " +
           (q.deformation_function.empty() ? std::string("null") : json_string(q.deformation_function)) +
           ", \"mapping\": " + (q.mapping.empty() ? std::string("null") : json_string(q.mapping)) +
           ", \"deformation_amplitude\": " + json_number(q.deformation_amplitude) +
           ", \"relative_tolerance\": " + json_number(q.relative_tolerance) + "}");
    }
    kv("solver", json_string(r.solver));
    kv("orthogonalization", json_string(r.orthogonalization));
    kv("precision", json_string(r.precision));
    kv("smoother", json_string(r.smoother));
    kv("smoother_kernel", json_string(r.smoother_kernel));
    kv("kernel_optimization", json_string(r.kernel_optimization));
    kv("smoother_configuration", json_string(r.smoother_configuration));
    kv("fitted_patch_kernel", r.fitted_patch_kernel.empty() ? std::string("null") : json_string(r.fitted_patch_kernel));
    kv("level_operator", json_string(r.level_operator));
    kv("backend", json_string(r.backend));
    kv("device", json_string(r.device));
    kv("coarsest_level", std::to_string(r.coarsest_level));
    kv("ranks", std::to_string(r.ranks));
    kv("process_grid", json_string(r.process_grid));
    kv("first_distributed_level", std::to_string(r.first_distributed_level));
    kv("gathered_level", std::to_string(r.gathered_level));
    kv("max_rank_dofs", std::to_string(r.max_rank_dofs));
    kv("exchange_path", r.exchange_path.empty() ? "null" : json_string(r.exchange_path));
    kv("reduction_wait_s", json_number(r.reduction_wait_s));
    kv("coarse_solver", json_string(r.coarse_solver));
    kv("cuda_graph", r.cuda_graph ? "true" : "false");
    kv("cuda_graph_level", std::to_string(r.cuda_graph_level));
    kv("iterations", std::to_string(r.iterations));
    kv("converged", r.converged ? "true" : "false");
    kv("failure", r.failure.empty() ? "null" : json_string(r.failure));
    kv("relative_residual", json_number(r.relative_residual));
    kv("average_reduction", json_number(r.average_reduction));
    std::string hist = "[";
    for (std::size_t i = 0; i < r.history.size(); ++i)
      hist += (i ? ", " : "") + json_number(r.history[i]);
    kv("residual_history", hist + "]");
    kv("singular", r.singular ? "{\"compatibility_defect\": " + json_number(r.compatibility_defect) +
                                  ", \"compatibility_relative\": " + json_number(r.compatibility_relative) +
                                  ", \"solution_shift\": " + json_number(r.solution_shift) + "}"
                              : std::string("null"));
    kv("warnings", string_list(r.warnings));
    kv("l2_error", r.l2_error ? json_number(*r.l2_error) : "null");
    kv("h1_error", r.h1_error ? json_number(*r.h1_error) : "null");
    kv("solution", "{\"min\": " + json_number(r.solution_min) + ", \"max\": " + json_number(r.solution_max) +
                     ", \"mean\": " + json_number(r.solution_mean) + "}");
    std::string points = "[";
    for (std::size_t q = 0; q < r.points.size() && q < r.point_values.size(); ++q)
      {
        points += std::string(q ? ", " : "") + "{\"point\": [";
        for (int d = 0; d < r.dim; ++d)
          points += (d ? ", " : "") + json_number(r.points[q][std::size_t(d)]);
        points += "], \"value\": " + json_number(r.point_values[q]) + "}";
      }
    kv("point_values", points + "]");
    kv("setup_time_s", json_number(r.setup_time_s));
    std::string setup = "{";
    for (std::size_t i = 0; i < r.setup_breakdown.size(); ++i)
      setup +=
        (i ? ", " : "") + json_string(r.setup_breakdown[i].first) + ": " + json_number(r.setup_breakdown[i].second);
    kv("setup_breakdown", setup + "}");
    kv("device_init_s", json_number(r.device_init_s));
    kv("process_time_s", r.process_time_s > 0 ? json_number(r.process_time_s) : std::string("null"));
    kv("rhs_time_s", json_number(r.rhs_time_s));
    kv("postprocess_time_s", json_number(r.postprocess_time_s));
    kv("solve_time_s", json_number(r.solve_time_s));
    std::string times = "[";
    for (std::size_t i = 0; i < r.solve_times.size(); ++i)
      times += (i ? ", " : "") + json_number(r.solve_times[i]);
    kv("solve_times_s", times + "]");
    kv("dofs_per_second", json_number(r.dofs_per_second()));
    kv("memory_bytes", std::to_string(r.memory_bytes));
    kv("memory_estimate_bytes", std::to_string(r.memory_estimate_bytes));
    std::string br = "{";
    for (std::size_t i = 0; i < r.breakdown.size(); ++i)
      br += (i ? ", " : "") + json_string(r.breakdown[i].first) + ": " + json_number(r.breakdown[i].second);
    kv("breakdown", br + "}");
    std::string lv = "[";
    for (std::size_t i = 0; i < r.levels.size(); ++i)
      {
        const LevelTimes &l = r.levels[i];
        lv += std::string(i ? ",\n    " : "\n    ") + "{\"level\": " + std::to_string(l.level) +
              ", \"dofs\": " + std::to_string(l.dofs) + ", \"smoother\": " + json_number(l.smoother) +
              ", \"matvec\": " + json_number(l.matvec) + ", \"vector\": " + json_number(l.vector) +
              ", \"restrict\": " + json_number(l.restriction) + ", \"prolongate\": " + json_number(l.prolongation) +
              ", \"coarse_solve\": " + json_number(l.coarse_solve) + ", \"graph\": " + json_number(l.graph) +
              ", \"total\": " + json_number(l.total()) + ", \"exchange\": " + json_number(l.exchange) +
              ", \"exchanges\": " + std::to_string(l.exchanges) + "}";
      }
    kv("levels", lv + "\n  ]", true);
    out << "}\n";
  }

  void write_json_file(const std::string &filename, const RunResult &r)
  {
    std::ofstream out(filename);
    if (!out)
      throw std::runtime_error("cannot write JSON file '" + filename + "'");
    write_json(out, r);
  }

  void write_csv_file(const std::string &filename, const RunResult &r)
  {
    std::ofstream out(filename);
    if (!out)
      throw std::runtime_error("cannot write CSV file '" + filename + "'");
    out << std::setprecision(10) << "level,dofs,component,seconds\n";
    for (const LevelTimes &l : r.levels)
      {
        const std::pair<const char *, double> rows[] = {
          {"smoother", l.smoother},    {"matvec", l.matvec},           {"vector", l.vector},
          {"restrict", l.restriction}, {"prolongate", l.prolongation}, {"coarse_solve", l.coarse_solve},
          {"graph", l.graph}};
        for (const auto &[name, t] : rows)
          out << l.level << ',' << l.dofs << ',' << name << ',' << t << '\n';
      }
    for (const auto &[name, t] : r.breakdown)
      if (name.rfind("outer", 0) == 0 || name == "conversion")
        out << "outer," << r.dofs << ',' << name << ',' << t << '\n';
  }

  std::string output_path_problem(const std::string &path)
  {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      return "is a directory";
    const bool existed = std::filesystem::exists(path, ec);
    errno              = 0;
    {
      std::ofstream probe(path, std::ios::app);
      if (!probe)
        return errno != 0 ? std::strerror(errno) : "cannot be opened";
    }
    if (!existed)
      std::filesystem::remove(path, ec);
    return "";
  }
} // namespace tpmg
