// Shared-memory bank-conflict recorder for the CPU runner (docs/kernels.md, "Bank-conflict recorder").
//
// A RecordingShared view hands out array proxies that log every load and store with the
// thread that made it. Within one phase, the i-th shared access of each thread of a warp
// is taken to be the same warp instruction (true for the uniform control flow of our
// kernels). For each such warp instruction the recorder counts the wavefronts the
// hardware needs: 32 banks of 4 bytes, a 64-bit word occupies two banks, threads reading
// the same 4-byte word are served together (broadcast). Accesses of w > 4 bytes are served
// in groups of 128 / w lanes (8 bytes: the half-warps 0-15 and 16-31), each on its own:
// two half-warps never share a wavefront, even when they read the same words or their
// banks do not overlap (measured on the H100 with tools/bank_probe.cu; docs/performance/method.md, "Ceilings").
// The minimum is one wavefront per 128 distinct bytes of a group; everything above that is
// a bank conflict.
//
// The recorder also checks the ordering the barriers give (runner.h): a shared word one thread
// writes in a phase must not be read or written by another thread of that phase (nothing orders
// them, on the GPU not even within a warp). Each access that does is a hazard.
#pragma once

#include <kernels/runtime/runner.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <map>
#include <vector>

namespace tpmg
{
  struct BankConflictCounts
  {
    std::size_t instructions = 0; ///< warp-level shared-memory instructions
    std::size_t wavefronts   = 0; ///< wavefronts (replays included) they needed
    std::size_t ideal        = 0; ///< wavefronts a conflict-free layout needs
    std::size_t hazards      = 0; ///< accesses racing with another thread's (no barrier between)

    std::size_t         conflicts() const { return wavefronts - ideal; }
    BankConflictCounts &operator+=(const BankConflictCounts &o)
    {
      instructions += o.instructions;
      wavefronts += o.wavefronts;
      ideal += o.ideal;
      hazards += o.hazards;
      return *this;
    }
  };

  class BankRecorder
  {
  public:
    struct Access
    {
      std::size_t byte_offset;
      unsigned    width;
      bool        store;
    };

    void begin_thread(unsigned t, int phase)
    {
      current_ = t;
      phase_   = phase;
      if (per_thread_.size() <= t)
        per_thread_.resize(t + 1);
    }

    void record(std::size_t byte_offset, unsigned width, bool store)
    {
      per_thread_[current_].push_back(Access{byte_offset, width, store});
      check_order(byte_offset, width, store);
    }

    /// Analyses the accesses of the phase that just ended, warp by warp.
    void end_phase(int phase)
    {
      const std::size_t n_threads = per_thread_.size();
      for (std::size_t w0 = 0; w0 < n_threads; w0 += 32)
        {
          const std::size_t w1      = std::min(n_threads, w0 + 32);
          std::size_t       n_instr = 0;
          for (std::size_t t = w0; t < w1; ++t)
            n_instr = std::max(n_instr, per_thread_[t].size());
          for (std::size_t i = 0; i < n_instr; ++i)
            {
              BankConflictCounts c;
              c.instructions    = 1;
              std::size_t width = 4;
              for (std::size_t t = w0; t < w1; ++t)
                if (i < per_thread_[t].size())
                  width = std::max<std::size_t>(width, per_thread_[t][i].width);
              const std::size_t group = 32 * 4 / width; // lanes served together
              for (std::size_t g0 = w0; g0 < w1; g0 += group)
                {
                  words_.clear();
                  for (std::size_t t = g0; t < std::min(w1, g0 + group); ++t)
                    if (i < per_thread_[t].size())
                      {
                        const Access &a = per_thread_[t][i];
                        for (std::size_t w = a.byte_offset / 4; w <= (a.byte_offset + a.width - 1) / 4; ++w)
                          words_.push_back(w);
                      }
                  if (words_.empty())
                    continue;
                  std::sort(words_.begin(), words_.end());
                  words_.erase(std::unique(words_.begin(), words_.end()), words_.end());
                  std::array<std::size_t, 32> per_bank{};
                  for (std::size_t w : words_)
                    ++per_bank[w % 32];
                  c.wavefronts += *std::max_element(per_bank.begin(), per_bank.end());
                  c.ideal += (words_.size() + 31) / 32;
                }
              per_phase_[phase] += c;
              total_ += c;
            }
        }
      for (auto &v : per_thread_)
        v.clear();
      ++phases_run_; // the next accesses are after a barrier
    }

    const BankConflictCounts                &total() const { return total_; }
    const std::map<int, BankConflictCounts> &per_phase() const { return per_phase_; }
    void                                     reset()
    {
      total_ = {};
      per_phase_.clear();
      per_thread_.clear();
      words_state_.clear();
      ++phases_run_;
    }

