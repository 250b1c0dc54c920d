// set_points on the device: check the coordinates, fold them into the fine grid (as the exact
// integer first cell i0 plus the Horner argument s), and counting-sort them by bin, so every
// execute reads the point data coalesced in bin order. Optionally cuts each bin into
// subproblems of at most maxsub points for the shared-memory methods.
//
// Pass 1 counts (sort_strategy.hpp, CountKind): either block-local counts in shared memory,
// one per (bin, block), scanned into the sorted offset of every (bin, block) - no global
// atomics - or warp-aggregated atomics on one global counter per bin (`__match_any_sync`: a
// warp whose points share a bin does one atomic), then a CUB scan. Either gives each point its
// rank. Pass 2 scatters (ScatterKind): two shared-memory counting sorts (by bucket of bins,
// then by bin: bucket_scatter.cuh), a packed record per point then a coalesced unpack, the
// permutation then a gather, or every array directly. The scatter recomputes each point's bin
// from its coordinates with the same code as the count (cheaper than storing it). In the
// records layout (PointLayout, NUFFTMP_CUDA_POINTS) the sorted records are the points: the
// packed scatter skips its unpack and the bucket's last pass writes records.
//
// The first bad point is found by pass 1 (no extra pass); 32-bit ranks, offsets and
// permutation below 2^31 points (index_width.hpp); one host synchronisation at the end (the
// first bad point, the number of subproblems). Temporaries live in SortScratch, kept with the
// points: a second set_points with no more points than the first allocates nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>

#include "cuda/device_buffer.hpp"
#include "cuda/device_views.hpp"
#include "cuda/sort_strategy.hpp"

namespace nufftmp::detail {

class StageTimer;

// The sort's temporaries (grow-only).
struct SortScratch {
  DeviceBuffer<unsigned char> rank;                // M ranks within bins (or within a
                                                   // bin's part of a counting block)
  DeviceBuffer<unsigned char> bin_arrays;          // 4 x (nbins + 1) indices: counts, offsets,
                                                   // subproblem counts and offsets
  DeviceBuffer<unsigned char> table;               // block counting: nbins x blocks + 1
                                                   // counts, scanned in place into offsets
  DeviceBuffer<unsigned char> records;             // packed and bucket scatter: M records
                                                   // (records layout: the bucket's pass 2 only;
                                                   // the sorted ones are the points')
  DeviceBuffer<unsigned char> btable;              // bucket scatter: buckets x blocks + 1
                                                   // counts, scanned in place into offsets
  DeviceBuffer<unsigned char> items;               // bucket scatter: pass 3's work items
  DeviceBuffer<unsigned char> cub;                 // CUB scan workspace
  DeviceBuffer<unsigned long long> status;         // first bad point, first inconsistent
                                                   // point, number of subproblems
  std::size_t bytes() const {
    return rank.bytes() + bin_arrays.bytes() + table.bytes() + records.bytes() +
           btable.bytes() + items.bytes() + cub.bytes() + status.bytes();
  }
};

// The points in one of two layouts (PointsView): split (i0, s, perm) or records (the sorted
// records, 32-bit user indices; the other arrays released).
template <typename T>
struct SortedPoints {
  std::array<DeviceBuffer<std::int32_t>, 3> i0;
  std::array<DeviceBuffer<T>, 3> s;
  DeviceBuffer<std::int32_t> perm32;      // sorted, 32-bit indices
  DeviceBuffer<std::int64_t> perm64;      // sorted, 64-bit indices
  DeviceBuffer<unsigned> records;         // records layout: M sorted records
  DeviceBuffer<Subproblem> subproblems;   // when maxsub > 0 (capacity: an upper bound)
  SortScratch scratch;
  std::int64_t num_subproblems = 0;
  std::int64_t M = 0;
  bool sorted = false;
  bool wide = false;        // 64-bit indices
  bool as_records = false;  // records layout
  std::int32_t nf[3] = {1, 1, 1};  // the grid and width the records were sorted with
  int w = 0;
  // Bit b: band b of PointPrepRequest::band_rows rows holds a row that a point's kernel
  // touches (all ones when not asked for).
  std::uint64_t row_bands = ~std::uint64_t(0);

  PointsView<T> view() const {
    PointsView<T> v{};
    if (as_records) {
      v.records = records.get();
      for (int d = 0; d < 3; ++d) v.nf[d] = nf[d];
      v.w = w;
    } else {
      for (int d = 0; d < 3; ++d) {
        v.i0[d] = i0[d].get();
        v.s[d] = s[d].get();
      }
      v.perm32 = sorted && !wide ? perm32.get() : nullptr;
      v.perm64 = sorted && wide ? perm64.get() : nullptr;
    }
    v.M = M;
    return v;
  }
  std::size_t bytes() const {
    std::size_t b = perm32.bytes() + perm64.bytes() + records.bytes() + subproblems.bytes() +
                    scratch.bytes();
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
  bool force_index64 = false;  // NUFFTMP_CUDA_INDEX64 (tests of the 64-bit path)
  // Pass 2 and pass 1 of the sort (sort_strategy.hpp; NUFFTMP_CUDA_SCATTER, NUFFTMP_CUDA_COUNT).
  ScatterKind scatter = ScatterKind::Packed;
  CountKind count = CountKind::Auto;
  BucketKnob bucket{};  // NUFFTMP_CUDA_BUCKET (tests): the bucket scatter's geometry
  BucketKernels bucket_kernels{};  // NUFFTMP_CUDA_BUCKET_P2 / _P3: its passes' variants
  PointLayout layout = PointLayout::Split;  // NUFFTMP_CUDA_POINTS (sorted_layout: where it applies)
  StageTimer* timer = nullptr;  // stage timings (stage_timer.hpp), or none
  // > 0 (2D, subproblems): mark in SortedPoints::row_bands the bands of band_rows fine rows
  // that the kernels of the points touch (the pruned type 2 FFT, fft_pruning.hpp).
  std::int64_t band_rows = 0;
};

// Whether two requests order the points alike (sorting, bins, subproblem size): the points
// sorted for one serve the other.
inline bool sorts_alike(const PointPrepRequest& a, const PointPrepRequest& b) {
  return a.sort == b.sort && a.maxsub == b.maxsub && a.bins.size[0] == b.bins.size[0] &&
         a.bins.size[1] == b.bins.size[1] && a.bins.size[2] == b.bins.size[2];
}

// Coordinates x, y, z are device pointers (y, z ignored past dim). Returns -1 when every
// coordinate is legal, else the first index j holding an illegal coordinate (then `out` is
// left with M = 0). Synchronises the stream once (one small device-to-host copy).
template <typename T>
std::int64_t prepare_points(const PointPrepRequest& req, std::int64_t M, const T* x, const T* y,
                            const T* z, SortedPoints<T>& out);

// Loads the kernels prepare_points will run for req with fewer than 2^31 points, CUB's scan
// included (the first time on a device, by a scan of two zeros), so that a plan's first
// set_points does not pay CUDA's lazy loading.
template <typename T>
void load_point_kernels(const PointPrepRequest& req);

// The same for one dimension D = req.dim, each in bin_sort.cu's translation unit of (T, D)
// (tu_instance.hpp); the two above forward to them (launch_dims.cpp).
template <typename T, int D>
std::int64_t prepare_points_dim(const PointPrepRequest& req, std::int64_t M, const T* x,
                                const T* y, const T* z, SortedPoints<T>& out);
template <typename T, int D>
void load_point_kernels_dim(const PointPrepRequest& req);

}  // namespace nufftmp::detail
