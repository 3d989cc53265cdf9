// The names of every choice a user (or a benchmark) makes (the enums in tpmg/option_enums.h):
// one table per enum. The parameter file parser, --print-parameters, the report and its JSON
// keys, and tpmg_bench read these tables; nothing else spells an option's names. Host code only:
// kernels include tpmg/option_enums.h.
#pragma once

#include <tpmg/option_enums.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tpmg
{
  // ------------------------------------------------------------------------------- names
  /// The names of an enum's values: EnumNames<E>::table, one pair per value.
  template <typename E>
  struct EnumNames;

  template <typename E, std::size_t n>
  using NameTable = std::array<std::pair<E, std::string_view>, n>;

#define TPMG_ENUM_NAMES(E, n, ...)                         \
  template <>                                              \
  struct EnumNames<E>                                      \
  {                                                        \
    static constexpr NameTable<E, n> table{{__VA_ARGS__}}; \
  }

  TPMG_ENUM_NAMES(Backend, 2, {Backend::cpu, "cpu"}, {Backend::cuda, "cuda"});
  TPMG_ENUM_NAMES(DeviceChoice, 3, {DeviceChoice::automatic, "auto"}, {DeviceChoice::cpu, "cpu"},
                  {DeviceChoice::cuda, "cuda"});
  TPMG_ENUM_NAMES(ExchangePath, 4, {ExchangePath::automatic, "auto"}, {ExchangePath::nccl, "nccl"},
                  {ExchangePath::mpi, "mpi"}, {ExchangePath::host, "host"});
  TPMG_ENUM_NAMES(CudaGraph, 3, {CudaGraph::automatic, "auto"}, {CudaGraph::always, "always"},
                  {CudaGraph::never, "never"});
  TPMG_ENUM_NAMES(CoarseLevel, 2, {CoarseLevel::automatic, "auto"}, {CoarseLevel::mesh, "mesh"});
  TPMG_ENUM_NAMES(ExchangeOverlap, 3, {ExchangeOverlap::automatic, "auto"}, {ExchangeOverlap::always, "always"},
                  {ExchangeOverlap::never, "never"});
  TPMG_ENUM_NAMES(GatherLevel, 2, {GatherLevel::coarse, "coarse"}, {GatherLevel::fine, "fine"});
  TPMG_ENUM_NAMES(Precision, 2, {Precision::fp32, "float"}, {Precision::fp64, "double"});
  TPMG_ENUM_NAMES(SolverType, 4, {SolverType::gmres, "gmres"}, {SolverType::cg, "cg"}, {SolverType::fmg, "fmg"},
                  {SolverType::vcycle, "vcycle"});
  TPMG_ENUM_NAMES(PreconditioningSide, 2, {PreconditioningSide::right, "right"}, {PreconditioningSide::left, "left"});
  TPMG_ENUM_NAMES(Orthogonalization, 2, {Orthogonalization::modified, "modified"},
                  {Orthogonalization::classical, "classical"});
  TPMG_ENUM_NAMES(Conventions, 2, {Conventions::standard, "standard"}, {Conventions::paper_code, "paper_code"});
  TPMG_ENUM_NAMES(PostSmoothingOrder, 3, {PostSmoothingOrder::automatic, "auto"}, {PostSmoothingOrder::same, "same"},
                  {PostSmoothingOrder::reverse, "reverse"});
  TPMG_ENUM_NAMES(ColorOrder, 2, {ColorOrder::standard, "standard"}, {ColorOrder::odd_first, "odd_first"});
  TPMG_ENUM_NAMES(SmootherType, 2, {SmootherType::vertex_patch, "vertex_patch"},
                  {SmootherType::chebyshev_jacobi, "chebyshev_jacobi"});
  TPMG_ENUM_NAMES(PatchGeometry, 3, {PatchGeometry::automatic, "auto"}, {PatchGeometry::cartesian, "cartesian"},
                  {PatchGeometry::fitted, "fitted"});
  TPMG_ENUM_NAMES(FittedSmoothing, 2, {FittedSmoothing::multiplicative, "multiplicative"},
                  {FittedSmoothing::chebyshev_additive, "chebyshev_additive"});
  TPMG_ENUM_NAMES(FittedPatchKernel, 4, {FittedPatchKernel::automatic, "automatic"},
                  {FittedPatchKernel::scalar, "scalar"}, {FittedPatchKernel::tensor_fp64, "tensor_fp64"},
                  {FittedPatchKernel::tensor_tf32, "tensor_tf32"});
  TPMG_ENUM_NAMES(FittedPatchLaunch, 3, {FittedPatchLaunch::automatic, "auto"},
                  {FittedPatchLaunch::by_colour, "by_colour"}, {FittedPatchLaunch::all_at_once, "all_at_once"});
  TPMG_ENUM_NAMES(SmootherKernel, 3, {SmootherKernel::global, "global"}, {SmootherKernel::separate, "separate"},
                  {SmootherKernel::fused, "fused"});
  TPMG_ENUM_NAMES(KernelOptimization, 6, {KernelOptimization::automatic, "automatic"},
                  {KernelOptimization::basic, "basic"}, {KernelOptimization::linear_indexing, "linear_indexing"},
                  {KernelOptimization::conflict_free, "conflict_free"},
                  {KernelOptimization::reduced_residual, "reduced_residual"},
                  {KernelOptimization::tensor_core, "tensor_core"});
  TPMG_ENUM_NAMES(LocalSolver, 2, {LocalSolver::fast_diagonalization, "fast_diagonalization"},
                  {LocalSolver::inverse_matrix, "inverse_matrix"});
  TPMG_ENUM_NAMES(ThreadStructure, 3, {ThreadStructure::automatic, "automatic"}, {ThreadStructure::column, "column"},
                  {ThreadStructure::dof, "dof"});
  TPMG_ENUM_NAMES(LevelOperatorType, 3, {LevelOperatorType::cartesian, "cartesian"}, {LevelOperatorType::bp3, "bp3"},
                  {LevelOperatorType::bp5, "bp5"});
  TPMG_ENUM_NAMES(BakeOff, 3, {BakeOff::bp1, "bp1"}, {BakeOff::bp3, "bp3"}, {BakeOff::bp5, "bp5"});
  TPMG_ENUM_NAMES(GeometryMode, 3, {GeometryMode::stored, "stored"}, {GeometryMode::on_the_fly, "on_the_fly"},
                  {GeometryMode::polynomial, "polynomial"});
  TPMG_ENUM_NAMES(Deformation, 4, {Deformation::none, "none"}, {Deformation::sine, "sine"},
                  {Deformation::kershaw, "kershaw"}, {Deformation::function, "function"});
  TPMG_ENUM_NAMES(Mapping, 3, {Mapping::automatic, "automatic"}, {Mapping::multilinear, "multilinear"},
                  {Mapping::exact, "exact"});
  TPMG_ENUM_NAMES(RightHandSide, 4, {RightHandSide::manufactured, "manufactured"}, {RightHandSide::one, "one"},
                  {RightHandSide::function, "function"}, {RightHandSide::ones_vector, "ones_vector"});
  TPMG_ENUM_NAMES(BoundaryType, 4, {BoundaryType::dirichlet, "dirichlet"}, {BoundaryType::neumann, "neumann"},
                  {BoundaryType::robin, "robin"}, {BoundaryType::periodic, "periodic"});
  TPMG_ENUM_NAMES(VtuFormat, 2, {VtuFormat::binary, "binary"}, {VtuFormat::ascii, "ascii"});
#undef TPMG_ENUM_NAMES

  /// Former names of values that parameter files may still use (read, never written): pairs of
  /// a value and its old name. Empty for most enums.
  template <typename E>
  struct EnumAliases
  {
    static constexpr std::array<std::pair<E, std::string_view>, 0> table{};
  };
  template <>
  struct EnumAliases<KernelOptimization>
  {
    static constexpr std::array<std::pair<KernelOptimization, std::string_view>, 1> table{
      {{KernelOptimization::reduced_residual, "boundary"}}};
  };

  /// The name of e in its table (null-terminated: the table holds string literals).
  template <typename E, typename = decltype(EnumNames<E>::table)>
  constexpr const char *to_string(E e)
  {
    for (const auto &[value, name] : EnumNames<E>::table)
      if (value == e)
        return name.data();
    return "?";
  }

  /// The value named `name` (or a former name of it, EnumAliases), if any.
  template <typename E>
  constexpr std::optional<E> from_string(std::string_view name)
  {
    for (const auto &[value, n] : EnumNames<E>::table)
      if (n == name)
        return value;
    for (const auto &[value, n] : EnumAliases<E>::table)
      if (n == name)
        return value;
    return std::nullopt;
  }

  /// The names in `table` of `values`, or of every value.
  template <typename E, typename Table>
  std::vector<std::string> names_in(const Table &table, const std::vector<E> &values)
  {
    std::vector<std::string> v;
    for (const auto &[value, n] : table)
      if (values.empty() || std::find(values.begin(), values.end(), value) != values.end())
        v.emplace_back(n);
    return v;
  }

  /// The names of `values`, or of every value of E.
  template <typename E>
  std::vector<std::string> names_of(const std::vector<E> &values = {})
  {
    return names_in(EnumNames<E>::table, values);
  }

  /// The former names (EnumAliases) of `values`, or of every value of E.
  template <typename E>
  std::vector<std::string> aliases_of(const std::vector<E> &values = {})
  {
    return names_in(EnumAliases<E>::table, values);
  }
} // namespace tpmg
