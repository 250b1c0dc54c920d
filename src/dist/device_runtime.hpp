// The few CUDA runtime operations the distributed layer needs, behind host-compiler-only
// declarations. Defined in device_runtime_cuda.cpp in CUDA builds; device_runtime_stub.cpp
// (CPU-only builds) throws NotAvailable, so the CPU build needs no CUDA headers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

namespace nufftmp::dist::detail {

// cudaSetDevice for the calling thread.
void set_device(int device);
// 16-byte UUID of a device: two ranks share a GPU when their UUIDs match (device indices do
// not tell, as CUDA_VISIBLE_DEVICES may differ between ranks).
std::array<unsigned char, 16> device_uuid(int device);

// A non-blocking CUDA stream on a device, destroyed with the object (core's CudaStream).
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  void* get() const;
  void synchronize() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Device memory of a fixed size in bytes on the current device, freed with the object (core's
// DeviceBuffer, ordered on the legacy default stream and ready for any stream on return). Every
// use in src/dist is synchronous (blocking copies, executes that wait), so no work is pending
// on a buffer when it is freed.
class DeviceBuffer {
 public:
  DeviceBuffer();
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  void* get() const;
  std::size_t bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Blocking copies between host and device memory (cudaMemcpy with cudaMemcpyDefault).
void copy_bytes(void* dst, const void* src, std::size_t bytes);
// Sets device memory to zero, ordered on `stream`, and waits for it.
void zero_device_bytes(void* dst, std::size_t bytes, void* stream);

}  // namespace nufftmp::dist::detail
