// The parameter reader (src/parameters.cc) with poisson_solver's declarations: what the
// fuzzer (tools/fuzz/fuzz_parameters.cc) found and the error messages around it.
#include <tpmg/parameters.h>
#include <tpmg/solver_parameters.h>

#include <gtest/gtest.h>

#include <sstream>
#include <string>

using namespace tpmg;

namespace
{
  const std::string nul(1, '\0');

  std::string printed(const ParameterHandler &prm)
  {
    std::ostringstream out;
    prm.print(out);
    return out.str();
  }

  /// The message of the ParameterError that parsing `text` as "t.prm" throws ("" if none).
  std::string parse_error(const std::string &text)
  {
    ParameterHandler prm;
    declare_parameters(prm);
    try
      {
        prm.parse_string(text, "t.prm");
      }
    catch (const ParameterError &e)
      {
        return e.what();
      }
    return "";
  }

  std::string override_error(const std::string &assignment)
  {
    ParameterHandler prm;
    declare_parameters(prm);
    try
      {
        prm.set_override(assignment);
      }
    catch (const ParameterError &e)
      {
        return e.what();
      }
    return "";
  }
} // namespace

TEST(Parameters, NumbersAreTheWholeValue)
{
  const Pattern integer = Pattern::integer(0, 30), real = Pattern::real(-1, 1);
  EXPECT_EQ(integer.check("2"), "");
  EXPECT_EQ(integer.check("+2"), "");
  EXPECT_NE(integer.check("2" + nul + "junk"), "");
  EXPECT_NE(integer.check(nul), "");
  EXPECT_NE(integer.check("2 junk"), "");
  EXPECT_NE(integer.check("\v2"), "");
  EXPECT_NE(integer.check(""), "");
  EXPECT_EQ(real.check("0.5"), "");
  EXPECT_EQ(real.check("-1e-3"), "");
  EXPECT_NE(real.check("0.5" + nul), "");
  EXPECT_NE(real.check("\f0.5"), "");
  EXPECT_NE(real.check("0.5x"), "");
}

TEST(Parameters, NulInAValueIsAnError)
{
  // was accepted, and std::stol threw std::invalid_argument in read_parameters (exit 134)
  EXPECT_EQ(parse_error("subsection Mesh\nset Refinement level = " + nul + "\nend\n"),
            "t.prm:2: invalid value '\\x00' for 'Refinement level': control character \\x00 in the value");
  // was read as 2
  EXPECT_EQ(parse_error("set Dimension = 2" + nul + "junk\n"),
            "t.prm:1: invalid value '2\\x00junk' for 'Dimension': control character \\x00 in the value");
  // in a value that takes any text too
  EXPECT_EQ(parse_error("subsection Output\nset JSON file = a" + nul + "b\nend\n"),
            "t.prm:2: invalid value 'a\\x00b' for 'JSON file': control character \\x00 in the value");
}

TEST(Parameters, PrintedFileReadsBackToTheSameValues)
{
  ParameterHandler prm;
  declare_parameters(prm);
  // '\#' is a '#' in a value; print() must escape it again, or the rest reads as a comment
  prm.parse_string("subsection Output\n  set JSON file = run\\#1.json # a comment\nend\n", "t.prm");
  EXPECT_EQ(prm.get("Output/JSON file"), "run#1.json");
  prm.set_override("Output/CSV file=a\\\\#b#c.csv");
  EXPECT_EQ(prm.get("Output/CSV file"), "a\\\\#b#c.csv");
  const std::string text = printed(prm);
  EXPECT_NE(text.find("set JSON file    = run\\#1.json\n"), std::string::npos) << text; // (aligned to Point values)

  ParameterHandler again;
  declare_parameters(again);
  again.parse_string(text, "printed.prm");
  EXPECT_EQ(again.get("Output/JSON file"), "run#1.json");
  EXPECT_EQ(again.get("Output/CSV file"), "a\\\\#b#c.csv");
  EXPECT_EQ(printed(again), text);
}

TEST(Parameters, ValueEndingInABackslash)
{
  // a parameter file cannot hold it (the backslash would continue the line), so --set refuses it
  EXPECT_EQ(override_error("Output/JSON file=C:\\out\\"),
            "--set Output/JSON file=C:\\out\\: invalid value 'C:\\out\\' for 'Output/JSON file': a value cannot "
            "end in a backslash (a parameter file would read it as a continued line)");
}

