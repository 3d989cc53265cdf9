// Every choice a user (or a benchmark) makes, as an enum: the values alone, for kernels and for
// every header that needs a choice but not its names (which tpmg/options.h holds). Includes
// nothing.
#pragma once

namespace tpmg
{
  /// Where data lives and kernels run.
  enum class Backend
  {
    cpu,
    cuda
  };
  /// Which backend a run asks for.
  enum class DeviceChoice
  {
    automatic,
    cpu,
    cuda
  };
  /// How the ghost values of a run on several ranks travel (docs/method.md, "Distribution"):
  /// `nccl` between GPU buffers over NCCL, queued on the library's stream; `mpi` MPI on the
  /// GPU buffers (an MPI that takes device pointers); `host` MPI on host memory (the vectors'
  /// own on the CPU backend, page-locked staging buffers on a GPU); `automatic` the fastest the
  /// build and the machine have, in that order (resolve_exchange, tpmg/communicator.h).
  enum class ExchangePath
  {
    automatic,
    nccl,
    mpi,
    host
  };
  /// How a VTU file stores its arrays: raw binary appended after the XML (compact, any size) or
  /// ASCII text inside it (readable, for small meshes).
  enum class VtuFormat
  {
    binary,
    ascii
  };
  /// Whether a vertex-patch colour's ghost exchange runs beside the colour's patches away from
  /// the faces shared with other ranks (split_patch_centres, tpmg/partition.h), and a level
  /// operator's beside its cells away from them (split_cells): `automatic` on the levels where
  /// overlap_exchanges says so, `always` wherever a rank has such patches or cells, `never`.
  enum class ExchangeOverlap
  {
    automatic,
    always,
    never
  };
  /// Which level's values travel to rank 0 where the V-cycle continues on the levels that live
  /// there (Backend/Gather level): `coarse` = the first level on rank 0's, restricted on the
  /// ranks' parts of it split as the finer level is, where the boxes allow
  /// (HierarchyPartition::with_gather_level), `fine` = the finer, split level's, restricted on
  /// rank 0 (also wherever `coarse` cannot be).
  enum class GatherLevel
  {
    coarse,
    fine
  };
  /// Whether the V-cycle is recorded once as a CUDA graph and replayed (Backend/CUDA graph):
  /// `automatic` on GPUs (one rank, or ranks exchanging over NCCL) the levels up to
  /// cuda_graph_max_dofs DoFs per rank (Backend/CUDA graph DoFs per rank) from a solver's second
  /// solve on (in the first, recording costs about what replaying saves), `always` the whole
  /// cycle from the first solve, `never` (use_cuda_graph, cuda_graph_level in tpmg/multigrid.h).
  enum class CudaGraph
  {
    automatic,
    always,
    never
  };
  /// Which level the V-cycle's coarse solve runs on (Multigrid/Coarse level): `automatic` the
  /// finest level below the finest that fast diagonalization solves exactly within
  /// fast_diagonalization_coarse_extent unknowns per direction (boxes with constant
  /// coefficients; coarsest_level in tpmg/multigrid.h), else the coarse mesh's, solved by fast
  /// diagonalization too where it applies; `mesh` the coarse mesh's level (or level 1 from one
  /// coarse cell) with the dense or one-patch coarse solves, the hierarchy of the paper.
  enum class CoarseLevel
  {
    automatic,
    mesh
  };
  /// Unknowns per direction up to which `Multigrid/Coarse level = auto` solves a level by fast
  /// diagonalization (MultigridSettings::fast_diagonalization_extent): its 2 dim contractions
  /// cost 2 dim m multiply-adds per unknown (at k = 3 the level of 16³ cells, m = 47: 282, less
  /// than one smoothing step there); measured fastest against 32, 128 and 256
  /// (docs/performance/solve.md, "Coarse solve by fast diagonalization").
  constexpr long long fast_diagonalization_coarse_extent = 64;
  /// Above this many DoFs per rank a level's launch latencies are a small part of its time (H200:
  /// 2 % of a cycle at 5.7e7 DoFs), and `automatic` launches it one by one, keeping its part of
  /// the runtime breakdown and the overlap of its exchanges; the graph records the levels below
  /// (docs/performance/solve.md, "CUDA graph").
  constexpr long long cuda_graph_max_dofs = 30000000;
  /// Arithmetic of the V-cycle (the outer solver is always double).
  enum class Precision
  {
    fp32, ///< "float"
    fp64, ///< "double"
    // former names, for code written against them
    single [[deprecated("Precision::single is Precision::fp32")]] = fp32,
    dual [[deprecated("Precision::dual is Precision::fp64")]]     = fp64
  };
  enum class SolverType
  {
    gmres,
    cg,
    fmg,
    vcycle ///< plain V-cycle iteration from x = 0
  };
  enum class PreconditioningSide
  {
    right, ///< flexible; the solver sees the true residual
    left
  };
  /// How GMRES orthogonalizes a new Krylov vector against its basis: `modified` Gram-Schmidt,
  /// each projection fused with the next inner product (one reduction over the ranks per basis
  /// vector), or `classical` Gram-Schmidt applied twice, the inner products of each pass batched
  /// and the norm taken with the second projection (three reductions per iteration, whatever the
  /// basis size: for runs on many ranks).
  enum class Orthogonalization
  {
    modified,
    classical
  };
  /// `paper_code`: the conventions of the authors' public code (docs/method.md, "Paper
  /// conventions"): b = vector of ones, restricted to the coarser levels, colors odd-first.
  enum class Conventions
  {
    standard,
    paper_code
  };
  /// Order of the colors in post-smoothing: `automatic` reverses them for CG (the symmetric
  /// V-cycle) and keeps them otherwise.
  enum class PostSmoothingOrder
  {
    automatic,
    same,
    reverse
  };
  /// Order of the 2^d colors of the vertex patches: `standard` c = 0, 1, ...; `odd_first` (the
  /// authors' code) starts with the color of odd vertex parity in every direction.
  enum class ColorOrder
  {
    standard,
    odd_first
  };

