#include <tpmg/parameters.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>

namespace tpmg
{
  namespace
  {
    std::string trim(const std::string &s)
    {
      const auto b = s.find_first_not_of(" \t");
      if (b == std::string::npos)
        return "";
      const auto e = s.find_last_not_of(" \t");
      return s.substr(b, e - b + 1);
    }

    bool is_control(char c) { return (unsigned char)c < 0x20 || c == 0x7f; }


    // Trim and collapse runs of blanks to one space, as deal.II does for names.
    std::string normalize(const std::string &s)
    {
      std::string out;
      bool        blank = false;
      for (char c : trim(s))
        {
          if (c == ' ' || c == '\t')
            blank = true;
          else
            {
              if (blank && !out.empty())
                out += ' ';
              blank = false;
              out += c;
            }
        }
      return out;
    }

    bool starts_with_word(const std::string &line, const std::string &word, std::string &rest)
    {
      if (line.compare(0, word.size(), word) != 0)
        return false;
      if (line.size() > word.size() && line[word.size()] != ' ' && line[word.size()] != '\t')
        return false;
      rest = line.substr(word.size());
      return true;
    }

    /// A value as a parameter file writes it: '#' escaped (else it would start a comment).
    std::string escape_comment_sign(const std::string &value)
    {
      std::string out;
      for (char c : value)
        {
          if (c == '#')
            out += '\\';
          out += c;
        }
      return out;
    }

    std::string format_double(double v)
    {
      std::ostringstream s;
      s << std::setprecision(6) << v;
      return s.str();
    }
  } // namespace

  /// s for an error message: control characters as C escapes (\t, \n, \r, else \xNN: a NUL
  /// is \x00), so that the message stays one line and shows what the input holds.
  std::string printable(const std::string &s)
  {
    std::string out;
    for (char c : s)
      if (!is_control(c))
        out += c;
      else if (c == '\t')
        out += "\\t";
      else if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else
        {
          char hex[8];
          std::snprintf(hex, sizeof(hex), "\\x%02x", unsigned((unsigned char)c));
          out += hex;
        }
    return out;
  }

  // --------------------------------------------------------------------------- Pattern

  Pattern Pattern::integer(long min, long max)
  {
    Pattern p;
    p.kind_ = Kind::integer;
    p.min_  = double(min);
    p.max_  = double(max);
    return p;
  }

  Pattern Pattern::real(double min, double max)
  {
    Pattern p;
    p.kind_ = Kind::real;
    p.min_  = min;
    p.max_  = max;
    return p;
  }

  Pattern Pattern::selection(const std::vector<std::string> &choices, const std::vector<std::string> &former_names)
  {
    Pattern p;
    p.kind_    = Kind::selection;
    p.choices_ = choices;
    p.aliases_ = former_names;
    return p;
  }

  Pattern Pattern::boolean()
  {
    Pattern p;
    p.kind_ = Kind::boolean;
    return p;
  }

  Pattern Pattern::anything() { return Pattern(); }

  Pattern Pattern::list(const Pattern &element, int min_count, int max_count)
  {
    Pattern p;
    p.kind_    = Kind::list;
    p.min_     = min_count;
    p.max_     = max_count;
    p.element_ = std::make_shared<Pattern>(element);
    return p;
  }

  namespace
  {
    /// The comma-separated items of a value, blanks around them removed.
    std::vector<std::string> split_list(const std::string &value)
    {
      std::vector<std::string> items;
      std::size_t              start = 0;
      while (true)
        {
          const std::size_t comma = value.find(',', start);
          const std::string item  = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          const auto        first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
          items.push_back(first == std::string::npos ? std::string() : item.substr(first, last - first + 1));
          if (comma == std::string::npos)
            return items;
          start = comma + 1;
        }
    }
  } // namespace

