// A parameter file reader for deal.II ParameterHandler syntax:
//
//   # comment
//   set Name = value            (names may contain spaces)
//   subsection Name
//     set Other = value
//   end
//
// Every entry is declared with a default, a pattern (type and range or choices) and one line
// of documentation. Every problem with an input is reported as a ParameterError whose message
// is one line "SOURCE:LINE: what is wrong" ("--set ARGUMENT: what is wrong" for overrides),
// control characters of the input shown as escapes (\r, \x00).
//
// '#' starts a comment, "\#" is a '#' in a name or value; a line ending in '\' continues on
// the next one. A UTF-8 byte-order mark at the start and CRLF line ends are accepted. In a
// value, control characters other than tabs are errors, and a number is the whole value (no
// characters after it, not even after a NUL). print() writes a file that reads back to the
// same values.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpmg
{
  /// s for an error message: control characters as C escapes (\t, \n, \r, else \xNN), so that
  /// the message stays one line and shows what the input holds.
  std::string printable(const std::string &s);

  class ParameterError : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  /// What values an entry accepts.
  class Pattern
  {
  public:
    static Pattern integer(long min, long max);
    static Pattern real(double min, double max);
    /// One of `choices`; `former_names` are accepted too but not described (renamed values that
    /// existing parameter files may still use).
    static Pattern selection(const std::vector<std::string> &choices,
                             const std::vector<std::string> &former_names = {});
    static Pattern boolean();
    static Pattern anything();
    /// `min_count` to `max_count` comma-separated values, each matching `element` (blanks
    /// around the commas are allowed).
    static Pattern list(const Pattern &element, int min_count, int max_count);

    /// Returns an empty string when the value matches, otherwise what is expected.
    std::string check(const std::string &value) const;
    /// Short human-readable description, printed with --print-parameters.
    std::string description() const;

  private:
    enum class Kind
    {
      integer,
      real,
      selection,
      boolean,
      anything,
      list
    } kind_                       = Kind::anything;
    double                   min_ = 0, max_ = 0; ///< a range, or a list's counts
    std::vector<std::string> choices_;
    std::vector<std::string> aliases_; ///< a selection's former names
    std::shared_ptr<Pattern> element_; ///< a list's element
  };

  class ParameterHandler
  {
  public:
    ParameterHandler();
    ~ParameterHandler();

    // Declaration ----------------------------------------------------------------
    void enter_subsection(const std::string &name);
    void leave_subsection();
    void declare_entry(const std::string &name, const std::string &default_value, const Pattern &pattern,
                       const std::string &documentation);

    // Input ------------------------------------------------------------------------
    /// Reads a file; throws ParameterError "FILE:LINE: ..." on any problem.
    void parse_file(const std::string &path);
    /// Reads text as if it were the file named `source`.
    void parse_string(const std::string &text, const std::string &source = "<string>");
    /// Sets one entry from "Section/Sub/Name=value" (command-line override); errors and where()
    /// name it "SOURCE ASSIGNMENT", e.g. "--set Mesh/Refinement level=4".
    void set_override(const std::string &assignment, const std::string &source = "--set");

    // Access (path = "Section/Name", top-level entries just "Name") ---------------------
    const std::string &get(const std::string &path) const;
    long               get_integer(const std::string &path) const;
    double             get_double(const std::string &path) const;
    bool               get_bool(const std::string &path) const;
    /// The items of a Pattern::list entry.
    std::vector<std::string> get_list(const std::string &path) const;
    /// Where the value came from: "FILE:LINE", "--set ASSIGNMENT", or "default".
    const std::string &where(const std::string &path) const;

    /// Writes all entries, documented, as a valid parameter file.
    void print(std::ostream &out) const;

  private:
    struct Entry;
    struct Section;
    std::unique_ptr<Section> root_;
    std::vector<Section *>   declaring_;

    const Entry &find(const std::string &path) const;
    void set_value(Entry &entry, const std::string &name, const std::string &value, const std::string &location);
  };
} // namespace tpmg