  private:
    /// who touched a 4-byte word in which phase (phases_run_ + 1 at the time): its writer,
    /// and its reader (-2: several)
    struct WordState
    {
      std::size_t write_phase = 0, read_phase = 0;
      long        writer = -1, reader = -1;
    };

    void check_order(std::size_t byte_offset, unsigned width, bool store)
    {
      const long        t   = long(current_);
      const std::size_t now = phases_run_ + 1; // 0 marks "never"
      if (words_state_.size() * 4 < byte_offset + width)
        words_state_.resize((byte_offset + width + 3) / 4);
      bool hazard = false;
      for (std::size_t w = byte_offset / 4; w <= (byte_offset + width - 1) / 4; ++w)
        {
          WordState &s = words_state_[w];
          hazard |= s.write_phase == now && s.writer != t;
          if (store)
            {
              hazard |= s.read_phase == now && s.reader != t; // -2 differs from every thread
              s.write_phase = now;
              s.writer      = t;
            }
          else
            {
              s.reader     = s.read_phase != now || s.reader == t ? t : -2;
              s.read_phase = now;
            }
        }
      if (hazard)
        {
          ++per_phase_[phase_].hazards;
          ++total_.hazards;
        }
    }

    unsigned                          current_    = 0;
    int                               phase_      = 0;
    std::size_t                       phases_run_ = 0;
    std::vector<std::vector<Access>>  per_thread_;
    std::vector<WordState>            words_state_;
    std::vector<std::size_t>          words_;
    BankConflictCounts                total_;
    std::map<int, BankConflictCounts> per_phase_;
  };

  /// Reference into shared memory that logs loads and stores.
  template <typename T>
  class RecordedRef
  {
  public:
    RecordedRef(T *p, const unsigned char *base, BankRecorder *rec) : p_(p), base_(base), rec_(rec) {}
    operator T() const
    {
      log(false);
      return *p_;
    }
    RecordedRef &operator=(const T &v)
    {
      log(true);
      *p_ = v;
      return *this;
    }
    RecordedRef &operator=(const RecordedRef &o) { return *this = T(o); }
    RecordedRef &operator+=(const T &v) { return *this = T(*this) + v; }
    RecordedRef &operator-=(const T &v) { return *this = T(*this) - v; }

  private:
    void log(bool store) const
    {
      rec_->record(std::size_t(reinterpret_cast<const unsigned char *>(p_) - base_), sizeof(T), store);
    }
    T                   *p_;
    const unsigned char *base_;
    BankRecorder        *rec_;
  };

  template <typename T>
  class RecordedPtr
  {
  public:
    RecordedPtr(T *p, const unsigned char *base, BankRecorder *rec) : p_(p), base_(base), rec_(rec) {}
    RecordedRef<T> operator[](std::ptrdiff_t i) const { return RecordedRef<T>(p_ + i, base_, rec_); }
    RecordedPtr    operator+(std::ptrdiff_t i) const { return RecordedPtr(p_ + i, base_, rec_); }

  private:
    T                   *p_;
    const unsigned char *base_;
    BankRecorder        *rec_;
  };

  /// Shared view for the CPU runner that records every access.
  struct RecordingShared
  {
    unsigned char *base;
    BankRecorder  *recorder;

    template <typename T>
    RecordedPtr<T> array(std::size_t byte_offset) const
    {
      return RecordedPtr<T>(reinterpret_cast<T *>(base + byte_offset), base, recorder);
    }
    void begin_thread(unsigned t, int phase) { recorder->begin_thread(t, phase); }
    void end_phase(int phase) { recorder->end_phase(phase); }
  };

  /// Runs the given blocks of a kernel on the host (serially) under the recorder.
  /// The kernel's results are those of a normal run restricted to these blocks.
  template <class Kernel>
  BankConflictCounts record_bank_conflicts(const Kernel &kernel, const LaunchShape &shape,
                                           const std::vector<Dim3> &blocks, BankRecorder *recorder_out = nullptr)
  {
    std::vector<unsigned char> storage(shape.shared_bytes + 128);
    // Align the shared base to 128 bytes, as on the GPU.
    auto           *base = reinterpret_cast<unsigned char *>((reinterpret_cast<std::uintptr_t>(storage.data()) + 127) &
                                                   ~std::uintptr_t(127));
    BankRecorder    local;
    BankRecorder   &rec = recorder_out ? *recorder_out : local;
    RecordingShared shared{base, &rec};
    std::vector<typename Kernel::Registers> regs(shape.block.size());
    for (const Dim3 &b : blocks)
      run_block_on_host(kernel, shape, b, shared, regs.data());
    return rec.total();
  }
} // namespace tpmg
