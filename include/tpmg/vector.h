// A contiguous vector in host or device memory.
#pragma once

#include <tpmg/config.h>
#include <tpmg/device.h>
#include <tpmg/mesh.h>

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tpmg
{
  template <typename Number>
  class Vector
  {
  public:
    using value_type = Number;

    Vector() = default;
    Vector(index_t n, Backend backend) { reinit(n, backend); }
    Vector(const Vector &) = delete;
    Vector &operator=(const Vector &) = delete;
    Vector(Vector &&o) noexcept { swap(o); }
    Vector &operator=(Vector &&o) noexcept
    {
      swap(o);
      return *this;
    }
    ~Vector() { release(); }

    /// Resizes (contents undefined unless `zero`).
    void reinit(index_t n, Backend backend, bool zero = true)
    {
      if (n != size_ || backend != backend_)
        {
          release();
          backend_ = backend;
          size_    = n;
          if (n > 0)
            data_ = static_cast<Number *>(backend == Backend::cuda
                                            ? device_allocate(bytes())
                                            : host_allocate(bytes()));
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
        }
      data_ = nullptr;
      size_ = 0;
    }

    Number *data_    = nullptr;
    index_t size_    = 0;
    Backend backend_ = Backend::cpu;
  };
} // namespace tpmg
