// libFuzzer target for the parameter reader: arbitrary bytes go the way of poisson_solver's
// input (apps/poisson_solver.cc), through the parser (src/base/parameters.cc) and the
// declarations and cross-checks of src/app/solver_parameters.cc and parameter_checks.cc:
//
//   1. the bytes as a parameter file: declare_parameters, parse_string (what parse_file does
//      with the file's contents), read_parameters;
//   2. every line of the bytes as a `--set` argument, applied in turn: set_override,
//      read_parameters;
//   3. after each, what --print-parameters writes, read back into fresh parameters, must
//      parse, print the same text again and give read_parameters the same verdict.
//
// A ParameterError is the expected answer to bad input (poisson_solver's exit code 2).
// Anything else is a finding and aborts: another exception, an error message that is not one
// printable line, an accepted value with a control character (a NUL), a failed round trip, or
// what AddressSanitizer and UndefinedBehaviorSanitizer report. Built and run by
// scripts/fuzz.sh parameters.
#include <tpmg/parameters.h>
#include <tpmg/solver_parameters.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>

namespace
{
  using namespace tpmg;

  [[noreturn]] void finding(const std::string &what, const std::string &detail)
  {
    std::fprintf(stderr, "\n==== fuzz_parameters finding: %s\n%s\n====\n", what.c_str(), detail.c_str());
    std::abort();
  }

  bool has_control_character(const std::string &s, const std::string &allowed)
  {
    for (char c : s)
      if (((unsigned char)c < 0x20 || c == 0x7f) && allowed.find(c) == std::string::npos)
        return true;
    return false;
  }

  /// An error message is one line that starts with `prefix` and shows the input's control
  /// characters escaped.
  void check_message(const std::string &message, const std::string &prefix)
  {
    if (message.rfind(prefix, 0) != 0 || has_control_character(message, ""))
      finding("an error message that is not one printable line '" + prefix + "...: ...'", "'" + message + "'");
  }

  /// What --print-parameters writes: lines of printable text.
  std::string printed(const ParameterHandler &prm)
  {
    std::ostringstream out;
    prm.print(out);
    const std::string text = out.str();
    if (has_control_character(text, "\t\n"))
      finding("an accepted value with a control character", text);
    return text;
  }

  /// read_parameters' verdict: "" when it accepts the values, else its message.
  std::string verdict(const ParameterHandler &prm)
  {
    try
      {
        read_parameters(prm);
        return "";
      }
    catch (const ParameterError &e)
      {
        check_message(e.what(), "");
        return e.what();
      }
  }

  /// The message without its leading location ("SOURCE:LINE: " or "--set ...: "), which
  /// differs between the input and the printed text.
  std::string without_location(const std::string &message)
  {
    const auto colon = message.find(": ");
    return colon == std::string::npos ? message : message.substr(colon + 2);
  }

  void check_round_trip(const ParameterHandler &prm)
  {
    const std::string text = printed(prm);
    ParameterHandler  again;
    declare_parameters(again);
    try
      {
        again.parse_string(text, "printed.prm");
      }
    catch (const ParameterError &e)
      {
        finding("--print-parameters wrote a file that does not parse", std::string(e.what()) + "\n" + text);
      }
    const std::string text_again = printed(again);
    if (text_again != text)
      finding("the printed parameters, read back, print differently",
              "first:\n" + text + "\nread back and printed:\n" + text_again);
    const std::string first = verdict(prm), second = verdict(again);
    if (first.empty() != second.empty() || without_location(first) != without_location(second))
      finding("read_parameters judges the printed parameters differently",
              "input: '" + first + "'\nprinted: '" + second + "'");
  }

  void as_file(const std::string &input)
  {
    ParameterHandler prm;
    declare_parameters(prm);
    try
      {
        prm.parse_string(input, "fuzz.prm");
      }
    catch (const ParameterError &e)
      {
        check_message(e.what(), "fuzz.prm:");
        return;
      }
    check_round_trip(prm);
  }

  void as_overrides(const std::string &input)
  {
    ParameterHandler prm;
    declare_parameters(prm);
    std::istringstream lines(input);
    std::string        line;
    bool               changed = false;
    while (std::getline(lines, line))
      try
        {
          prm.set_override(line);
          changed = true;
        }
      catch (const ParameterError &e)
        {
          check_message(e.what(), "--set ");
        }
    if (changed) // (the defaults alone are the same every time)
      check_round_trip(prm);
  }
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  const std::string input(reinterpret_cast<const char *>(data), size);
  try
    {
      as_file(input);
      as_overrides(input);
    }
  catch (const std::exception &e)
    {
      finding("uncaught exception", e.what());
    }
  return 0;
}