  std::string Pattern::check(const std::string &value) const
  {
    switch (kind_)
      {
        case Kind::integer:
          {
            // the whole value is the number: no leading blanks (strtol skips them), no
            // trailing characters, none after a NUL either (c_str() ends there)
            errno     = 0;
            char *end = nullptr;
            long  v   = std::strtol(value.c_str(), &end, 10);
            if (value.empty() || std::isspace((unsigned char)value[0]) || end != value.c_str() + value.size() ||
                errno == ERANGE)
              return "expected " + description();
            if (double(v) < min_ || double(v) > max_)
              return "out of range, expected " + description();
            return "";
          }
        case Kind::real:
          {
            errno      = 0;
            char  *end = nullptr;
            double v   = std::strtod(value.c_str(), &end);
            if (value.empty() || std::isspace((unsigned char)value[0]) || end != value.c_str() + value.size() ||
                errno == ERANGE || !std::isfinite(v))
              return "expected " + description();
            if (v < min_ || v > max_)
              return "out of range, expected " + description();
            return "";
          }
        case Kind::selection:
          for (const auto &c : choices_)
            if (c == value)
              return "";
          for (const auto &c : aliases_)
            if (c == value)
              return "";
          return "expected " + description();
        case Kind::boolean:
          if (value == "true" || value == "false")
            return "";
          return "expected " + description();
        case Kind::anything:
          return "";
        case Kind::list:
          {
            const std::vector<std::string> items = split_list(value);
            if (double(items.size()) < min_ || double(items.size()) > max_)
              return "expected " + description();
            for (const std::string &item : items)
              if (const std::string e = element_->check(item); !e.empty())
                return "item '" + printable(item) + "': " + e;
            return "";
          }
      }
    return "";
  }

  std::string Pattern::description() const
  {
    switch (kind_)
      {
        case Kind::integer:
          return "an integer in [" + std::to_string(long(min_)) + ", " + std::to_string(long(max_)) + "]";
        case Kind::real:
          return "a number in [" + format_double(min_) + ", " + format_double(max_) + "]";
        case Kind::selection:
          {
            std::string s = "one of ";
            for (std::size_t i = 0; i < choices_.size(); ++i)
              s += (i ? "|" : "") + choices_[i];
            return s;
          }
        case Kind::boolean:
          return "true|false";
        case Kind::anything:
          return "any text";
        case Kind::list:
          return (min_ == max_ ? std::to_string(long(min_))
                               : std::to_string(long(min_)) + " to " + std::to_string(long(max_))) +
                 " comma-separated values, each " + element_->description();
      }
    return "";
  }

  // ---------------------------------------------------------------- ParameterHandler

  struct ParameterHandler::Entry
  {
    std::string value, default_value, documentation, location = "default";
    Pattern     pattern;
  };

  struct ParameterHandler::Section
  {
    std::string                                     name;
    std::vector<std::string>                        order; // entries and subsections, declared order
    std::map<std::string, Entry>                    entries;
    std::map<std::string, std::unique_ptr<Section>> subsections;
  };

  ParameterHandler::ParameterHandler() : root_(new Section) { declaring_.push_back(root_.get()); }
  ParameterHandler::~ParameterHandler() = default;

  void ParameterHandler::enter_subsection(const std::string &name)
  {
    Section   *cur = declaring_.back();
    const auto key = normalize(name);
    auto       it  = cur->subsections.find(key);
    if (it == cur->subsections.end())
      {
        auto s  = std::make_unique<Section>();
        s->name = key;
        cur->order.push_back("/" + key);
        it = cur->subsections.emplace(key, std::move(s)).first;
      }
    declaring_.push_back(it->second.get());
  }

  void ParameterHandler::leave_subsection()
  {
    if (declaring_.size() <= 1)
      throw std::logic_error("leave_subsection without enter_subsection");
    declaring_.pop_back();
  }

  void ParameterHandler::declare_entry(const std::string &name, const std::string &default_value,
                                       const Pattern &pattern, const std::string &documentation)
  {
    const std::string why = pattern.check(default_value);
    if (!why.empty())
      throw std::logic_error("default '" + default_value + "' of '" + name + "': " + why);
    Section   *cur = declaring_.back();
    const auto key = normalize(name);
    if (!cur->entries.count(key))
      cur->order.push_back(key);
    Entry &e        = cur->entries[key];
    e.value         = default_value;
    e.default_value = default_value;
    e.pattern       = pattern;
    e.documentation = documentation;
  }