  enum class SmootherType
  {
    vertex_patch,
    chebyshev_jacobi
  };
  /// The patch problems the vertex-patch smoother solves: those of the Cartesian surrogate with
  /// the undeformed cell widths (the fast fused kernels), or separable surrogates fitted to the
  /// deformed cells, with residuals of the level operator itself (docs/method.md, "Fitted patch
  /// solves"); `automatic`: fitted on deformed meshes, Cartesian otherwise.
  enum class PatchGeometry
  {
    automatic,
    cartesian,
    fitted
  };
  /// How the fitted patch solves make a smoothing step: colour by colour with the level
  /// operator's residual before each colour (multiplicative Schwarz), or the additive Schwarz
  /// preconditioner (all patches on one residual) accelerated by a Chebyshev polynomial.
  enum class FittedSmoothing
  {
    multiplicative,
    chebyshev_additive
  };
  /// How the fitted patch solves run their 1D products (kernels/smoothers/patch_fitted*.h):
  /// `scalar` one multiply-add per thread and instruction on the FP32/FP64 units; `tensor_fp64`
  /// as 16×8×8 tile products on the FP64 tensor cores (exact products); `tensor_tf32` on the
  /// TF32 ones (operands rounded to 10 mantissa bits, float sums); `automatic` the one measured
  /// fastest that keeps the iterations (resolve_fitted_patch_kernel).
  enum class FittedPatchKernel
  {
    automatic,
    scalar,
    tensor_fp64,
    tensor_tf32
  };
  /// How the additive Schwarz step of the fitted patch solves launches its patches: `by_colour`
  /// one launch per colour (the patches of a colour share no unknown; on the CPU the sums then
  /// add in the same order on any thread count and rank count), `all_at_once` every patch in one
  /// launch with atomic additions (a colour's patches, a few hundred on the coarse levels, leave
  /// most of a GPU idle for a patch's latency); `automatic` = all_at_once on the GPU, by_colour
  /// on the CPU (fitted_patches_at_once).
  enum class FittedPatchLaunch
  {
    automatic,
    by_colour,
    all_at_once
  };
  /// How a vertex-patch smoothing step is split into kernels (docs/kernels.md, "Smoother kernel
  /// variants").
  enum class SmootherKernel
  {
    global,   ///< residual b - A x with the level operator, then a patch kernel for the solve
    separate, ///< two patch kernels: local residual, local solve
    fused     ///< one patch kernel
  };
  /// How the patch kernels are written (docs/kernels.md, "Optimizations").
  enum class KernelOptimization
  {
    basic,
    linear_indexing,
    conflict_free,
    reduced_residual, ///< conflict_free with the reduced residual b_I - A_IB x_B
    tensor_core,      ///< 3D fused: the 1D products as FP64 tile products (kernels/smoothers/patch_mma.h)
    automatic,        ///< the one measured fastest for the device, dimension, degree and precision (resolve_smoother)
    // former name, for code written against it (parameter files: EnumAliases, tpmg/options.h)
    boundary [[deprecated("KernelOptimization::boundary is KernelOptimization::reduced_residual")]] = reduced_residual
  };
  /// Local solver of the basic patch kernels.
  enum class LocalSolver
  {
    fast_diagonalization,
    inverse_matrix ///< a stored dense inverse (the baseline)
  };
  /// Thread structure of the basic kernels (the paper's Fig. 5): one thread per column of 2k+1
  /// nodes along the last direction, or one per DoF; `automatic` takes the one measured faster
  /// (resolve_smoother, src/smoothers/smoother_configuration.cc).
  enum class ThreadStructure
  {
    automatic,
    column,
    dof
  };

