// The launch shape of the element-wise kernels of src/mtip/gpu: blocks of kThreads threads,
// a grid of at most 65535 blocks, and grid-stride loops so that any size is covered.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nufftmp::mtip::detail {

constexpr int kThreads = 256;

inline unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, 65535));
}

}  // namespace nufftmp::mtip::detail

// for (i over [0, n) in grid-stride steps): the body sees std::int64_t i.
#define NUFFTMP_GRID_STRIDE(i, n)                                                     \
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < (n); \
       i += std::int64_t(gridDim.x) * blockDim.x)
