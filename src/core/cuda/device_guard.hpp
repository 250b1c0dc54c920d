// Makes a device current for a scope and restores the caller's device afterwards, so a plan
// on device 1 never leaves the calling thread switched away from its own device.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cuda/cuda_check.hpp"

namespace nufftmp::detail {

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    NUFFTMP_CUDA_TRY(cudaGetDevice(&previous_));
    if (device != previous_) NUFFTMP_CUDA_TRY(cudaSetDevice(device));
    switched_ = device != previous_;
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(previous_);  // cannot throw from a destructor
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// The device a plan runs on: Options::gpu_device, or the calling thread's current device for -1.
// Error(InvalidArgument) for a device that is not visible.
inline int resolve_device(int requested) {
  int count = 0;
  NUFFTMP_CUDA_TRY(cudaGetDeviceCount(&count));
  if (requested < 0) {
    int cur = 0;
    NUFFTMP_CUDA_TRY(cudaGetDevice(&cur));
    return cur;
  }
  if (requested >= count)
    throw Error(ErrorCode::InvalidArgument, "gpu_device = " + std::to_string(requested) +
                                                " but only " + std::to_string(count) +
                                                " CUDA device(s) are visible");
  return requested;
}

}  // namespace nufftmp::detail
