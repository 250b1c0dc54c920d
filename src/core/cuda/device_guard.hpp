// Makes a device current for a scope and restores the caller's device afterwards, so a plan
// on device 1 never leaves the calling thread switched away from its own device.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/cuda_check.hpp"

namespace nufftmp::detail {

// The device a caller's -1 stands for: the calling thread's current one.
inline int resolve_device(int device) {
  if (device >= 0) return device;
  int current = 0;
  NUFFTMP_CUDA_TRY(cudaGetDevice(&current));
  return current;
}

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

}  // namespace nufftmp::detail
