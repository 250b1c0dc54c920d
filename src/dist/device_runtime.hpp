// The few CUDA runtime operations the distributed layer needs, behind host-compiler-only
// declarations. Defined in device_runtime_cuda.cpp in CUDA builds; device_runtime_stub.cpp
// (CPU-only builds) throws NotAvailable, so the CPU build needs no CUDA headers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>

namespace nufftmp::dist::detail {

// cudaSetDevice for the calling thread.
void set_device(int device);
// 16-byte UUID of a device: two ranks share a GPU when their UUIDs match (device indices do
// not tell, as CUDA_VISIBLE_DEVICES may differ between ranks).
std::array<unsigned char, 16> device_uuid(int device);

// A non-blocking CUDA stream on a device, destroyed with the object.
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* get() const { return stream_; }
  void synchronize() const;

 private:
  void* stream_ = nullptr;
  int device_ = -1;
};

// Device memory of a fixed size in bytes, freed with the object.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    DeviceBuffer old(std::move(o));  // our previous memory is freed with `old`
    swap(old);
    return *this;
  }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Blocking copies between host and device memory (cudaMemcpy with cudaMemcpyDefault).
void copy_bytes(void* dst, const void* src, std::size_t bytes);
// Sets device memory to zero, ordered on `stream`, and waits for it.
void zero_device_bytes(void* dst, std::size_t bytes, void* stream);

}  // namespace nufftmp::dist::detail
