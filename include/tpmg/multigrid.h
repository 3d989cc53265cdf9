// Geometric multigrid (docs/method.md, "Cycles and outer solvers"): V-cycle (paper Algorithm 1),
// the level hierarchy with its operators, smoothers and transfers, the coarse solver, and the full
// multigrid start (Algorithm 2). Arithmetic in `Number` (float or double) on one backend.
#pragma once

#include <tpmg/box_layout.h>
#include <tpmg/chebyshev_smoother.h>
#include <tpmg/device.h>
#include <tpmg/geometry.h>
#include <tpmg/linear_operator.h>
#include <tpmg/mesh.h>
#include <tpmg/options.h>
#include <tpmg/patch_smoother.h>
#include <tpmg/robin_faces.h>
#include <tpmg/smoother_configuration.h>
#include <tpmg/timers.h>
#include <tpmg/transfer.h>
#include <tpmg/vector.h>

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpmg
{
  struct CoarseUnknowns; // kernels/linear_algebra/dense_coarse.h

  /// What a Multigrid is built from besides the mesh levels: the smoother and its kernels, the
  /// level operator, the geometry, the V-cycle's symmetry and the coarse solver's limit.
  struct MultigridSettings
  {
    SmootherType          smoother = SmootherType::vertex_patch;
    PatchSmootherSettings patch;
    ChebyshevSettings     chebyshev;
    LevelOperatorType     level_operator = LevelOperatorType::cartesian;
    /// Mesh deformation (bp3/bp5 level operators only).
    DeformationSettings deformation;
    /// α (an expression in the coordinates) on the levels' Robin faces (CartesianLevel::robin_faces).
    std::string robin_coefficient = "0";
    /// a and c of −∇·(a ∇u) + c u (none: a = 1, c = 0): every level's bp3/bp5 operator evaluates
    /// them at its own quadrature points (a cartesian choice runs as bp3), the fitted patches take
    /// the patches' means, the Chebyshev–Jacobi diagonal them at its points (make_level_operator).
    Coefficients coefficients;
    /// The vertex-patch smoother's patch problems and, for fitted ones, how they smooth (the
    /// Chebyshev polynomial from `chebyshev`, whose degree or range 0 each level resolves from
    /// its cells: fitted_chebyshev_polynomial).
    PatchGeometry   patch_geometry   = PatchGeometry::automatic;
    FittedSmoothing fitted_smoothing = FittedSmoothing::chebyshev_additive;
    /// how the fitted patch solves run their 1D products (resolve_fitted_patch_kernel)
    FittedPatchKernel fitted_kernel = FittedPatchKernel::automatic;
    /// how the additive Schwarz step launches its patches (fitted_patches_at_once)
    FittedPatchLaunch fitted_launch = FittedPatchLaunch::automatic;
    /// Whether the vertex-patch smoother solves fitted patch problems with these settings:
    /// automatically on deformed meshes and with coefficients that vary (constant ones the
    /// Cartesian patch problems carry exactly; PatchProblem::coefficients).
    bool fitted_patches() const
    {
      return smoother == SmootherType::vertex_patch &&
             (patch_geometry == PatchGeometry::fitted ||
              (patch_geometry == PatchGeometry::automatic &&
               (deformation.type != Deformation::none || coefficients.varying())));
    }
    GeometryMode geometry = GeometryMode::stored; ///< of the bp3/bp5 level operators
    /// Order of the vertex patches' colours (odd_first: the authors' code).
    ColorOrder color_order = ColorOrder::standard;
    /// Reverse color order in post-smoothing (symmetric V-cycle, for CG).
    bool symmetric = false;
    /// On a distributed level, each vertex-patch colour's ghost exchange runs beside the
    /// colour's patches away from the shared faces, and the level operator's beside its cells
    /// away from them (Backend/Overlap exchanges).
    ExchangeOverlap overlap = ExchangeOverlap::automatic;
    /// Largest coarse system (interior unknowns) the dense direct coarse solver accepts.
    index_t coarse_direct_limit = 4096;
    /// Above this many interior unknowns a coarsest level of degree > 1 is solved by degree
    /// (its Q_1 problem within coarse_direct_limit): the dense Cholesky inverse costs about
    /// 2.3 n^3 flops at setup (n = 3375: 12.7 s on two CPU cores), the Q_1 one far less.
    index_t coarse_dense_setup_limit = 1000;
    /// Two-level cycles (smoothing, Q_1 correction, smoothing) of the coarse solve by degree: one
    /// took the outer iterations of two wherever measured (Kershaw k = 3, 5, 7; Q2 and Q4 boxes;
    /// the sine mesh: docs/method.md, "Coarse solve") at half the coarse level's work.
    int coarse_cycles = 1;
    /// Raises the coarsest level to the finest level below the finest whose problem the coarse
    /// solve by fast diagonalization takes (coarse_solve_by_fast_diagonalization) with at most
    /// this many unknowns per direction; 0 keeps the coarse mesh's level (coarsest_level). The
    /// solver's `Multigrid/Coarse level = auto` sets fast_diagonalization_coarse_extent.
    index_t fast_diagonalization_extent = 0;
    /// vmult records the V-cycle's launches once as a CUDA graph and replays it (use_cuda_graph;
    /// one rank on a GPU, or ranks whose exchanges NCCL runs on the stream: no host work inside
    /// the cycle).
    bool cuda_graph = false;
    /// With cuda_graph, the graph records the levels from the finest whose part holds at most
    /// this many DoFs per rank down to the coarsest (cuda_graph_level); the finer levels run
    /// launch by launch and replay that graph inside each cycle. 0: the whole cycle.
    index_t cuda_graph_max_rank_dofs = 0;
  };

  /// Whether the V-cycle, or its coarser levels, run as a CUDA graph for Backend/CUDA graph =
  /// `mode` on `backend` with `ranks` ranks exchanging over `path`: a graph records the cycle of
  /// one rank on a GPU, or of several whose exchanges go over NCCL (on the stream: every rank
  /// records the same sends and receives and replays them together); throws
  /// std::invalid_argument for `always` where a graph cannot run (the CPU backend, several ranks
  /// exchanging through the host or MPI, which wait on the host inside the cycle).
  bool use_cuda_graph(CudaGraph mode, Backend backend, int ranks, ExchangePath path);

  /// The finest level that the V-cycle's graph records, -1 for none: the finest level of
  /// `partition` (levels coarsest..) whose part holds at most `max_rank_dofs` DoFs per rank (a
  /// level on rank 0 alone: all of its DoFs; 0: no bound). Below the finest level it must have a
  /// coarser level beneath it (a graph of the coarse solve alone saves nothing) and, on several
  /// ranks, lie below a level split over all of them, so that every rank reaches its replay.
  int cuda_graph_level(const HierarchyPartition &partition, int coarsest, index_t max_rank_dofs);

  /// Whether the problem on the whole level `level` fixes u only up to a constant (A 1 = 0): no
  /// face fixes the constants (CartesianLevel::singular: no Dirichlet or Robin face) and no
  /// reaction term c u does. The solver's compatibility and mean treatment and the dense coarse
  /// solve's pseudo-inverse follow it.
  inline bool singular_problem(const CartesianLevel &level, const Coefficients &coefficients)
  {
    return level.singular() && !coefficients.reaction;
  }

  /// The coarse mesh's level of `levels` (the whole hierarchy 0..L): level 1 when level 0 is a
  /// single cell per direction (one vertex patch then covers level 1), else level 0; never above
  /// the finest.
  int coarsest_level(const std::vector<CartesianLevel> &levels);
  /// The coarsest level a Multigrid with `settings` uses on `levels`: with
  /// settings.fast_diagonalization_extent the finest level below the finest that fast
  /// diagonalization solves within that extent, where one is above the coarse mesh's level,
  /// else the coarse mesh's level.
  int coarsest_level(const std::vector<CartesianLevel> &levels, const MultigridSettings &settings);
  /// The same for the hierarchy as `layouts` distributes it: the level above stepped down to
  /// the finest one the layouts keep whole (made with the rule above, they keep it whole).
  int coarsest_level(const HierarchyLayout &layouts, const MultigridSettings &settings);

  /// Whether the coarse solve on `coarsest` is fast diagonalization (fast_diagonalization.h in
  /// src/multigrid): settings.fast_diagonalization_extent > 0; the Kronecker-form (`cartesian`)
  /// level operator of an undeformed level with constant a and c; a whole level without periodic
  /// directions or Robin faces, not singular; at most the extent's unknowns along each direction,
  /// or more where the dense solve takes the level neither directly nor by degree (a coarse mesh
  /// of many cells, which coarse_level_problem would refuse otherwise).
  bool coarse_solve_by_fast_diagonalization(const CartesianLevel &coarsest, const MultigridSettings &settings);

  /// Whether the coarse solve on `coarsest` is one vertex-patch step (a single patch covers the
  /// level and the vertex-patch smoother runs).
  bool coarse_solve_by_smoother(const CartesianLevel &coarsest, const MultigridSettings &settings);

  /// Whether the coarsest level is solved by coarsening in degree (its Q_k problem is above
  /// coarse_dense_setup_limit, its Q_1 problem on the same cells has unknowns and is within
  /// coarse_direct_limit):
  /// `coarse_cycles` two-level cycles of the level's smoother and the dense Q_1 solve
  /// (p-multigrid to Q_1).
  bool coarse_solve_by_degree(const CartesianLevel &coarsest, const MultigridSettings &settings);
  /// Sets settings.chebyshev's degree and smoothing range from the user's values, 0 meaning
  /// automatic (call after the smoother, patch geometry and deformation are set): with point
  /// Jacobi degree 3 and range 15; with fitted patches 0 stays, each level's smoother resolving
  /// it from its cells (fitted_chebyshev_polynomial).
  void set_chebyshev_polynomial(MultigridSettings &settings, int degree, double smoothing_range);
  /// The largest cell shear (FittedCellData::shear) up to which the fitted patches' automatic
  /// polynomial is the short one. Measured (3D Q3 and Q6, levels 1-4, iterations against degree
  /// 16 over range 400): sine amplitude 0.15 (shear 0.65) and Kershaw eps = 0.9 (0.50) take as many
  /// or fewer iterations with degree 4 over range 15, Kershaw eps = 0.8 (0.75) one more at Q6,
  /// eps = 0.7 (0.86) two more on level 2 and growing.
  constexpr double fitted_mild_shear = 0.7;
  /// The largest coefficient contrast within a patch (FittedCellData::contrast) up to which the
  /// fitted patches' automatic polynomial is the short one. Measured (3D Q3 on boxes, the finest
  /// level's contrast, iterations with degree 4 over range 15 against 16 over 400): up to 1.45
  /// (a = 1 + 0.5 sin x cos y, 1 + 0.5 sin 5x, 1 + 9x², c = 100 (1 + x)) as many or fewer; from
  /// 2.9 (a = 1 + 0.9 sin 20x sin 20y: 15 against 9; a = 1 + 0.99 sin 5x: 11 against 9;
  /// c = 1e5 (1 + sin 5x) on 4^3 cells: 29 against 8) more, but for that c on 16^3 cells (5.5:
  /// 7 against 8).
  constexpr double fitted_mild_contrast = 2.0;
  /// The Chebyshev polynomial of a level's fitted additive Schwarz smoother: the degree and range
  /// of `c` where they are set (> 0), else degree 4 over range 15 on cells sheared at most
  /// fitted_mild_shear whose coefficients vary by at most fitted_mild_contrast within a patch
  /// (1 where they are constant), degree 16 over range 400 otherwise.
  ChebyshevSettings fitted_chebyshev_polynomial(ChebyshevSettings c, double shear, double contrast);
  /// `level` with degree 1 (the same cells).
  CartesianLevel linear_level(const CartesianLevel &level);

  /// What keeps the coarse solver from `coarsest` with these settings ("" if nothing does): more
  /// interior unknowns than the dense direct solver accepts.
  std::string coarse_level_problem(const CartesianLevel &coarsest, const MultigridSettings &settings);

  /// Bytes of device memory a level operator of this type keeps besides its vectors (the
  /// geometric factors of bp3/bp5; none for cartesian), for the memory checks before setup.
  std::size_t level_operator_memory_bytes(const CartesianLevel &level, LevelOperatorType type, GeometryMode geometry,
                                          std::size_t number_bytes, bool reaction = false);

  /// A level operator of the chosen kind: `cartesian` (Kronecker form, undeformed meshes; with
  /// the Robin term on the level's Robin faces, `robin`), `bp3` or `bp5` (geometric factors of
  /// the deformed mesh, stored or on the fly; no Robin faces; with coefficients, stored factors
  /// times a and c w|J| beside them: the operator of −∇·(a ∇u) + c u; `cartesian` carries
  /// constant a and c, and refuses varying ones: std::invalid_argument).
  template <int dim, int degree, typename Number>
  std::unique_ptr<LinearOperator<Number>>
  make_level_operator(const CartesianLevel &level, Backend backend, LevelOperatorType type,
                      const DeformationSettings &deformation = {}, GeometryMode geometry = GeometryMode::stored,
                      std::shared_ptr<const RobinFaces<Number>> robin = nullptr, const Coefficients &coefficients = {});

  /// The smoother of one level, behind one interface.
  template <typename Number>
  class Smoother
  {
  public:
    virtual ~Smoother() = default;
    /// x <- S(x, b); `post` = post-smoothing (reverse colors for the symmetric cycle);
    /// `x_is_zero`: x = 0 on entry, which a smoother may use to save work.
    virtual void smooth(Vector<Number> &x, const Vector<Number> &b, bool post, bool x_is_zero) const = 0;
    /// The kernels a Cartesian vertex-patch smoother runs (resolve_smoother); null for the others.
    virtual const SmootherConfiguration *configuration() const { return nullptr; }
    /// Wall seconds of the smoother's setup spent in its Chebyshev estimate of λ_max (0 without).
    virtual double eigenvalue_estimate_seconds() const { return 0; }
    /// The polynomial a Chebyshev-accelerated smoother runs (null for the others).
    virtual const ChebyshevSettings *polynomial() const { return nullptr; }
    /// The largest shear of the level's cells where a fitted smoother chose its polynomial by it
    /// (fitted_chebyshev_polynomial), else a negative number.
    virtual double shear() const { return -1; }
    /// The coefficients' largest contrast within a patch where a fitted smoother chose its
    /// polynomial by it (FittedCellData::contrast), else a negative number.
    virtual double contrast() const { return -1; }
  };

  template <typename Number>
  class LevelFastDiagonalization;

  /// The multigrid hierarchy on one backend: a level operator and a smoother on every level from
  /// coarsest_level() to the finest, the transfers between them, the coarse solver.
  /// As a LinearOperator, vmult applies one V-cycle from zero: the preconditioner of the outer
  /// solvers (MixedPrecisionPreconditioner for a float cycle in a double solver).
  ///
  /// On the ranks of a distributed run (HierarchyLayout) each rank holds its parts of the
  /// distributed levels and exchanges ghost values after every operator application, smoother
  /// colour and transfer; the levels that are not distributed, the coarsest among them, live on
  /// rank 0, and the transfer into the coarsest distributed level gathers to and scatters from
  /// it. Every rank calls every function; the result is the one-rank result.
  template <int dim, int degree, typename Number>
  class Multigrid final : public LinearOperator<Number>
  {
  public:
    /// `levels` = the whole hierarchy 0..L on this rank alone; the coarsest level used is
    /// coarsest_level(levels, settings).
    Multigrid(const std::vector<CartesianLevel> &levels, Backend backend, const MultigridSettings &settings,
              Timers *timers = nullptr);
    /// The hierarchy as `layouts` distributes it (made with coarsest_level(levels, settings) of its
    /// levels; coarsest_level(layouts, settings) is the level used).
    Multigrid(const HierarchyLayout &layouts, Backend backend, const MultigridSettings &settings,
              Timers *timers = nullptr);
    ~Multigrid() override;

    /// The coarse mesh's level (tpmg::coarsest_level(levels)): level 1 when level 0 is a single
    /// cell per direction (one vertex patch then covers level 1), else level 0; never above the
    /// finest level.
    static int coarsest_level(const std::vector<CartesianLevel> &levels);
    /// tpmg::coarsest_level(levels, settings): the coarsest level these settings use.
    static int coarsest_level(const std::vector<CartesianLevel> &levels, const MultigridSettings &settings);

    int finest_level() const { return finest_; }
    int coarsest_level() const { return coarsest_; }
    /// The operator of a level (on this rank's part; valid where the rank stores the level).
    const LinearOperator<Number> &level_operator(int level) const;
    /// What this rank stores of a level (the whole level on one rank).
    const CartesianLevel &level_mesh(int level) const;
    /// How a level's vectors lie on the ranks.
    const std::shared_ptr<const BoxLayout> &level_layout(int level) const;
    /// The smoother of a level where the rank stores it (throws where the level has none here).
    const Smoother<Number> &level_smoother(int level) const;
    /// b_{l-1} = Pᵀ r_l, and x_l += P x_{l-1}, between level l and the next coarser one: on the
    /// ranks' parts, or through rank 0 where level l-1 is not distributed (every rank calls them).
    /// The fine vector must be up to date in all ghost layers; the result is exchanged in `layers`
    /// (all where it is restricted again).
    void restrict_level(int l, Vector<Number> &coarse, const Vector<Number> &fine,
                        GhostLayers layers = GhostLayers::one) const;
    void prolongate_level(int l, Vector<Number> &fine, const Vector<Number> &coarse) const;
    const std::shared_ptr<const BoxLayout> &layout() const override { return level_layout(finest_); }
    /// How the coarsest level is solved ("one vertex-patch step", "dense direct", ...).
    const char *coarse_solver_name() const;

    /// Wall seconds of the setup's parts on this rank: the level operators (with their geometric
    /// factors), the smoothers (patch data and eigenpairs) and apart their Chebyshev estimates of
    /// λ_max, the level vectors and transfers, the dense coarse matrix (its operator applications)
    /// and the rest of the coarse solver (the factorization, its upload).
    struct SetupSeconds
    {
      double level_operators = 0, smoothers = 0, eigenvalue_estimates = 0, vectors_and_transfers = 0, coarse_matrix = 0,
             coarse_solver = 0;
    };
    const SetupSeconds &setup_seconds() const { return setup_seconds_; }

    /// x <- V(x, b) on the finest level (Algorithm 1).
    void vcycle(Vector<Number> &x, const Vector<Number> &b) const;
    /// dst = V(0, src): the preconditioner. With settings.cuda_graph, once arm_cuda_graph was
    /// called and one cycle ran launch by launch (its lazy allocations and kernel attributes
    /// happen there), a call records the cycle as a CUDA graph for its (src, dst) pair the first
    /// time it sees the pair, and replays that graph: the same kernels in the same order. Where
    /// the graph holds only the coarser levels (graph_level below the finest), the finer levels
    /// run launch by launch and replay that graph, recorded once on the levels' own vectors, in
    /// every cycle. A cycle that cannot be recorded runs launch by launch from then on, and
    /// cuda_graph_failure says why.
    void vmult(Vector<Number> &dst, const Vector<Number> &src) const override;
    /// The finest level the CUDA graph records (cuda_graph_level; the finest level: the whole
    /// cycle), -1 without settings.cuda_graph.
    int graph_level() const { return graph_level_; }
    /// Why the V-cycle could not be recorded as a CUDA graph ("" if it was, or was not asked for).
    const std::string &cuda_graph_failure() const { return graph_failure_; }
    /// Lets vmult record and replay graphs from now on (settings.cuda_graph): the solver arms it
    /// for the solves whose recording pays (use_cuda_graph).
    void arm_cuda_graph() const { graph_armed_ = true; }
    /// How many V-cycle graphs vmult has recorded (one per pair of vectors it was called with;
    /// one for the coarser levels below graph_level).
    std::size_t cuda_graphs() const { return graphs_.size(); }
    index_t     size() const override;

    /// Full multigrid start (Algorithm 2, lines 1-3): coarse solve, then per level
    /// prolongate and one V-cycle. rhs[l] is the right-hand side of level l (coarsest..finest
    /// are used); returns the finest-level iterate in x.
    void full_multigrid(const std::vector<Vector<Number>> &rhs, Vector<Number> &x) const;

    /// rhs[l] for every level below the finest from rhs[finest] by restriction (the authors'
    /// convention for full multigrid); rhs has one vector per level of the hierarchy.
    void restrict_to_coarser_levels(std::vector<Vector<Number>> &rhs) const;

    /// Bytes a Multigrid with these arguments would hold (for the memory check before setup).
    static std::size_t estimate_memory_bytes(const std::vector<CartesianLevel> &levels,
                                             const MultigridSettings           &settings);
    /// Bytes this rank's part of a distributed Multigrid would hold.
    static std::size_t estimate_memory_bytes(const HierarchyLayout &layouts, const MultigridSettings &settings);

  private:
    struct Level;
    void setup(const HierarchyLayout &layouts);
    /// `x_is_zero`: x = 0 on entry (vmult and the coarser levels of a cycle; not full multigrid)
    void vcycle_level(int l, Vector<Number> &x, const Vector<Number> &b, bool x_is_zero) const;
    void coarse_solve(Vector<Number> &x, const Vector<Number> &b, bool x_is_zero) const;
    /// x_I = A_II^{-1} b_I over `unknowns` with the dense inverse (kernels/linear_algebra/dense_coarse.h)
    void dense_coarse_solve(const CoarseUnknowns &unknowns, const Number *b, Number *x) const;
    /// x = V(0, b) from level graph_level_ down through the graph recorded for (b, x), recording
    /// it the first time; false where no graph may run (not armed, no cycle run launch by launch
    /// yet, a recording failed: now or before), and the caller runs the levels launch by launch
    bool replay_graph(Vector<Number> &x, const Vector<Number> &b) const;

    Level       &lev(int l) { return *levels_[l - coarsest_]; }
    const Level &lev(int l) const { return *levels_[l - coarsest_]; }

    Backend                             backend_;
    MultigridSettings                   settings_;
    Communicator                        comm_;
    mutable Timers                     *timers_; ///< null while the cycle is recorded as a graph
    int                                 coarsest_ = 0, finest_ = 0, graph_level_ = -1;
    std::vector<std::unique_ptr<Level>> levels_;
    struct DegreeCoarse; ///< the coarse solve by degree: Q_1 vectors and transfer
    std::unique_ptr<DegreeCoarse> degree_coarse_;
    bool                          coarse_by_smoother_ = false, coarse_by_fd_ = false, coarse_by_degree_ = false;
    SetupSeconds                  setup_seconds_;
    index_t                       coarse_n_ = 0;
    Vector<Number>                coarse_inverse_;
    mutable Vector<Number>        coarse_b_;                            ///< b_I gathered for the dense solve
    std::unique_ptr<const LevelFastDiagonalization<Number>> coarse_fd_; ///< the coarse solve by fast diagonalization
    // the recorded V-cycle (replay_graph): the executable graphs by the vectors they were
    // recorded on (b, x)
    struct GraphDeleter
    {
      void operator()(void *g) const noexcept { graph_destroy(g); }
    };
    mutable std::map<std::pair<const void *, const void *>, std::unique_ptr<void, GraphDeleter>> graphs_;
    mutable bool        graph_warm_ = false, graph_armed_ = false;
    mutable std::string graph_failure_;
  };
} // namespace tpmg
