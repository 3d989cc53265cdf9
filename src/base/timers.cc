#include <tpmg/device.h>
#include <tpmg/timers.h>

namespace tpmg
{
  const char *to_string(Component c)
  {
    switch (c)
      {
        case Component::smoother:
          return "smoother";
        case Component::matvec:
          return "matvec";
        case Component::vector:
          return "vector";
        case Component::restriction:
          return "restrict";
        case Component::prolongation:
          return "prolongate";
        case Component::coarse_solve:
          return "coarse_solve";
        case Component::outer_matvec:
          return "outer_matvec";
        case Component::outer_vector:
          return "outer_vector";
        case Component::conversion:
          return "conversion";
        case Component::vcycle_graph:
          return "vcycle_graph";
        case Component::count:
          break;
      }
    return "?";
  }

  Timers::Timers(Backend backend, bool enabled) : backend_(backend), enabled_(enabled) {}

  Timers::~Timers()
  {
    for (void *e : pool_)
      event_destroy(e);
  }

  std::size_t Timers::next_event()
  {
    if (used_ == pool_.size())
      pool_.push_back(event_create());
    return used_++;
  }

  Timers::Scope::Scope(Timers *t, int level, Component c) : timers_(t), level_(level), component_(c)
  {
    if (!timers_)
      return;
    if (timers_->backend_ == Backend::cuda)
      {
        event_ = timers_->next_event();
        event_record(timers_->pool_[event_]);
      }
    else
      start_ = std::chrono::steady_clock::now();
  }

  Timers::Scope::~Scope()
  {
    if (!timers_)
      return;
    if (timers_->backend_ == Backend::cuda)
      {
        const std::size_t stop = timers_->next_event();
        event_record(timers_->pool_[stop]);
        timers_->pending_.push_back(Pending{level_, component_, event_, stop});
      }
    else
      {
        const double s   = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        auto        &row = timers_->totals_[level_];
        row[std::size_t(component_)] += s;
      }
  }

  void Timers::collect()
  {
    for (const Pending &p : pending_)
      {
        auto &row = totals_[p.level];
        row[std::size_t(p.component)] += event_elapsed_seconds(pool_[p.start], pool_[p.stop]);
      }
    pending_.clear();
    used_ = 0; // events can be reused once resolved
  }

  double Timers::seconds(int level, Component c)
  {
    collect();
    auto it = totals_.find(level);
    return it == totals_.end() ? 0.0 : it->second[std::size_t(c)];
  }

  std::vector<int> Timers::levels()
  {
    collect();
    std::vector<int> l;
    for (const auto &kv : totals_)
      l.push_back(kv.first);
    return l;
  }

  void Timers::reset()
  {
    collect();
    totals_.clear();
  }
} // namespace tpmg
