// The layout of a level's vectors on the ranks and the exchanges between them
// (include/tpmg/box_layout.h).
#include <tpmg/box_layout.h>
#include <tpmg/device.h>

#include <src/base/box_layout_nodes.h>

#include <kernels/linear_algebra/halo.h>
#include <kernels/linear_algebra/vector_kernels.h>
#include <kernels/runtime/forall.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace tpmg
{
  index_t layout_size(const BoxLayout &layout) { return layout.size(); }
  Backend layout_backend(const BoxLayout &layout) { return layout.backend(); }

  namespace
  {
    /// Exchange times of a GPU kept as unresolved event pairs at most (then resolved at once).
    constexpr std::size_t max_pending_exchange_times = 4096;

    /// Message tags of the three kinds of exchange.
    using box_layout_nodes::node_counts;
    using box_layout_nodes::owned_nodes;

    enum Tag : int
    {
      ghost_tag   = 7100,
      gather_tag  = 7101,
      scatter_tag = 7102
    };

  } // namespace

  struct BoxLayout::Buffers
  {
    struct Space
    {
      void       *p      = nullptr;
      std::size_t bytes  = 0;
      Backend     space  = Backend::cpu;
      bool        pinned = false; ///< page-locked host memory (staging of a GPU's exchanges)
    };
    Space space[4]; // device send, device receive, host send, host receive
    /// The GPU's exchange times: event pairs around each exchange on the library's stream,
    /// resolved when the time is asked for (no wait per exchange)
    std::vector<void *>                    events;
    std::vector<std::pair<void *, void *>> pending;
    std::size_t                            used = 0;
    /// the second stream of overlapped exchanges, the events that start and end them there
    void *side = nullptr, *ready = nullptr, *done = nullptr;
    bool  in_flight = false;
    /// the device buffers' addresses are held by a recorded graph (reserve_for_recording)
    bool  pinned_in_place = false;
    void *next_event()
    {
      if (used == events.size())
        events.push_back(event_create());
      return events[used++];
    }
    ~Buffers()
    {
      for (Space &s : space)
        release(s);
      for (void *e : events)
        event_destroy(e);
      if (side)
        {
          event_destroy(ready);
          event_destroy(done);
          side_stream_destroy(side);
        }
    }
    static void release(Space &s)
    {
      if (!s.p)
        return;
      if (s.space == Backend::cuda)
        device_free(s.p);
      else if (s.pinned)
        host_pinned_free(s.p);
      else
        std::free(s.p);
      s.p = nullptr;
    }
  };

  BoxLayout::BoxLayout(const CartesianLevel &level, Backend backend)
    : whole_(level.whole()), stored_(level.whole()), comm_(Communicator::self()), backend_(backend),
      buffers_(std::make_unique<Buffers>())
  {
    owned_.extent = node_counts(stored_);
  }

  BoxLayout::BoxLayout(const HierarchyPartition &partition, int l, const Communicator &comm, Backend backend)
    : whole_(partition.level(l)), comm_(comm), backend_(backend), buffers_(std::make_unique<Buffers>())
  {
    const ProcessGrid &grid = partition.grid();
    if (comm.size() != grid.size())
      throw std::invalid_argument("BoxLayout: " + std::to_string(comm.size()) + " ranks for a grid of " +
                                  std::to_string(grid.size()));
    const int rank = comm.rank();
    stores_        = partition.stores(l, rank);
    distributed_   = partition.ghosted(l);
    split_         = partition.distributed(l) && grid.size() > 1;
    stored_        = partition.stored(l, rank);
    if (!stores_)
      return;
    if (!distributed_)
      {
        owned_.extent = node_counts(stored_);
        return;
      }
    Plan p = plan(partition, l, rank);
    owned_ = p.owned;
    for (int i = 0; i < 2; ++i)
      {
        sends_[i]    = std::move(p.sends[i]);
        receives_[i] = std::move(p.receives[i]);
      }
    colour_sends_    = std::move(p.colour_sends);
    colour_receives_ = std::move(p.colour_receives);
    if (sends_[1].size() > std::size_t(halo_kernels::max_boxes) ||
        receives_[1].size() > std::size_t(halo_kernels::max_boxes))
      throw std::logic_error("BoxLayout: more neighbours than a ghost exchange handles");
    if (!split_)
      return;
    // the level as rank 0 stores it alone (gather's target, scatter's source) and, along
    // periodic directions, the exchange that fills its ghost layers
    const HierarchyPartition one_rank({whole_}, ProcessGrid{whole_.dim, {{1, 1, 1}}});
    gathered_ = one_rank.stored(0, 0);
    if (comm.rank() == 0 && whole_.periodic != 0)
      alone_ = std::make_unique<BoxLayout>(one_rank, 0, Communicator::self(), backend);
    // for the gather to rank 0 and the scatter from it
    for (int r = 0; r < grid.size(); ++r)
      {
        std::array<index_t, 3> p0, p1;
        owned_nodes(partition.owned(l, r), p0, p1);
        NodeBox owned_box;
        owned_box.begin = p0;
        for (std::size_t d = 0; d < 3; ++d)
          owned_box.extent[d] = p1[d] - p0[d];
        owned_boxes_.push_back({r, owned_box});
        const CartesianLevel part = partition.stored(l, r);
        NodeBox              stored_box;
        for (std::size_t d = 0; d < 3; ++d)
          {
            stored_box.begin[d]  = int(d) < part.dim ? part.degree * part.global_offset(int(d)) : 0;
            stored_box.extent[d] = part.nodes(int(d));
          }
        stored_boxes_.push_back({r, stored_box});
      }
  }

  BoxLayout::~BoxLayout() = default;

  NodeBox BoxLayout::to_gathered(const NodeBox &b) const
  {
    NodeBox r = b;
    for (int d = 0; d < gathered_.dim; ++d)
      r.begin[std::size_t(d)] -= gathered_.degree * gathered_.global_offset(d);
    return r;
  }

  index_t BoxLayout::gathered_size() const { return split_ ? gathered_.n_dofs() : size(); }

  index_t BoxLayout::global_index(index_t i) const
  {
    const index_t       n0 = stored_.nodes(0), n1 = stored_.nodes(1);
    const index_t       x = i % n0, y = (i / n0) % n1, z = i / (n0 * n1);
    index_t             g[3]      = {x, y, z};
    const NodeNumbering numbering = stored_.numbering(); // (copies across a periodic face: one node)
    for (int d = 0; d < stored_.dim; ++d)
      g[d] = numbering.wrap(d, g[d] + stored_.degree * stored_.global_offset(d));
    return g[0] + whole_.nodes(0) * (g[1] + whole_.nodes(1) * g[2]);
  }

  double BoxLayout::exchange_seconds() const
  {
    for (const auto &[start, stop] : buffers_->pending)
      exchange_seconds_ += event_elapsed_seconds(start, stop);
    buffers_->pending.clear();
    buffers_->used = 0;
    return exchange_seconds_;
  }

  void BoxLayout::reserve_for_recording(bool gathers) const
  {
    if (backend_ != Backend::cuda || !distributed_ || buffers_->pinned_in_place)
      return;
    // the most values one transfer packs or unpacks: a ghost exchange of all layers; with the
    // gather and scatter each rank's owned and stored nodes, and on rank 0 those of every rank
    index_t most = std::max(values_in(sends_[1]), values_in(receives_[1]));
    if (gathers)
      most = std::max({most, size(), values_in(owned_boxes_), values_in(stored_boxes_)});
    for (int which : {0, 1})
      buffer(which, std::size_t(most) * sizeof(double), Backend::cuda);
    buffers_->pinned_in_place = true;
  }

  void BoxLayout::reset_exchange_times() const
  {
    exchange_seconds();
    exchange_seconds_ = 0;
    exchanges_        = 0;
  }

  index_t BoxLayout::values_in(const std::vector<Halo> &halos)
  {
    index_t n = 0;
    for (const Halo &h : halos)
      n += h.box.size();
    return n;
  }

  index_t BoxLayout::ghost_values_sent() const { return values_in(sends_[1]); }

  void *BoxLayout::buffer(int which, std::size_t bytes, Backend space) const
  {
    // host memory is page-locked only for a GPU's staging (the CPU backend must not need CUDA)
    const bool      pinned = space == Backend::cpu && backend_ == Backend::cuda;
    Buffers::Space &s      = buffers_->space[which];
    if (bytes > s.bytes || (s.p && (s.space != space || s.pinned != pinned)))
      {
        if (buffers_->pinned_in_place && space == Backend::cuda)
          throw std::logic_error("BoxLayout: an exchange of " + std::to_string(bytes) +
                                 " bytes needs more staging space than was reserved for a recorded CUDA graph (" +
                                 std::to_string(s.bytes) + ")");
        Buffers::release(s);
        s.bytes  = std::max<std::size_t>(bytes, 4096);
        s.space  = space;
        s.pinned = pinned;
        if (space == Backend::cuda)
          s.p = device_allocate(s.bytes);
        else if (pinned)
          s.p = host_pinned_allocate(s.bytes);
        else if (!(s.p = std::malloc(s.bytes)))
          throw std::bad_alloc();
      }
    return s.p;
  }

  template <typename Number>
  void BoxLayout::transfer(const Number *v, const std::array<index_t, 3> &nodes, const std::vector<Halo> &sends,
                           Number *w, const std::array<index_t, 3> &w_nodes, const std::vector<Halo> &receives,
                           bool add, int tag) const
  {
    // the time from the end of the work queued before to the unpacking's end: events on the GPU's
    // stream, the wall clock on the CPU
    if (sends.empty() && receives.empty()) // (this rank's part of an exchange that skips it)
      return;
    const bool gpu = backend_ == Backend::cuda;
    // (inside a graph's recording nothing runs: no event to time, no wait)
    const bool recording = gpu && graph_recording();
    if (gpu && !recording && buffers_->pending.size() >= max_pending_exchange_times)
      exchange_seconds(); // (waits for the exchange before this one, once in many)
    const auto start       = std::chrono::steady_clock::now();
    void      *start_event = nullptr;
    if (gpu && !recording)
      event_record(start_event = buffers_->next_event());
    // the boxes of one launch, at most max_boxes (gather and scatter take several launches); each
    // list's offsets count from its own first value, which lies at `base` in the buffer
    struct Launch
    {
      halo_kernels::BoxList boxes;
      index_t               base = 0;
    };
    auto lists = [](const std::vector<Halo> &halos, const std::array<index_t, 3> &n, index_t &total) {
      std::vector<Launch> out;
      total = 0;
      for (const Halo &h : halos)
        {
          if (out.empty() || out.back().boxes.count == halo_kernels::max_boxes)
            {
              out.emplace_back();
              for (std::size_t d = 0; d < 3; ++d)
                out.back().boxes.nodes[d] = n[d];
              out.back().boxes.first[0] = 0;
              out.back().base           = total;
            }
          if (h.box.size() >= (index_t(1) << 32))
            throw std::length_error("BoxLayout: a box of " + std::to_string(h.box.size()) +
                                    " ghost values to exchange (at most 2^32 - 1 per message)");
          halo_kernels::BoxList &b = out.back().boxes;
          for (std::size_t d = 0; d < 3; ++d)
            {
              b.begin[b.count][d]  = h.box.begin[d];
              b.extent[b.count][d] = h.box.extent[d];
            }
          total += h.box.size();
          b.first[b.count + 1] = b.first[b.count] + h.box.size();
          ++b.count;
        }
      return out;
    };
    index_t                   n_out = 0, n_in = 0;
    const std::vector<Launch> out_lists = lists(sends, nodes, n_out), in_lists = lists(receives, w_nodes, n_in);
    const std::size_t out_bytes = std::size_t(n_out) * sizeof(Number), in_bytes = std::size_t(n_in) * sizeof(Number);

    // pack on the backend; then the path of the communicator (Communicator::exchange_path): NCCL
    // on the stream (no wait here), MPI on the device buffers, or MPI on page-locked copies
    const ExchangePath path       = gpu ? comm_.exchange_path() : ExchangePath::host;
    const auto         other_rank = [&](const Halo &h) { return h.rank != comm_.rank(); };
    const bool         others =
      std::any_of(sends.begin(), sends.end(), other_rank) || std::any_of(receives.begin(), receives.end(), other_rank);
    const bool staged = gpu && others && path == ExchangePath::host;
    if (recording && others && path != ExchangePath::nccl)
      throw std::logic_error(std::string("BoxLayout: a CUDA graph cannot record an exchange through ") +
                             to_string(path) + " (only NCCL's stays on the stream)");
    auto *packed  = static_cast<Number *>(buffer(0, out_bytes, backend_));
    auto *arrived = static_cast<Number *>(buffer(1, in_bytes, backend_));
    for (const Launch &l : out_lists)
      forall(backend_, l.boxes.first[l.boxes.count], halo_kernels::Pack<Number>{l.boxes, v, packed + l.base});
    Number *send_data = packed, *receive_data = arrived;
    if (staged)
      {
        send_data    = static_cast<Number *>(buffer(2, out_bytes, Backend::cpu));
        receive_data = static_cast<Number *>(buffer(3, in_bytes, Backend::cpu));
        copy_bytes(send_data, Backend::cpu, packed, backend_, out_bytes); // waits for the packing
      }
    else if (gpu && others && path == ExchangePath::mpi)
      synchronize(backend_);
    // messages to this rank itself (across a periodic face, a ring of one box) are copies in
    // the backend's memory, the i-th sent to itself the i-th received from itself (plan's order)
    std::vector<Communicator::Message> out, in;
    std::vector<index_t>               self_from, self_to, self_size;
    {
      index_t at = 0;
      for (const Halo &h : sends)
        {
          if (h.rank == comm_.rank())
            self_from.push_back(at), self_size.push_back(h.box.size());
          else
            out.push_back({h.rank, send_data + at, std::size_t(h.box.size()) * sizeof(Number)});
          at += h.box.size();
        }
      at = 0;
      for (const Halo &h : receives)
        {
          if (h.rank == comm_.rank())
            self_to.push_back(at);
          else
            in.push_back({h.rank, receive_data + at, std::size_t(h.box.size()) * sizeof(Number)});
          at += h.box.size();
        }
    }
    if (self_from.size() != self_to.size())
      throw std::logic_error("BoxLayout: unmatched messages of a rank to itself");
    // (a rank alone in its rings receives from itself what it sent, in the same order: the
    // unpacking reads the packed buffer itself, no copy)
    const bool in_place = !others && self_from == self_to;
    if (in_place)
      arrived = packed;
    else
      for (std::size_t i = 0; i < self_from.size(); ++i)
        copy_bytes(arrived + self_to[i], backend_, packed + self_from[i], backend_,
                   std::size_t(self_size[i]) * sizeof(Number));
    if (!out.empty() || !in.empty())
      {
        if (gpu && path == ExchangePath::nccl)
          comm_.exchange_on_stream(out, in);
        else
          comm_.exchange(out, in, tag);
      }
    if (staged && !in.empty())
      for (const Communicator::Message &m : in) // (the messages from other ranks alone)
        {
          const std::size_t at = std::size_t(static_cast<Number *>(m.data) - receive_data);
          copy_bytes(arrived + at, backend_, m.data, Backend::cpu, m.bytes);
        }
    for (const Launch &l : in_lists)
      forall(backend_, l.boxes.first[l.boxes.count], halo_kernels::Unpack<Number>{l.boxes, arrived + l.base, w, add});
    if (recording)
      return;
    if (gpu)
      {
        void *stop = buffers_->next_event();
        event_record(stop);
        buffers_->pending.emplace_back(start_event, stop);
      }
    else
      exchange_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++exchanges_;
  }

  template <typename Number>
  void BoxLayout::exchange_ghosts(Vector<Number> &v, const std::vector<Halo> &sends, const std::vector<Halo> &receives,
                                  const char *what) const
  {
    if (v.size() != size())
      throw std::invalid_argument(std::string("BoxLayout::") + what + ": a vector of " + std::to_string(v.size()) +
                                  " values for a layout of " + std::to_string(size()));
    const auto n = node_counts(stored_);
    transfer(v.data(), n, sends, v.data(), n, receives, false, ghost_tag);
  }

  template <typename Number>
  void BoxLayout::update_ghosts(Vector<Number> &v, GhostLayers layers) const
  {
    if (!distributed_)
      return;
    const int which = layers == GhostLayers::all ? 1 : 0;
    exchange_ghosts(v, sends_[which], receives_[which], "update_ghosts");
  }

  template <typename Number>
  void BoxLayout::update_ghosts_after_colour(Vector<Number> &v, int colour) const
  {
    if (!distributed_)
      return;
    if (colour < 0 || colour >= int(colour_sends_.size()))
      throw std::invalid_argument("BoxLayout::update_ghosts_after_colour: colour " + std::to_string(colour));
    exchange_ghosts(v, colour_sends_[std::size_t(colour)], colour_receives_[std::size_t(colour)],
                    "update_ghosts_after_colour");
  }

  template <class Exchange>
  void BoxLayout::start_on_side_stream(const Exchange &exchange) const
  {
    if (backend_ != Backend::cuda || !distributed_) // nothing to run beside: exchange here
      {
        exchange();
        return;
      }
    Buffers &b = *buffers_;
    if (b.in_flight)
      throw std::logic_error("BoxLayout: an overlapped ghost exchange started before the last one finished");
    if (!b.side)
      {
        b.ready = event_create();
        b.done  = event_create();
        b.side  = side_stream_create();
      }
    event_record(b.ready);
    {
      ScopedStream on_side(b.side);
      event_wait(b.ready);
      exchange();
      event_record(b.done);
    }
    b.in_flight = true;
  }

  template <typename Number>
  void BoxLayout::start_update_ghosts_after_colour(Vector<Number> &v, int colour) const
  {
    // (on the GPU, a colour with nothing to move starts nothing on the second stream)
    if (backend_ == Backend::cuda && colour >= 0 && colour < int(colour_sends_.size()) &&
        colour_sends_[std::size_t(colour)].empty() && colour_receives_[std::size_t(colour)].empty())
      return;
    start_on_side_stream([&] { update_ghosts_after_colour(v, colour); });
  }

  template <typename Number>
  void BoxLayout::start_update_ghosts(Vector<Number> &v, GhostLayers layers) const
  {
    start_on_side_stream([&] { update_ghosts(v, layers); });
  }

  void BoxLayout::finish_ghost_update() const
  {
    if (!buffers_->in_flight)
      return;
    event_wait(buffers_->done);
    buffers_->in_flight = false;
  }

  template <typename Number>
  void BoxLayout::gather(const Vector<Number> &v, Vector<Number> &whole) const
  {
    if (v.size() != size())
      throw std::invalid_argument("BoxLayout::gather: vector size does not match the layout");
    if (!distributed_)
      {
        if (stores_)
          {
            whole.reinit(v.size(), backend_, false);
            whole.copy_from(v);
          }
        return;
      }
    const bool root = comm_.rank() == 0;
    if (root)
      whole.reinit(gathered_.n_dofs(), backend_, false);
    std::vector<Halo> sends{{0, owned_}}, receives;
    if (root)
      for (const Halo &h : owned_boxes_)
        receives.push_back({h.rank, to_gathered(h.box)});
    transfer(v.data(), node_counts(stored_), sends, root ? whole.data() : nullptr, node_counts(gathered_), receives,
             false, gather_tag);
    if (alone_) // (rank 0: the copies beyond the periodic faces)
      alone_->update_ghosts(whole, GhostLayers::all);
  }

  template <typename Number>
  void BoxLayout::scatter(const Vector<Number> &whole, Vector<Number> &v, bool add) const
  {
    if (v.size() != size())
      throw std::invalid_argument("BoxLayout::scatter: vector size does not match the layout");
    if (!distributed_)
      {
        if (stores_)
          {
            if (whole.size() != v.size())
              throw std::invalid_argument("BoxLayout::scatter: the whole vector does not match the level");
            if (add)
              forall(backend_, v.size(), vector_kernels::Axpy<Number>{Number(1), whole.data(), v.data()});
            else
              v.copy_from(whole);
          }
        return;
      }
    const bool root = comm_.rank() == 0;
    if (root && whole.size() != gathered_.n_dofs())
      throw std::invalid_argument("BoxLayout::scatter: the whole vector does not match the level");
    NodeBox all;
    all.extent = node_counts(stored_);
    std::vector<Halo> sends, receives{{0, all}};
    if (root)
      for (const Halo &h : stored_boxes_)
        sends.push_back({h.rank, to_gathered(h.box)});
    transfer(root ? whole.data() : nullptr, node_counts(gathered_), sends, v.data(), node_counts(stored_), receives,
             add, scatter_tag);
  }

#define TPMG_INSTANTIATE(N)                                                             \
  template void BoxLayout::update_ghosts<N>(Vector<N> &, GhostLayers) const;            \
  template void BoxLayout::update_ghosts_after_colour<N>(Vector<N> &, int) const;       \
  template void BoxLayout::start_update_ghosts_after_colour<N>(Vector<N> &, int) const; \
  template void BoxLayout::start_update_ghosts<N>(Vector<N> &, GhostLayers) const;      \
  template void BoxLayout::gather<N>(const Vector<N> &, Vector<N> &) const;             \
  template void BoxLayout::scatter<N>(const Vector<N> &, Vector<N> &, bool) const;
  TPMG_INSTANTIATE(float)
  TPMG_INSTANTIATE(double)
#undef TPMG_INSTANTIATE

  HierarchyLayout::HierarchyLayout(const std::vector<CartesianLevel> &levels, const Communicator &comm, Backend backend,
                                   int coarsest, index_t min_rank_dofs, GatherLevel gather)
    : partition_(levels, make_process_grid(comm.size(), levels), comm.size() > 1 ? coarsest : 0, min_rank_dofs),
      comm_(comm)
  {
    for (int l = 0; l < int(levels.size()); ++l)
      layouts_.push_back(std::make_shared<const BoxLayout>(partition_, l, comm, backend));
    if (gather == GatherLevel::coarse)
      if (const std::optional<HierarchyPartition> split = partition_.with_gather_level())
        {
          gather_level_  = partition_.first_distributed_level() - 1;
          gather_layout_ = std::make_shared<const BoxLayout>(*split, gather_level_, comm, backend);
        }
  }

  const std::shared_ptr<const BoxLayout> &HierarchyLayout::gather_layout(int l) const
  {
    static const std::shared_ptr<const BoxLayout> none;
    return l == gather_level_ ? gather_layout_ : none;
  }

  double HierarchyLayout::exchange_seconds(int l) const
  {
    const double own = level(l)->exchange_seconds();
    return gather_layout(l - 1) ? own + gather_layout(l - 1)->exchange_seconds() : own;
  }

  long HierarchyLayout::exchanges(int l) const
  {
    const long own = level(l)->exchanges();
    return gather_layout(l - 1) ? own + gather_layout(l - 1)->exchanges() : own;
  }

  void HierarchyLayout::reset_exchange_times() const
  {
    for (const auto &layout : layouts_)
      layout->reset_exchange_times();
    if (gather_layout_)
      gather_layout_->reset_exchange_times();
  }

  HierarchyLayout::HierarchyLayout(const std::vector<CartesianLevel> &levels, Backend backend)
    : partition_(levels, make_process_grid(1, levels)), comm_(Communicator::self())
  {
    for (int l = 0; l < int(levels.size()); ++l)
      layouts_.push_back(partition_.ghosted(l) // (a periodic box: parts with ghost layers)
                           ? std::make_shared<const BoxLayout>(partition_, l, comm_, backend)
                           : std::make_shared<const BoxLayout>(levels[std::size_t(l)], backend));
  }
} // namespace tpmg
