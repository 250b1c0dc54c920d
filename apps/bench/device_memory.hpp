// Device buffers for the bench's cuda backend, behind an interface the host-only files can
// include. Implemented with the CUDA runtime in device_memory_cuda.cpp, or by stubs that throw
// NotAvailable in cuda_absent.cpp when the CUDA engine is not built.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace nufftmp::bench {

// Owns one device allocation (freed on destruction).
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual void* data() = 0;
  virtual std::size_t bytes() const = 0;
  virtual void copy_from_host(const void* src, std::size_t bytes) = 0;
  virtual void copy_to_host(void* dst, std::size_t bytes) const = 0;
};

std::unique_ptr<DeviceBuffer> device_alloc(std::size_t bytes);

// Name of the current CUDA device ("cpu" without CUDA).
std::string current_device_name();

// Creates the CUDA context of the current device (no-op without CUDA), so that the plan's
// timing does not include the one-off context start (hundreds of milliseconds).
void init_device_context();

}  // namespace nufftmp::bench
