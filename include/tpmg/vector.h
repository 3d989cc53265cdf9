// A contiguous vector in host or device memory.
#pragma once

#include <tpmg/config.h>
#include <tpmg/device.h>
#include <tpmg/numbering.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tpmg
{
  /// Bytes that Vectors hold now, on either backend, and the most they held since the last
  /// reset_vector_memory_peak(): what a run's memory report counts (the solvers' work vectors
  /// included, which live only during a solve).
  namespace internal
  {
    inline std::atomic<std::size_t> vector_bytes_in_use{0}, vector_bytes_peak{0};
    inline void                     vector_bytes_allocated(std::size_t b)
    {
      const std::size_t now  = vector_bytes_in_use += b;
      std::size_t       peak = vector_bytes_peak.load();
      while (now > peak && !vector_bytes_peak.compare_exchange_weak(peak, now))
        ;
    }
    inline void vector_bytes_released(std::size_t b) { vector_bytes_in_use -= b; }
  } // namespace internal
  inline std::size_t vector_memory_in_use() { return internal::vector_bytes_in_use.load(); }
  inline std::size_t vector_memory_peak() { return internal::vector_bytes_peak.load(); }
  inline void        reset_vector_memory_peak() { internal::vector_bytes_peak = internal::vector_bytes_in_use.load(); }

  class BoxLayout; // box_layout.h
  /// The values a vector of `layout` holds on this rank, and their backend.
  index_t layout_size(const BoxLayout &layout);
  Backend layout_backend(const BoxLayout &layout);

  /// Owns n values of Number in host memory (Backend::cpu) or device memory (Backend::cuda);
  /// move-only. The operations on it are in vector_ops.h. A vector of a level of a distributed
  /// run has that level's layout (box_layout.h): its values are the nodes this rank stores, and
  /// reductions count the owned ones and sum over the ranks. A vector without a layout is a
  /// plain array on this rank.
  template <typename Number>
  class Vector
  {
  public:
    using value_type = Number;

    Vector() = default;
    Vector(index_t n, Backend backend) { reinit(n, backend); }
    /// The vector of a level's layout (zero).
    explicit Vector(std::shared_ptr<const BoxLayout> layout) { reinit(std::move(layout)); }
    Vector(const Vector &)            = delete;
    Vector &operator=(const Vector &) = delete;
    Vector(Vector &&o) noexcept { swap(o); }
    Vector &operator=(Vector &&o) noexcept
    {
      swap(o);
      return *this;
    }
    ~Vector() { release(); }

    /// The values of `layout` on its backend (contents undefined unless `zero`).
    void reinit(std::shared_ptr<const BoxLayout> layout, bool zero = true)
    {
      reinit(layout_size(*layout), layout_backend(*layout), zero);
      layout_ = std::move(layout);
    }
    /// Marks the values as those of `layout` (the size must be the layout's on this rank).
    void set_layout(std::shared_ptr<const BoxLayout> layout)
    {
      if (layout && (layout_size(*layout) != size_ || layout_backend(*layout) != backend_))
        throw std::invalid_argument("Vector::set_layout: the vector does not have the layout's size and backend");
      layout_ = std::move(layout);
    }
    /// The size, backend and layout of v (contents undefined unless `zero`).
    template <typename Other>
    void reinit_like(const Vector<Other> &v, bool zero = true)
    {
      reinit(v.size(), v.backend(), zero);
      layout_ = v.layout_ptr();
    }

    /// Resizes (contents undefined unless `zero`); a new size or backend drops the layout.
    void reinit(index_t n, Backend backend, bool zero = true)
    {
      if (n != size_ || backend != backend_)
        {
          layout_.reset();
          release();
          backend_ = backend;
          size_    = n;
          if (n > 0)
            {
              data_ =
                static_cast<Number *>(backend == Backend::cuda ? device_allocate(bytes()) : host_allocate(bytes()));
              internal::vector_bytes_allocated(bytes());
            }
        }
      if (zero)
        set_zero();
    }

    void set_zero()
    {
      if (size_ > 0)
        fill_zero(data_, backend_, bytes());
    }

    Number       *data() { return data_; }
    const Number *data() const { return data_; }
    index_t       size() const { return size_; }
    Backend       backend() const { return backend_; }
    std::size_t   bytes() const { return std::size_t(size_) * sizeof(Number); }
    /// The layout of the level the vector belongs to (null for a plain array).
    const BoxLayout                        *layout() const { return layout_.get(); }
    const std::shared_ptr<const BoxLayout> &layout_ptr() const { return layout_; }

    /// Copies of the values on the host, and back (sizes must match).
    std::vector<Number> to_host() const
    {
      std::vector<Number> h(size_);
      copy_bytes(h.data(), Backend::cpu, data_, backend_, bytes());
      return h;
    }
    void from_host(const std::vector<Number> &h)
    {
      if (index_t(h.size()) != size_)
        throw std::invalid_argument("Vector::from_host: size mismatch");
      copy_bytes(data_, backend_, h.data(), Backend::cpu, bytes());
    }
    /// Same-type copy (sizes must match; backends may differ).
    void copy_from(const Vector &o)
    {
      if (o.size_ != size_)
        throw std::invalid_argument("Vector::copy_from: size mismatch");
      copy_bytes(data_, backend_, o.data_, o.backend_, bytes());
    }

    void swap(Vector &o) noexcept
    {
      std::swap(data_, o.data_);
      std::swap(size_, o.size_);
      std::swap(backend_, o.backend_);
      std::swap(layout_, o.layout_);
    }

  private:
    static void *host_allocate(std::size_t b)
    {
      void *p = std::aligned_alloc(64, (b + 63) / 64 * 64);
      if (!p)
        throw std::bad_alloc();
      return p;
    }
    void release()
    {
      if (data_)
        {
          if (backend_ == Backend::cuda)
            device_free(data_);
          else
            std::free(data_);
          internal::vector_bytes_released(bytes());
        }
      data_ = nullptr;
      size_ = 0;
    }

    Number                          *data_    = nullptr;
    index_t                          size_    = 0;
    Backend                          backend_ = Backend::cpu;
    std::shared_ptr<const BoxLayout> layout_;
  };
} // namespace tpmg
