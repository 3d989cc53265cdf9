// Human-readable tables and machine-readable summaries (JSON, CSV) of a run.
#pragma once

#include <tpmg/poisson.h>

#include <iosfwd>
#include <string>

namespace tpmg
{
  /// Final convergence table, breakdown per component and per level.
  void print_report(std::ostream &out, const RunResult &r);
  /// The JSON summary (docs/interface.md, "JSON report").
  void write_json(std::ostream &out, const RunResult &r);
  void write_json_file(const std::string &filename, const RunResult &r);
  /// level,dofs,component,seconds rows (outer solver components with level "outer").
  void write_csv_file(const std::string &filename, const RunResult &r);

  /// Why a file cannot be written at `path` ("" if it can), to be asked before a run so that a
  /// wrong output path is bad input and not a lost result. A file that did not exist is created
  /// and removed again; an existing one is opened for appending and left as it is.
  std::string output_path_problem(const std::string &path);
} // namespace tpmg