TEST(Parameters, ByteOrderMarkIsAccepted)
{
  ParameterHandler prm;
  declare_parameters(prm);
  prm.parse_string("\xEF\xBB\xBFset Dimension = 2\n", "t.prm");
  EXPECT_EQ(prm.get("Dimension"), "2");
  // only at the start of the file
  EXPECT_EQ(parse_error("set Dimension = 2\n\xEF\xBB\xBFset Polynomial degree = 3\n"),
            "t.prm:2: cannot parse '\xEF\xBB\xBFset Polynomial degree = 3': expected 'set NAME = VALUE', "
            "'subsection NAME' or 'end'");
}

TEST(Parameters, CrlfLineEnds)
{
  ParameterHandler prm;
  declare_parameters(prm);
  prm.parse_string("set Dimension = 2\r\nsubsection Mesh\r\n  set Refinement level = 4 \\\r\n\r\nend\r\n", "t.prm");
  EXPECT_EQ(prm.get("Dimension"), "2");
  EXPECT_EQ(prm.get("Mesh/Refinement level"), "4");
  // other carriage returns are errors, shown escaped (the raw one moved the cursor back)
  EXPECT_EQ(parse_error("set Dimension = 2\r\nset Polynomial degree = 3\rx\r\n"),
            "t.prm:2: invalid value '3\\rx' for 'Polynomial degree': control character \\r in the value");
  EXPECT_EQ(parse_error("sub\rsection Mesh\n"),
            "t.prm:1: cannot parse 'sub\\rsection Mesh': expected 'set NAME = VALUE', 'subsection NAME' or 'end'");
  EXPECT_EQ(parse_error("set Polynomial\x01 degree = 3\n"),
            "t.prm:1: unknown parameter 'Polynomial\\x01 degree' at top level");
}

TEST(Parameters, SetErrorsNameTheArgument)
{
  EXPECT_EQ(override_error("Mesh/Refinement level=abc"),
            "--set Mesh/Refinement level=abc: invalid value 'abc' for 'Mesh/Refinement level': expected an "
            "integer in [0, 30]");
  EXPECT_EQ(override_error("Mesh/Refinement"),
            "--set Mesh/Refinement: no '=' in the argument (expected \"Section/Name=value\", in quotes when the "
            "name has spaces)");
  EXPECT_EQ(override_error("Meshes/Refinement level=2"),
            "--set Meshes/Refinement level=2: unknown subsection 'Meshes' in 'Meshes/Refinement level'");

  // and the cross-checks of read_parameters report a --set value by its argument
  ParameterHandler prm;
  declare_parameters(prm);
  prm.set_override("Mesh/Deformation=sine");
  EXPECT_EQ(prm.where("Mesh/Deformation"), "--set Mesh/Deformation=sine");
  try
    {
      read_parameters(prm);
      FAIL() << "a deformed Cartesian mesh was accepted";
    }
  catch (const ParameterError &e)
    {
      EXPECT_EQ(std::string(e.what()).rfind("--set Mesh/Deformation=sine: a deformed mesh needs", 0), 0u) << e.what();
    }
}

TEST(Parameters, DirectoryIsNotAParameterFile)
{
  ParameterHandler prm;
  declare_parameters(prm);
  try
    {
      prm.parse_file(".");
      FAIL() << "a directory was read as an empty parameter file";
    }
  catch (const ParameterError &e)
    {
      EXPECT_EQ(std::string(e.what()), ".:0: cannot read parameter file (Is a directory)");
    }
}

// A renamed choice keeps its former name as an alias: existing files still run, but only the
// new name is printed, documented and reported.
TEST(Parameters, FormerNamesOfChoicesAreStillRead)
{
  EXPECT_EQ(parse_error("subsection Multigrid\n  set Kernel optimization = boundary\nend\n"), "");
  ParameterHandler prm;
  declare_parameters(prm);
  prm.parse_string("subsection Multigrid\n  set Kernel optimization = boundary\n  set Smoother kernel = fused\nend\n",
                   "t.prm");
  EXPECT_EQ(read_parameters(prm).patch.optimization, KernelOptimization::reduced_residual);
  EXPECT_STREQ(to_string(KernelOptimization::reduced_residual), "reduced_residual");

  ParameterHandler fresh;
  declare_parameters(fresh);
  const std::string text = printed(fresh);
  EXPECT_NE(text.find("reduced_residual"), std::string::npos);
  EXPECT_EQ(text.find("boundary|"), std::string::npos) << "a former name is not documented";
  EXPECT_NE(parse_error("subsection Multigrid\n  set Kernel optimization = boundaries\nend\n"), "");

  const Pattern p = Pattern::selection({"new"}, {"old"});
  EXPECT_EQ(p.check("old"), "");
  EXPECT_EQ(p.description(), "one of new");
}
