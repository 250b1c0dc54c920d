// The CUDA runtime operations of the distributed layer (see device_runtime.hpp).
#include <cuda_runtime_api.h>

#include <cstring>

#include "cuda_check.hpp"
#include "device_runtime.hpp"

namespace nufftmp::dist::detail {

void set_device(int device) { NUFFTMP_DIST_CUDA_TRY(cudaSetDevice(device)); }

std::array<unsigned char, 16> device_uuid(int device) {
  cudaDeviceProp prop{};
  NUFFTMP_DIST_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  std::array<unsigned char, 16> id{};
  static_assert(sizeof(prop.uuid) == 16, "cudaUUID_t is 16 bytes");
  std::memcpy(id.data(), &prop.uuid, 16);
  return id;
}

Stream::Stream(int device) : device_(device) {
  NUFFTMP_DIST_CUDA_TRY(cudaSetDevice(device));
  cudaStream_t s = nullptr;
  // Non-blocking: the legacy default stream of other libraries must not serialize with us.
  NUFFTMP_DIST_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  stream_ = s;
}
Stream::~Stream() {
  if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}
void Stream::synchronize() const {
  NUFFTMP_DIST_CUDA_TRY(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) NUFFTMP_DIST_CUDA_TRY(cudaMalloc(&ptr_, bytes));
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}

void copy_bytes(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  // Complete on return: cudaMemcpy returns before a device-to-device copy (or the DMA of a
  // pageable host-to-device one) finishes, and the collectives that read the copy next run on
  // non-blocking streams, which do not wait for the default stream. (Without this, a rank's
  // staged broadcast of its part of an all-gather sent the bytes before the copy: type 3's
  // scattered targets were wrong on every rank but 0.)
  NUFFTMP_DIST_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, cudaStreamPerThread));
  NUFFTMP_DIST_CUDA_TRY(cudaStreamSynchronize(cudaStreamPerThread));
}

void zero_device_bytes(void* dst, std::size_t bytes, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (bytes == 0) return;
  NUFFTMP_DIST_CUDA_TRY(cudaMemsetAsync(dst, 0, bytes, s));
  NUFFTMP_DIST_CUDA_TRY(cudaStreamSynchronize(s));
}

}  // namespace nufftmp::dist::detail
