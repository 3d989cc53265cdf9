// How the vectors of one level lie on the ranks of a run (docs/method.md, "Distribution").
//
// On a distributed level a rank stores the part of the level that HierarchyPartition::stored
// gives: its box of cells and two layers of ghost cells beyond every face with a neighbour. The
// kernels treat that part as a level of its own, whose faces are boundary; for every node the
// rank owns this is exact (no cell that touches an owned node has a node on a ghost face), and
// the nodes the rank does not own get their owners' values from update_ghosts. Node ownership:
// in each direction a rank owns the nodes [k b, k e) of its cells [b, e), and the last rank of
// the direction also the boundary node k N (but along a periodic direction, where k N is node
// 0); every node of the level has one owner.
//
// A vector of the level holds the stored nodes and points to its layout (Vector::layout), so
// that dot products count each node once (on its owner) and sum over the ranks. A level that is
// not distributed lives wholly on rank 0 (the others store nothing); on a one-rank run every
// level is whole, and nothing here costs anything, but on a periodic box: there every level is a
// part whose ghost layers beyond the periodic faces its own exchanges fill (docs/method.md,
// "Periodic faces").
#pragma once

#include <tpmg/communicator.h>
#include <tpmg/partition.h>
#include <tpmg/vector.h>

#include <array>
#include <memory>
#include <vector>

namespace tpmg
{
  /// The nodes [begin, begin + extent) per direction of some array of nodes.
  struct NodeBox
  {
    std::array<index_t, 3> begin{{0, 0, 0}}, extent{{0, 0, 0}};
    index_t                size() const { return extent[0] * extent[1] * extent[2]; }
  };

  /// Which stored nodes of other ranks an exchange brings up to date: those of the ghost cells
  /// next to the rank's box (`one`: what the operators, the smoothers and the prolongation read
  /// to compute the owned values), or all of them (`all`: what the restriction reads, and the
  /// residual of the global smoother kernel).
  enum class GhostLayers
  {
    one,
    all
  };

  class BoxLayout
  {
  public:
    /// Level l of `partition` on rank comm.rank(); `comm` spans the partition's ranks.
    BoxLayout(const HierarchyPartition &partition, int l, const Communicator &comm, Backend backend);
    /// The whole `level` on this rank alone (no exchanges).
    BoxLayout(const CartesianLevel &level, Backend backend);
    ~BoxLayout();
    BoxLayout(const BoxLayout &)            = delete;
    BoxLayout &operator=(const BoxLayout &) = delete;

    /// What this rank stores, as a level: the part of a distributed level, else the whole level
    /// (meaningful only where stores()).
    const CartesianLevel &level() const { return stored_; }
    /// The whole level.
    const CartesianLevel &whole() const { return whole_; }
    /// Whether this rank stores nodes of the level.
    bool stores() const { return stores_; }
    /// Whether this rank stores a part with ghost nodes, which exchanges keep up to date: a level
    /// split over several ranks, and every level of a periodic box (partition.h's `ghosted`).
    bool distributed() const { return distributed_; }
    /// Whether the level is split over several ranks (else one rank stores all of it).
    bool split() const { return split_; }
    /// Values a vector of the level holds on this rank (0 where it stores nothing).
    index_t size() const { return stores_ ? stored_.n_dofs() : 0; }
    /// The nodes this rank owns, in the stored level's node coordinates.
    const NodeBox &owned() const { return owned_; }
    /// Whether this rank owns every node it stores (a whole level).
    bool owns_all() const { return owned_.size() == size(); }
    /// The whole level's index of stored node i.
    index_t global_index(index_t i) const;

    const Communicator &comm() const { return comm_; }
    Backend             backend() const { return backend_; }

    /// Every stored node that another rank owns (in the `layers`) gets its owner's value (but an
    /// upper face of the stored part that lies on the far side of a neighbour's box of two cells,
    /// which no computation of an owned value reads): after a computation that is exact on the
    /// owned nodes, v is the same there on every rank that stores a node.
    template <typename Number>
    void update_ghosts(Vector<Number> &v, GhostLayers layers = GhostLayers::all) const;

    /// update_ghosts(v, GhostLayers::one) after the vertex patches of one colour changed v (bit d
    /// of `colour`: the parity of their centres along d, partition.h's patch_centres): only the
    /// ghost nodes that the colour's patches of another rank wrote and this rank's own patches did
    /// not travel, as their bounding box per neighbour. Each rank computes the patches centred in
    /// the closed box of its cells, so a patch on a shared face runs on both sides: across a face
    /// half the colours need no message. Valid where v was up to date in that layer before the
    /// colour and the patches write only their interiors.
    template <typename Number>
    void update_ghosts_after_colour(Vector<Number> &v, int colour) const;

