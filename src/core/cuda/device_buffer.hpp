// An owning, stream-ordered device array from the library's memory pool (device_pool.hpp).
// Allocation and release are ordered on the owner's stream, so growing a buffer in set_points
// never forces a device-wide synchronisation, and a freed buffer stays cached in the pool for
// the next one. Move-only; the destructor frees on the right device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"
#include "cuda/device_pool.hpp"

namespace nufftmp::detail {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t count, int device, cudaStream_t stream, const char* what) {
    allocate(count, device, stream, what);
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Frees any old contents, then allocates count elements (uninitialised). `what` names the
  // buffer in the out-of-memory message.
  void allocate(std::size_t count, int device, cudaStream_t stream, const char* what) {
    release();
    device_ = device;
    stream_ = stream;
    if (count == 0) return;
    DeviceGuard guard(device);
    void* p = pool_allocate(count * sizeof(T), device, stream, what);
    ptr_ = static_cast<T*>(p);
    count_ = count;
  }
  // Keeps the contents when already large enough (contents are then stale, not zeroed).
  void reserve(std::size_t count, int device, cudaStream_t stream, const char* what) {
    if (count > count_ || device != device_ || stream != stream_) allocate(count, device, stream, what);
  }
  void release() noexcept {
    if (ptr_ != nullptr) {
      int prev = 0;
      cudaGetDevice(&prev);
      if (prev != device_) cudaSetDevice(device_);
      pool_free(ptr_, device_, stream_);
      if (prev != device_) cudaSetDevice(prev);
    }
    ptr_ = nullptr;
    count_ = 0;
  }

  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    std::swap(device_, o.device_);
    std::swap(stream_, o.stream_);
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace nufftmp::detail
