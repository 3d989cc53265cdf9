// How the ranks of a distributed run share the mesh hierarchy: a d-dimensional process grid,
// and on every level one box of cells per rank (CartesianLevel::cell_begin/cell_end).
//
// Rules (docs/method.md, "Distribution"):
//  * The process grid factors the rank count into d factors, chosen so that the boxes of the
//    finest level have the least surface (the halo each rank exchanges), among the factorings
//    whose every rank gets at least min_cells_per_rank cells per direction on the finest level.
//  * A level is distributed when every rank gets at least min_cells_per_rank cells per direction
//    on it and, but for the finest level, at least `min_rank_dofs` DoFs (a level whose work is
//    smaller than the latency of its exchanges runs faster on one rank); the box boundaries are
//    chosen on the coarsest distributed level (as even as the cell
//    counts allow: the first parts get one cell more) and doubled on each finer level, so that a
//    rank's box on level l+1 is exactly its box on level l refined: the transfers between
//    distributed levels stay local to the rank.
//  * A level too small to distribute lives wholly on rank 0 (agglomeration): the coarsest levels
//    are cheap, and the transfer into the coarsest distributed level gathers to rank 0. With
//    more than one rank the coarsest level of the multigrid (`coarsest`) always lives on rank 0,
//    so that the coarse solve sees the whole level.
//  * A rank stores its box and ghost_cells layers of cells around it where there is a
//    neighbour (`stored`): the kernels treat the faces of the stored box as boundary, which is
//    exact for every node the rank owns as long as no cell that touches an owned node has a
//    node on such a face; two layers guarantee that (docs/method.md, "Distribution").
//  * Along a periodic direction the ranks form a ring: the last box's upper neighbour is the
//    first box, one period (N cells) further on, and a rank alone along the direction is its
//    own neighbour. Every level of a periodic box is stored so, split or not (on rank 0 alone,
//    or on one rank), with ghost layers beyond both periodic faces.
// All counts and indices are 64-bit: a level may exceed 2^31 nodes when its boxes fit.
#pragma once