  void ParameterHandler::set_value(Entry &entry, const std::string &name, const std::string &value,
                                   const std::string &location)
  {
    const auto invalid = [&](const std::string &why) {
      return ParameterError(location + ": invalid value '" + printable(value) + "' for '" + printable(name) +
                            "': " + why);
    };
    // (a NUL or a carriage return is no part of any value; tabs are allowed as in names)
    for (char c : value)
      if (is_control(c) && c != '\t')
        throw invalid("control character " + printable(std::string(1, c)) + " in the value");
    // (only --set can give one: in a file, a trailing backslash continues the line)
    if (!value.empty() && value.back() == '\\')
      throw invalid("a value cannot end in a backslash (a parameter file would read it as a continued line)");
    const std::string why = entry.pattern.check(value);
    if (!why.empty())
      throw invalid(why);
    entry.value    = value;
    entry.location = location;
  }

  void ParameterHandler::parse_file(const std::string &path)
  {
    const std::string source = printable(path);
    // stdio rather than an ifstream, which reads a directory as an empty file
    struct Close
    {
      void operator()(std::FILE *f) const { std::fclose(f); }
    };
    const std::unique_ptr<std::FILE, Close> file(std::fopen(path.c_str(), "rb"));
    if (!file)
      throw ParameterError(source + ":0: cannot open parameter file (" + std::strerror(errno) + ")");
    std::string text;
    char        buffer[1 << 14];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0)
      text.append(buffer, n);
    if (std::ferror(file.get()))
      throw ParameterError(source + ":0: cannot read parameter file (" + std::strerror(errno) + ")");
    parse_string(text, path);
  }

  void ParameterHandler::parse_string(const std::string &text, const std::string &source_name)
  {
    // (a UTF-8 byte-order mark, which editors on Windows write, is no part of the first line)
    const std::size_t        bom    = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    const std::string        source = printable(source_name);
    std::vector<Section *>   stack{root_.get()};
    std::vector<std::size_t> opened_at{0};
    std::istringstream       in(text.substr(bom));
    std::string              raw, line;
    std::size_t              line_no = 0, first_line = 0;
    while (std::getline(in, raw))
      {
        ++line_no;
        // files with CRLF line ends
        if (!raw.empty() && raw.back() == '\r')
          raw.pop_back();
        if (line.empty())
          first_line = line_no;
        // comments: everything after an unescaped '#'
        std::string stripped;
        for (std::size_t i = 0; i < raw.size(); ++i)
          {
            if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '#')
              {
                stripped += '#';
                ++i;
              }
            else if (raw[i] == '#')
              break;
            else
              stripped += raw[i];
          }
        stripped = trim(stripped);
        // continuation lines end in a backslash
        if (!stripped.empty() && stripped.back() == '\\')
          {
            line += stripped.substr(0, stripped.size() - 1) + " ";
            continue;
          }
        line += stripped;
        const std::string stmt = trim(line);
        line.clear();
        if (stmt.empty())
          continue;
        const std::string loc = source + ":" + std::to_string(first_line);
        std::string       rest;
        if (starts_with_word(stmt, "subsection", rest))
          {
            const std::string name = normalize(rest);
            if (name.empty())
              throw ParameterError(loc + ": 'subsection' needs a name");
            auto it = stack.back()->subsections.find(name);
            if (it == stack.back()->subsections.end())
              throw ParameterError(loc + ": unknown subsection '" + printable(name) + "'" +
                                   (stack.size() > 1 ? " in subsection '" + stack.back()->name + "'" : ""));
            stack.push_back(it->second.get());
            opened_at.push_back(first_line);
          }
        else if (stmt == "end")
          {
            if (stack.size() == 1)
              throw ParameterError(loc + ": 'end' without an open subsection");
            stack.pop_back();
            opened_at.pop_back();
          }
        else if (starts_with_word(stmt, "set", rest))
          {
            const auto eq = rest.find('=');
            if (eq == std::string::npos)
              throw ParameterError(loc + ": missing '=' in 'set " + printable(trim(rest)) + "'");
            const std::string name  = normalize(rest.substr(0, eq));
            const std::string value = trim(rest.substr(eq + 1));
            if (name.empty())
              throw ParameterError(loc + ": 'set' needs a parameter name before '='");
            auto it = stack.back()->entries.find(name);
            if (it == stack.back()->entries.end())
              throw ParameterError(
                loc + ": unknown parameter '" + printable(name) + "'" +
                (stack.size() > 1 ? " in subsection '" + stack.back()->name + "'" : " at top level"));
            set_value(it->second, name, value, loc);
          }
        else
          throw ParameterError(loc + ": cannot parse '" + printable(stmt) +
                               "': expected 'set NAME = VALUE', 'subsection NAME' or 'end'");
      }
    if (!line.empty())
      throw ParameterError(source + ":" + std::to_string(line_no) + ": file ends inside a continued line");
    if (stack.size() > 1)
      throw ParameterError(source + ":" + std::to_string(opened_at.back()) + ": subsection '" + stack.back()->name +
                           "' is not closed by 'end' before the end of the file");
  }

  void ParameterHandler::set_override(const std::string &assignment, const std::string &source)
  {
    // errors and where() name the argument: "--set Mesh/Refinement level=abc: ..."
    const std::string label = source + " " + printable(assignment);
    const auto        eq    = assignment.find('=');
    if (eq == std::string::npos)
      throw ParameterError(label + ": no '=' in the argument (expected \"Section/Name=value\", in quotes when the "
                                   "name has spaces)");
    const std::string path  = trim(assignment.substr(0, eq));
    const std::string value = trim(assignment.substr(eq + 1));
    Section          *cur   = root_.get();
    std::string       rest  = path;
    for (auto slash = rest.find('/'); slash != std::string::npos; slash = rest.find('/'))
      {
        const std::string sub = normalize(rest.substr(0, slash));
        auto              it  = cur->subsections.find(sub);
        if (it == cur->subsections.end())
          throw ParameterError(label + ": unknown subsection '" + printable(sub) + "' in '" + printable(path) + "'");
        cur  = it->second.get();
        rest = rest.substr(slash + 1);
      }
    auto it = cur->entries.find(normalize(rest));
    if (it == cur->entries.end())
      throw ParameterError(label + ": unknown parameter '" + printable(path) + "'");
    set_value(it->second, path, value, label);
  }

  const ParameterHandler::Entry &ParameterHandler::find(const std::string &path) const
  {
    const Section *cur  = root_.get();
    std::string    rest = path;
    for (auto slash = rest.find('/'); slash != std::string::npos; slash = rest.find('/'))
      {
        auto it = cur->subsections.find(rest.substr(0, slash));
        if (it == cur->subsections.end())
          throw std::logic_error("parameter '" + path + "' was not declared");
        cur  = it->second.get();
        rest = rest.substr(slash + 1);
      }
    auto it = cur->entries.find(rest);
    if (it == cur->entries.end())
      throw std::logic_error("parameter '" + path + "' was not declared");
    return it->second;
  }

  const std::string       &ParameterHandler::get(const std::string &path) const { return find(path).value; }
  long                     ParameterHandler::get_integer(const std::string &path) const { return std::stol(get(path)); }
  double                   ParameterHandler::get_double(const std::string &path) const { return std::stod(get(path)); }
  std::vector<std::string> ParameterHandler::get_list(const std::string &path) const { return split_list(get(path)); }
  bool                     ParameterHandler::get_bool(const std::string &path) const { return get(path) == "true"; }
  const std::string       &ParameterHandler::where(const std::string &path) const { return find(path).location; }

  void ParameterHandler::print(std::ostream &out) const
  {
    struct Printer
    {
      std::ostream &out;
      void          operator()(const Section &s, int depth) const
      {
        const std::string ind(2 * depth, ' ');
        std::size_t       width = 0;
        for (const auto &[name, e] : s.entries)
          width = std::max(width, name.size());
        bool first = true;
        for (const auto &key : s.order)
          {
            if (key[0] == '/')
              {
                const Section &sub = *s.subsections.at(key.substr(1));
                out << (first ? "" : "\n") << ind << "subsection " << sub.name << "\n";
                (*this)(sub, depth + 1);
                out << ind << "end\n";
              }
            else
              {
                const Entry &e = s.entries.at(key);
                out << ind << "# " << e.documentation << "\n"
                    << ind << "# " << e.pattern.description() << "; default: " << e.default_value << "\n"
                    << ind << "set " << std::left << std::setw(int(width)) << key << " = "
                    << escape_comment_sign(e.value) << "\n";
              }
            first = false;
          }
      }
    };
    Printer{out}(*root_, 0);
  }
} // namespace tpmg