  /// The matrix-free operator of the multigrid levels.
  enum class LevelOperatorType
  {
    cartesian, ///< Kronecker form on Cartesian meshes
    bp3,       ///< CEED BP3: Gauss quadrature on k+2 points, any mesh
    bp5        ///< CEED BP5: collocated at the k+1 Gauss-Lobatto points, any mesh
  };
  /// The CEED bake-off operators (docs/method.md, "Level operators").
  enum class BakeOff
  {
    bp1 = 1, ///< mass, Gauss quadrature on k+2 points
    bp3 = 3, ///< Laplacian, Gauss quadrature on k+2 points
    bp5 = 5  ///< Laplacian collocated at the k+1 Gauss-Lobatto points
  };
  /// The bake-off operator a level operator is (cartesian has none).
  constexpr BakeOff bake_off(LevelOperatorType t) { return t == LevelOperatorType::bp3 ? BakeOff::bp3 : BakeOff::bp5; }

  /// Where a bake-off operator's geometric factors come from (include/tpmg/geometry.h).
  enum class GeometryMode
  {
    stored,
    on_the_fly,
    polynomial ///< BP1 only
  };
  /// Numbers per cell of GeometryMode::polynomial with nq quadrature points per direction:
  /// dim node values for each of the nq^(dim-1) columns.
  constexpr int column_polynomial_numbers(int dim, int nq) { return dim == 3 ? 3 * nq * nq : 2 * nq; }
  /// How the vertices of a Cartesian level are moved (include/tpmg/geometry.h): built-in maps, or
  /// the user's map of the box (`function`, Mesh/Deformation function).
  enum class Deformation
  {
    none,
    sine,
    kershaw,
    function
  };
  /// The cells' geometry under a deformation: `multilinear` through the moved vertices (what sine
  /// and Kershaw are defined by), or the `exact` map with its derivatives at every point (a
  /// function map: curved boundaries at the rate of the elements); automatic: exact for a
  /// function map, multilinear otherwise.
  enum class Mapping
  {
    automatic,
    multilinear,
    exact
  };
  /// The condition on a face of the box (docs/method.md, "Boundary conditions"): u = g
  /// (`dirichlet`), ∂u/∂n = h (`neumann`), ∂u/∂n + α u = h (`robin`), or the face identified
  /// with the opposite one (`periodic`, in pairs).
  enum class BoundaryType
  {
    dirichlet,
    neumann,
    robin,
    periodic
  };
  enum class RightHandSide
  {
    manufactured, ///< f = -Δu of the manufactured solution u = Π sin(π ξ_d)
    one,          ///< f ≡ 1
    function,     ///< f given as an expression (Problem/Right-hand side function)
    ones_vector   ///< the authors' convention: b_i = 1 at every interior node (not an integral)
  };
} // namespace tpmg
