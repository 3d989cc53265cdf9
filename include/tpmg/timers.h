// Per-level, per-component run-time breakdown (docs/interface.md, "Runtime breakdown"). On the GPU each timed scope
// records a pair of CUDA events on the library's stream, resolved only when the results
// are read, so timing adds no synchronization to the solve. On the CPU, wall-clock time.
#pragma once

#include <tpmg/config.h>
#include <tpmg/option_enums.h>

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace tpmg
{
  enum class Component
  {
    smoother,
    matvec,
    vector,
    restriction,
    prolongation,
    coarse_solve,
    outer_matvec, ///< the Krylov method's own operator applications (double)
    outer_vector, ///< the Krylov method's vector operations
    conversion,   ///< precision conversion of residual and correction
    vcycle_graph, ///< the whole V-cycle, replayed as one CUDA graph (its parts are not timed apart)
    count
  };
  const char *to_string(Component c);

  /// level index used for the outer (Krylov) solver's components
  constexpr int outer_level = -1;

  class Timers
  {
  public:
    explicit Timers(Backend backend, bool enabled = true);
    ~Timers();
    Timers(const Timers &)            = delete;
    Timers &operator=(const Timers &) = delete;

    class Scope
    {
    public:
      Scope(Timers *t, int level, Component c);
      ~Scope();
      Scope(const Scope &)            = delete;
      Scope &operator=(const Scope &) = delete;

    private:
      Timers                               *timers_;
      int                                   level_;
      Component                             component_;
      std::size_t                           event_ = 0;
      std::chrono::steady_clock::time_point start_;
    };


    /// Seconds accumulated so far (waits for the device).
    double seconds(int level, Component c);
    /// All levels that have entries, ascending (outer_level first).
    std::vector<int> levels();
    void             reset();
    bool             enabled() const { return enabled_; }

  private:
    void collect();
    using Totals = std::map<int, std::array<double, std::size_t(Component::count)>>;
    Backend backend_;
    bool    enabled_;
    Totals  totals_;
    struct Pending
    {
      int         level;
      Component   component;
      std::size_t start, stop; // indices into the event pool
    };
    std::vector<Pending> pending_;
    std::vector<void *>  pool_;
    std::size_t          used_ = 0;
    std::size_t          next_event();
  };
  /// Times the enclosing block as (level, c) in `t`; a no-op when t is null or disabled.
  inline Timers::Scope time_scope(Timers *t, int level, Component c)
  {
    return Timers::Scope(t && t->enabled() ? t : nullptr, level, c);
  }
} // namespace tpmg
