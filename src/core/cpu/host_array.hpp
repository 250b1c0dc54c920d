// Uninitialised host arrays for the CPU engine's large per-point and per-mode tables.
// std::vector would zero-fill them first: one more pass over memory, and every page faulted in
// by one thread; here the parallel loops that write the contents touch the pages first. Large
// arrays are 2 MiB-aligned and marked for transparent huge pages (Linux madvise), so a first
// touch costs one fault per 2 MiB instead of one per 4 KiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace nufftmp::detail::cpu {

// Raw memory for HostArray: at least 64-byte aligned; throws Error(OutOfMemory) naming `what`
// and the size when it cannot be had.
void* host_allocate(std::size_t bytes, const char* what);
void host_free(void* p) noexcept;

template <typename T>
class HostArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "HostArray holds plain values only");

 public:
  HostArray() = default;
  ~HostArray() { host_free(data_); }
  HostArray(HostArray&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
  HostArray& operator=(HostArray&& o) noexcept {
    if (this != &o) {
      host_free(data_);
      data_ = std::exchange(o.data_, nullptr);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;

  // Room for n values. Grows only, and then discards the contents (every caller rewrites
  // them): the same or a smaller n allocates nothing. Throws Error(OutOfMemory).
  void ensure(std::int64_t n, const char* what) {
    if (n <= capacity_) return;
    host_free(std::exchange(data_, nullptr));
    capacity_ = 0;
    data_ = static_cast<T*>(host_allocate(static_cast<std::size_t>(n) * sizeof(T), what));
    capacity_ = n;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::int64_t i) { return data_[i]; }
  const T& operator[](std::int64_t i) const { return data_[i]; }
  std::int64_t capacity() const { return capacity_; }
  std::size_t bytes() const { return static_cast<std::size_t>(capacity_) * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::int64_t capacity_ = 0;
};

}  // namespace nufftmp::detail::cpu
