// Device buffers of the bench's cuda backend (cudaMalloc + blocking copies). Host code only,
// compiled by the host compiler against CUDA::cudart.
#include <cuda_runtime.h>

#include <string>

#include "cuda_check.hpp"
#include "device_memory.hpp"

namespace nufftmp::bench {

namespace {

class CudaBuffer final : public DeviceBuffer {
 public:
  explicit CudaBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) cuda_check(cudaMalloc(&ptr_, bytes_), "cudaMalloc");
  }
  ~CudaBuffer() override {
    if (ptr_) cudaFree(ptr_);
  }
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;
  void* data() override { return ptr_; }
  std::size_t bytes() const override { return bytes_; }
  void copy_from_host(const void* src, std::size_t bytes) override {
    if (bytes) cuda_check(cudaMemcpy(ptr_, src, bytes, cudaMemcpyHostToDevice), "copy to device");
  }
  void copy_to_host(void* dst, std::size_t bytes) const override {
    if (bytes) cuda_check(cudaMemcpy(dst, ptr_, bytes, cudaMemcpyDeviceToHost), "copy to host");
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
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

void init_device_context() { cuda_check(cudaFree(nullptr), "creating the CUDA context"); }

}  // namespace nufftmp::bench