    /// update_ghosts_after_colour(v, colour) on a second stream (side_stream_create), after the
    /// work queued so far: work queued next on the library's stream runs beside the exchange,
    /// until finish_ghost_update() makes the stream wait for it. That work must neither write
    /// what the colour's exchange sends nor read what it receives (split_patch_centres). On the
    /// CPU backend the exchange happens here.
    template <typename Number>
    void start_update_ghosts_after_colour(Vector<Number> &v, int colour) const;
    /// update_ghosts(v, layers) on the second stream, as start_update_ghosts_after_colour: the
    /// work queued next must neither write what the exchange sends (the owned nodes of the cell
    /// layers next to the shared faces) nor touch the ghost nodes.
    template <typename Number>
    void start_update_ghosts(Vector<Number> &v, GhostLayers layers) const;
    void finish_ghost_update() const;

    /// On rank 0, `whole` (resized to gathered_size()) gets every rank's owned values of v, laid
    /// out as rank 0 would store the level alone (the whole level; along periodic directions
    /// with its ghost layers, which it fills); the other ranks send theirs and leave `whole`
    /// alone.
    template <typename Number>
    void gather(const Vector<Number> &v, Vector<Number> &whole) const;
    /// Every rank's stored values of `whole` (gather's layout), which rank 0 holds: v = whole
    /// there, or v += whole with `add` (v must have this layout's size; the other ranks' `whole`
    /// is not read).
    template <typename Number>
    void scatter(const Vector<Number> &whole, Vector<Number> &v, bool add) const;
    /// The values of gather's `whole` on rank 0 (this layout's size where the level is not split).
    index_t gathered_size() const;
    /// What rank 0 stores of the level alone (gather's layout; the stored level where it is not
    /// split).
    const CartesianLevel &gathered() const { return split_ ? gathered_ : stored_; }

    /// Seconds this rank spent in the exchanges of the level's vectors since the last
    /// reset_exchange_times() (each from the end of the work queued before it to the end of its
    /// unpacking: packing, copies, the transport; on a GPU measured by events on the stream and
    /// resolved here), and their number.
    double exchange_seconds() const;
    long   exchanges() const { return exchanges_; }
    void   reset_exchange_times() const;

    /// Before a CUDA graph records exchanges of this layout (over NCCL: the transfers stay on the
    /// stream): on a distributed level, sizes the device staging buffers for its largest ghost
    /// exchange of 8-byte values (and gather and scatter where `gathers`: the coarser level lives
    /// on rank 0), and keeps them where they are from then on, as the graph holds their addresses
    /// (a transfer that would need more throws std::logic_error instead of moving them). While a
    /// graph records (graph_recording), exchanges are neither timed nor counted.
    void reserve_for_recording(bool gathers) const;

    /// The ranks this one exchanges ghost values with, and the values it sends per exchange of
    /// all layers.
    int     n_neighbours() const { return int(sends_[1].size()); }
    index_t ghost_values_sent() const;

    /// A box of nodes that goes to or comes from `rank`, in the stored level's coordinates;
    /// `shift` (periods per direction, -1, 0 or 1) places `rank`'s part in this rank's
    /// coordinates: non-zero across a periodic face (partition.h's ProcessGrid::neighbour).
    struct Halo
    {
      int                rank;
      NodeBox            box;
      std::array<int, 3> shift{{0, 0, 0}};
    };
    const std::vector<Halo> &sends(GhostLayers layers) const { return sends_[layers == GhostLayers::all]; }
    const std::vector<Halo> &receives(GhostLayers layers) const { return receives_[layers == GhostLayers::all]; }

    /// What `rank` stores and owns of level l of `partition` and which boxes it exchanges with its
    /// neighbours, [GhostLayers::one, GhostLayers::all]: what the constructor sets up, computed
    /// alone (no communicator, nothing allocated; the tests check it on levels too large to
    /// allocate).
    struct Plan
    {
      CartesianLevel    stored;
      NodeBox           owned;
      std::vector<Halo> sends[2], receives[2];
      /// per colour, the parts of sends[0] and receives[0] that update_ghosts_after_colour moves
      std::vector<std::vector<Halo>> colour_sends, colour_receives;
    };
    static Plan plan(const HierarchyPartition &partition, int l, int rank);

