// Launch geometry of the one-thread-per-point kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace nufftmp::detail {

// Enough blocks to fill the device many times over; grid-stride loops cover the rest.
inline dim3 point_grid(std::int64_t M, int nvec, int threads) {
  const std::int64_t want = (M + threads - 1) / threads;
  const std::int64_t cap = std::int64_t(1) << 20;
  return dim3(static_cast<unsigned>(want < 1 ? 1 : (want < cap ? want : cap)),
              static_cast<unsigned>(nvec));
}

}  // namespace nufftmp::detail
