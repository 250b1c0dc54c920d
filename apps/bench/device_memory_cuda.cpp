// Device buffers of the bench's cuda backend: core's DeviceBuffer on the current device,
// ordered on the legacy default stream, with blocking copies. Host code only, compiled by the
// host compiler against the CUDA helpers of src/core/cuda.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "device_memory.hpp"

namespace nufftmp::bench {

namespace {

class CudaBuffer final : public DeviceBuffer {
 public:
  explicit CudaBuffer(std::size_t bytes)
      : buf_(bytes, detail::resolve_device(-1), nullptr, "a benchmark array") {
    // Ready for the plan's own stream too (the allocation is ordered on the default stream).
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(nullptr));
  }
  void* data() override { return buf_.get(); }
  std::size_t bytes() const override { return buf_.bytes(); }
  void copy_from_host(const void* src, std::size_t bytes) override {
    if (bytes) NUFFTMP_CUDA_TRY(cudaMemcpy(buf_.get(), src, bytes, cudaMemcpyHostToDevice));
  }
  void copy_to_host(void* dst, std::size_t bytes) const override {
    if (bytes) NUFFTMP_CUDA_TRY(cudaMemcpy(dst, buf_.get(), bytes, cudaMemcpyDeviceToHost));
  }

 private:
  detail::DeviceBuffer<unsigned char> buf_;
};

}  // namespace

std::unique_ptr<DeviceBuffer> device_alloc(std::size_t bytes) {
  return std::make_unique<CudaBuffer>(bytes);
}

std::string current_device_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
    return "unknown GPU";
  return prop.name;
}

void init_device_context() { NUFFTMP_CUDA_TRY(cudaFree(nullptr)); }

}  // namespace nufftmp::bench
