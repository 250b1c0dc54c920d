// set_points on the device: check the coordinates, fold them into the fine grid (as the exact
// integer first cell i0 plus the Horner argument s), and counting-sort them by bin:
// warp-aggregated bin counts (a warp whose points share a bin does one atomic, so clustered
// points do not serialise on one counter), a CUB exclusive scan, and a scatter that writes the
// point data physically permuted so every execute reads it coalesced. Optionally cuts each bin
// into subproblems of at most maxsub points for the shared-memory methods.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>

#include "cuda/device_buffer.hpp"
#include "cuda/device_views.hpp"

namespace nufftmp::detail {

template <typename T>
struct SortedPoints {
  std::array<DeviceBuffer<std::int32_t>, 3> i0;
  std::array<DeviceBuffer<T>, 3> s;
  DeviceBuffer<std::int64_t> perm;        // empty when unsorted
  DeviceBuffer<std::int64_t> bin_start;   // nbins + 1 (sorted only)
  DeviceBuffer<Subproblem> subproblems;   // when maxsub > 0
  std::int64_t num_subproblems = 0;
  std::int64_t M = 0;
  bool sorted = false;

  PointsView<T> view() const {
    PointsView<T> v{};
    for (int d = 0; d < 3; ++d) {
      v.i0[d] = i0[d].get();
      v.s[d] = s[d].get();
    }
    v.perm = sorted ? perm.get() : nullptr;
    v.M = M;
    return v;
  }
  std::size_t bytes() const {
    std::size_t b = perm.bytes() + bin_start.bytes() + subproblems.bytes();
    for (int d = 0; d < 3; ++d) b += i0[d].bytes() + s[d].bytes();
    return b;
  }
};

struct PointPrepRequest {
  int dim;
  int w;
  GridView grid;
  BinView bins;
  bool sort;
  int maxsub;  // > 0: build subproblems (sort must be true)
  int device;
  cudaStream_t stream;
};

// Coordinates x, y, z are device pointers (y, z ignored past dim). Returns -1 when every
// coordinate is legal, else the first index j holding an illegal coordinate (then `out` is
// left with M = 0). Synchronises the stream once (one small device-to-host copy).
template <typename T>
std::int64_t prepare_points(const PointPrepRequest& req, std::int64_t M, const T* x, const T* y,
                            const T* z, SortedPoints<T>& out);

}  // namespace nufftmp::detail
