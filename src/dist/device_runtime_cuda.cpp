// The CUDA runtime operations of the distributed layer (see device_runtime.hpp), over core's
// CUDA helpers (src/core/cuda: error checks, stream, device buffer).
#include <cuda_runtime_api.h>

#include <cstring>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_stream.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "device_runtime.hpp"

namespace nufftmp::dist::detail {

void set_device(int device) { NUFFTMP_CUDA_TRY(cudaSetDevice(device)); }

std::array<unsigned char, 16> device_uuid(int device) {
  cudaDeviceProp prop{};
  NUFFTMP_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  std::array<unsigned char, 16> id{};
  static_assert(sizeof(prop.uuid) == 16, "cudaUUID_t is 16 bytes");
  std::memcpy(id.data(), &prop.uuid, 16);
  return id;
}

struct Stream::Impl {
  explicit Impl(int device) : stream(device) {}
  nufftmp::detail::CudaStream stream;
};
Stream::Stream(int device) : impl_(std::make_unique<Impl>(device)) {}
Stream::~Stream() = default;
void* Stream::get() const { return impl_->stream.get(); }
void Stream::synchronize() const { impl_->stream.synchronize(); }

struct DeviceBuffer::Impl {
  nufftmp::detail::DeviceBuffer<unsigned char> buf;
};
DeviceBuffer::DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(std::size_t bytes) : impl_(std::make_unique<Impl>()) {
  impl_->buf.allocate(bytes, nufftmp::detail::resolve_device(-1), nullptr,
                      "a buffer of the distributed plan");
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(nullptr));  // usable from the context's stream
}
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept = default;
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept = default;
void* DeviceBuffer::get() const { return impl_ ? impl_->buf.get() : nullptr; }
std::size_t DeviceBuffer::bytes() const { return impl_ ? impl_->buf.bytes() : 0; }

void copy_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  // Complete on return: cudaMemcpy returns before a device-to-device copy (or the DMA of a
  // pageable host-to-device one) finishes, and the collectives that read the copy next run on
  // non-blocking streams, which do not wait for the default stream. (Without this, a rank's
  // staged broadcast of its part of an all-gather sent the bytes before the copy: type 3's
  // scattered targets were wrong on every rank but 0.)
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStreamPerThread));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread));
}

void zero_device_bytes(void* dst, std::size_t bytes, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (bytes == 0) return;
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(dst, 0, bytes, s));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(s));
}

}  // namespace nufftmp::dist::detail