#include <tpmg/mesh.h>
#include <tpmg/options.h>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tpmg
{
  /// A rank count that cannot partition the mesh (bad input: exit code 2 on every rank).
  class PartitionError : public std::invalid_argument
  {
  public:
    using std::invalid_argument::invalid_argument;
  };

  /// Cells per direction a rank owns at least on a distributed level: a vertex patch spans two
  /// cells, so that a patch never reaches beyond the neighbouring rank's box, and the ghost
  /// layers of a rank's stored box lie in its immediate neighbours' boxes.
  constexpr index_t min_cells_per_rank = 2;

  /// Layers of ghost cells a rank stores beyond its box where it has a neighbour.
  constexpr index_t ghost_cells = 2;

  /// The DoFs per rank below which a level other than the finest lives on rank 0, by backend
  /// (Backend/Minimum DoFs per rank = 0): on a GPU a split level's V-cycle step costs about 15
  /// exchanges of about 20 microseconds each over NCCL, more than a level of fewer DoFs per GPU
  /// than this costs on one GPU (H100, 4 GPUs: docs/performance/scaling.md, "Agglomeration"); on
  /// the CPU every level that has the cells is split.
  constexpr index_t automatic_min_rank_dofs(Backend backend) { return backend == Backend::cuda ? 1000000 : 1; }

  /// The centre vertices [first, last] along direction d (whole-level vertex indices; first >
  /// last where there are none) of the vertex patches that a level, or a rank's part of it,
  /// smooths: those of the owned cells' closed box that are interior vertices of the whole level
  /// and of the stored cells (a patch needs its two cells either side). A patch centred at v
  /// writes the nodes k (v - 1) + 1 ... k (v + 1) - 1 along d. Colour c runs the centres whose
  /// parity along d is bit d of c.
  std::pair<index_t, index_t> patch_centres(const CartesianLevel &level, int d);
  /// The same with the vertices on the level's Neumann and Robin faces of the box, where the rank
  /// computes them (its owned cells' closed box reaches the face): the centres of every patch it
  /// smooths, the truncated ones on those faces included (whose patch writes the nodes
  /// k (v - 1) + 1 ... k (v + 1) - 1 within the level all the same).
  std::pair<index_t, index_t> smoothed_vertices(const CartesianLevel &level, int d);

  /// A box of patch centres: whole-level vertex indices first[d] ... last[d] along each
  /// direction (empty where first > last in a direction; directions >= dim hold 1 ... 1).
  struct CentreBox
  {
    std::array<index_t, 3> first{{1, 1, 1}}, last{{1, 1, 1}};
    index_t                count() const;
  };

  /// The patch centres of a rank's part split for a smoother colour whose ghost exchange runs
  /// beside the colour's other patches: `near` (disjoint boxes) holds the centres within one
  /// vertex of a face shared with another rank, `inner` the rest. A centre v of `inner` lies at
  /// least two vertices inside every shared face, so its patch writes no node the colour's
  /// exchange sends (those of the cell layer next to the face) and reads none it receives (the
  /// ghost cells): the exchange may start once `near` is smoothed and run while `inner` is.
  /// Without a shared face, `near` is empty.
  struct CentreSplit
  {
    std::vector<CentreBox> near;
    CentreBox              inner;
  };
  CentreSplit split_patch_centres(const CartesianLevel &level);

  /// The DoFs of a rank's part of a level from which its colour exchanges overlap the inner
  /// patches (Backend/Overlap exchanges = auto), on GPUs: on 4 H100s a part of 1.8 M DoFs lost
  /// about 11 microseconds per colour to the near boxes' extra launches, parts of 110-360 M
  /// DoFs gained 2-4 % of the solve (docs/performance/scaling.md, "Overlap"). On the CPU the
  /// exchange cannot run beside the patches: never.
  constexpr index_t min_overlap_dofs = 10000000;

  /// Backend/Overlap exchanges for a level of a V-cycle: on the levels a CUDA graph records
  /// (`cuda_graph`; cuda_graph_level in tpmg/multigrid.h: parts up to cuda_graph_max_dofs),
  /// `automatic` overlaps nothing. On 2 H200s every part measured so inside a graph lost with its
  /// exchanges beside its inner work (Kershaw level 3, 19 M DoFs per part: 1.7 %; k = 3, 29 M:
  /// 0.6-1.5 %; 2-6 M: 3-4 % with `always`), while a part of 48 M DoFs launched one by one gained
  /// 2.7 % (docs/performance/scaling.md, "Overlap").
  constexpr ExchangeOverlap vcycle_overlap(ExchangeOverlap mode, bool cuda_graph)
  {
    return cuda_graph && mode == ExchangeOverlap::automatic ? ExchangeOverlap::never : mode;
  }

  /// Backend/Overlap exchanges for the outer solver's operator: beside a V-cycle replayed whole
  /// as a CUDA graph, `automatic` overlaps nothing either. On 2 H200s its overlap saved 0.1-0.3 ms
  /// of its own time per solve and cost the graphs that follow it more (Kershaw level 3, BP5, 19
  /// M DoFs per part: 0.6010-0.6013 s against 0.5933-0.5936 s; k = 3, 29 M: 24.3 against 24.1-24.2
  /// ms; k = 7, 45 M: the same), while beside a cycle launched level by level it gains
  /// (docs/performance/scaling.md, "Overlap").
  constexpr ExchangeOverlap outer_overlap(ExchangeOverlap mode, bool whole_cycle_graph)
  {
    return vcycle_overlap(mode, whole_cycle_graph);
  }

  /// Whether the colour exchanges of `level` (a rank's part) run beside its `inner` patches
  /// (Backend/Overlap exchanges): never with `never` or where there is nothing to overlap (no
  /// `near` box: no exchange; no inner centre); always otherwise with `always`; with
  /// `automatic` on GPUs where the part has min_overlap_dofs and `inner` holds at least as many
  /// centres as `near`.
  bool overlap_exchanges(const CentreSplit &split, const CartesianLevel &level, Backend backend, ExchangeOverlap mode);

  /// The cells a level operator computes on a rank's part: the owned cells and the layer of
  /// ghost cells next to them (every cell of a whole level). The second ghost layer adds only to
  /// nodes that no computation of an owned value reads after an operator application (the one
  /// layer of ghost nodes that the operators, smoothers and prolongation read lies in the first
  /// layer's cells and is exchanged after it) or that the exchange of all layers then overwrites
  /// (the residual that the restriction reads): its terms would be lost work. Restricting the
  /// cells keeps the order in which each remaining cell adds to a node.
  CellBox operator_cells(const CartesianLevel &level);

  /// The cells of a rank's part split for a level operator whose ghost exchange runs beside part
  /// of it: `near` (disjoint boxes, the part's cell coordinates) holds the operator's ghost cells
  /// (operator_cells) and the owned cells within operator_exchange_layers of a face shared with
  /// another rank, `inner` the rest of operator_cells. An exchange of all ghost layers sends the
  /// owned nodes of the two cell layers next to a shared face (and the node plane beyond them),
  /// which the cells up to three layers in compute, and receives the ghost nodes, which only the
  /// ghost cells and the first owned layer touch: once `near` is computed the exchange may start,
  /// and `inner` writes nothing it sends or receives.
  /// Without a shared face, `near` is empty.
  struct CellSplit
  {
    std::vector<CellBox> near;
    CellBox              inner;
  };
  constexpr index_t operator_exchange_layers = 3;
  CellSplit         split_cells(const CartesianLevel &level);
  /// Whether a level operator's exchange runs beside the `inner` cells (Backend/Overlap
  /// exchanges, as overlap_exchanges): on GPUs only (on the CPU the exchange cannot run beside
  /// the cells, and the two launches would change the order in which a node's cell terms add,
  /// which the CPU keeps fixed), with `always` wherever `near` and `inner` have cells, with
  /// `automatic` where the part has min_overlap_dofs and `inner` holds at least as many cells
  /// as `near`.
  bool overlap_exchanges(const CellSplit &split, const CartesianLevel &level, Backend backend, ExchangeOverlap mode);

  /// Ranks arranged as a d-dimensional grid, rank = x + ranks_x (y + ranks_y z).
  struct ProcessGrid
  {
    int                dim = 3;
    std::array<int, 3> ranks{{1, 1, 1}};

    int                size() const { return ranks[0] * ranks[1] * ranks[2]; }
    std::array<int, 3> coordinates(int rank) const
    {
      return {{rank % ranks[0], (rank / ranks[0]) % ranks[1], rank / (ranks[0] * ranks[1])}};
    }
    int rank_of(const std::array<int, 3> &c) const { return c[0] + ranks[0] * (c[1] + ranks[1] * c[2]); }
    /// The rank at grid coordinates c + delta, wrapped around along the directions `periodic`
    /// (bit d); -1 where that leaves the grid. `shift[d]` (-1, 0, 1) says by how many periods
    /// the neighbour's box lies beyond this one's: its whole-level coordinates plus shift[d] N
    /// are this rank's.
    int neighbour(int rank, const std::array<int, 3> &delta, unsigned periodic, std::array<int, 3> &shift) const;
  };

  /// The cells [begin, end) of part p of `parts` of `cells` cells: the first cells % parts
  /// parts get one cell more.
  std::pair<index_t, index_t> split_cells(index_t cells, int parts, int p);

  /// The process grid of n_ranks on the finest level of `levels` (see the rules above); throws
  /// PartitionError naming the rank count and the largest grid the finest level allows.
  ProcessGrid make_process_grid(int n_ranks, const std::vector<CartesianLevel> &levels);

  /// Where the boxes of every level of a hierarchy lie on a process grid.
  class HierarchyPartition
  {
  public:
    /// `coarsest`: the coarsest level the multigrid uses, never distributed over more than one
    /// rank; `min_rank_dofs`: the DoFs per rank below which a level other than the finest lives
    /// on rank 0 (0: split every level that has the cells). Throws PartitionError when no level
    /// can be distributed on a grid of more than one rank (the finest level too small, or no
    /// level above `coarsest`).
    HierarchyPartition(const std::vector<CartesianLevel> &levels, const ProcessGrid &grid, int coarsest = 0,
                       index_t min_rank_dofs = 0);

    const ProcessGrid &grid() const { return grid_; }
    /// Whether level l is split over the grid (else it lives on rank 0).
    bool distributed(int l) const { return l >= first_distributed_; }
    /// Whether ranks store level l as parts with ghost cells (`stored`), which exchanges keep
    /// up to date: a level split over several ranks, and every level of a periodic box.
    bool ghosted(int l) const;
    /// The process grid level l is split over: the grid where it is distributed, else rank 0
    /// alone (a grid of one).
    ProcessGrid level_grid(int l) const;
    /// The coarsest distributed level (levels.size() if none is).
    int first_distributed_level() const { return first_distributed_; }
    /// The same partition with the level below the first distributed one split too, as the
    /// transfers into the levels on rank 0 use it (the gather level: HierarchyLayout): its boxes
    /// are the finer level's halved, so that the restriction into it and the prolongation from
    /// it stay on the ranks' parts, and the gather to rank 0 moves its values (an eighth of the
    /// finer level's in 3D) instead of the finer level's. Only where the finer level's box
    /// boundaries are even, the level keeps min_cells_per_rank cells per rank and direction (its
    /// parts' ghost layers in the neighbours' boxes) and no direction is periodic; nullopt
    /// otherwise, and on one rank.
    std::optional<HierarchyPartition> with_gather_level() const;

    /// Level l as `rank` owns it: cell_begin/cell_end set to its box (empty on ranks other than
    /// 0 for a level that is not distributed).
    CartesianLevel owned(int l, int rank) const;
    /// Level l as `rank` stores it: on a ghosted level the part (CartesianLevel::part) of its
    /// box and ghost_cells layers of cells beyond every face with a neighbour (along a periodic
    /// direction: beyond both faces, the part's offset then negative or its end beyond the
    /// whole level's cells), cell_begin/cell_end the owned box in the part's coordinates, its
    /// faces beyond which ghosts lie Dirichlet faces (boundary to the kernels), those on the box
    /// as the level's; otherwise the whole level (on rank 0; a level without cells on the
    /// others: `stores` is false).
    CartesianLevel stored(int l, int rank) const;
    /// Whether `rank` stores cells of level l.
    bool stores(int l, int rank) const { return distributed(l) || rank == 0; }
    int  n_levels() const { return int(levels_.size()); }
    /// The whole level l.
    const CartesianLevel &level(int l) const { return levels_.at(std::size_t(l)); }
    /// The box boundaries of level l in direction d: ranks[d] + 1 cell indices, from 0 to cells.
    std::vector<index_t> boundaries(int l, int d) const;
    /// Boundary j of level l in direction d for any integer j, continued periodically (j + R
    /// is boundary j one period further on, R the ranks along d): the boxes beyond a periodic
    /// face.
    index_t boundary(int l, int d, index_t j) const;
    /// The rank that owns cell c of level l.
    int owner(int l, const std::array<index_t, 3> &c) const;

  private:
    std::vector<CartesianLevel> levels_;
    ProcessGrid                 grid_;
    int                         first_distributed_ = 0;
  };
} // namespace tpmg