  private:
    /// The nodes of all the boxes of `halos`.
    static index_t values_in(const std::vector<Halo> &halos);
    /// The ghost exchange of v in place with these boxes (`what` names the caller in errors).
    template <typename Number>
    void exchange_ghosts(Vector<Number> &v, const std::vector<Halo> &sends, const std::vector<Halo> &receives,
                         const char *what) const;
    /// Packs `sends` of array v (nodes per direction `nodes`), exchanges them for `receives`,
    /// and unpacks these into array w (nodes `w_nodes`), = or += (`add`).
    template <typename Number>
    void transfer(const Number *v, const std::array<index_t, 3> &nodes, const std::vector<Halo> &sends, Number *w,
                  const std::array<index_t, 3> &w_nodes, const std::vector<Halo> &receives, bool add, int tag) const;
    /// Staging space of the exchanges, grown on demand (bytes; device and host).
    void *buffer(int which, std::size_t bytes, Backend space) const;

    CartesianLevel whole_, stored_;
    bool           stores_ = true, distributed_ = false, split_ = false;
    /// where the level is split: the part rank 0 would store of the whole level alone (the
    /// whole level, with ghost layers along periodic directions), which gather fills and
    /// scatter reads
    CartesianLevel gathered_;
    /// rank 0 of a split periodic level: gathered_'s exchanges (with itself)
    std::unique_ptr<BoxLayout>     alone_;
    NodeBox                        to_gathered(const NodeBox &whole_box) const;
    NodeBox                        owned_;
    Communicator                   comm_;
    Backend                        backend_ = Backend::cpu;
    std::vector<Halo>              sends_[2], receives_[2];         ///< [GhostLayers::one, GhostLayers::all]
    std::vector<std::vector<Halo>> colour_sends_, colour_receives_; ///< Plan's, per colour
    /// the owned boxes of all ranks in the whole level's coordinates (rank 0 of a distributed
    /// level: gather), and all ranks' stored boxes (scatter)
    std::vector<Halo> owned_boxes_, stored_boxes_;
    struct Buffers;
    std::unique_ptr<Buffers> buffers_;
    /// Queues `exchange` on the second stream after the work queued so far (the *_start_* calls).
    template <class Exchange>
    void           start_on_side_stream(const Exchange &exchange) const;
    mutable double exchange_seconds_ = 0;
    mutable long   exchanges_        = 0;
  };

  /// One layout per level of a hierarchy: how a distributed run (or a one-rank run) stores it.
  class HierarchyLayout
  {
  public:
    /// `levels` = the whole hierarchy 0..L, split over the ranks of `comm` (PartitionError where
    /// they cannot split it); `coarsest`: the multigrid's coarsest level, which stays whole.
    /// `min_rank_dofs`: HierarchyPartition's (the levels too small to split live on rank 0);
    /// `gather`: which level's values travel to rank 0 (Backend/Gather level).
    HierarchyLayout(const std::vector<CartesianLevel> &levels, const Communicator &comm, Backend backend, int coarsest,
                    index_t min_rank_dofs = 0, GatherLevel gather = GatherLevel::coarse);
    /// The whole hierarchy on one rank.
    HierarchyLayout(const std::vector<CartesianLevel> &levels, Backend backend);

    const std::shared_ptr<const BoxLayout> &level(int l) const { return layouts_.at(std::size_t(l)); }
    int                                     n_levels() const { return int(layouts_.size()); }
    const HierarchyPartition               &partition() const { return partition_; }
    const Communicator                     &comm() const { return comm_; }
    /// Level l split over the ranks as the finer level is, where l is the gather level (the
    /// first level on rank 0 below a split one, with GatherLevel::coarse where
    /// HierarchyPartition::with_gather_level allows): the restriction into it runs on these
    /// parts and gathers their owned values to rank 0, the prolongation scatters rank 0's
    /// values into them first. Null on every other level.
    const std::shared_ptr<const BoxLayout> &gather_layout(int l) const;
    /// The level that has a gather layout, or -1.
    int gather_level() const { return gather_level_; }
    /// The seconds and the count of level l's exchanges (BoxLayout::exchange_seconds), with the
    /// gather and scatter of the coarser level's gather layout, which the transfers from level l
    /// make.
    double exchange_seconds(int l) const;
    long   exchanges(int l) const;
    void   reset_exchange_times() const;

  private:
    HierarchyPartition                            partition_;
    Communicator                                  comm_;
    std::vector<std::shared_ptr<const BoxLayout>> layouts_;
    std::shared_ptr<const BoxLayout>              gather_layout_; ///< of level gather_level_
    int                                           gather_level_ = -1;
  };
} // namespace tpmg
