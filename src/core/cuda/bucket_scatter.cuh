// The bucket scatter of set_points' sort (sort_strategy.hpp, ScatterKind::Bucket): passes 2
// and 3 after the block counting, each a counting sort in shared memory, so that every global
// write is a run of adjacent addresses instead of one record per point at a random place (the
// packed scatter's cost; PERFORMANCE.md, "set_points, third round").
//   pass 2  one block per counting chunk, a tile of 4096 points at a time (or, variants tile
//           and tile2k, one block per tile): locate, sort the tile by bucket
//           (bins_per_bucket consecutive bins) in shared memory, write each bucket's run of
//           records to the chunk's segment of that bucket (records in bucket-major,
//           chunk-minor order: the scanned bucket table gives each (bucket, chunk) its start;
//           the tiles of one chunk take their places in it from a cursor, by atomics).
//   pass 3  work items = a bucket's segments of a range of chunks (a whole bucket unless it is
//           large: clustered points), taken by resident blocks from a counter; each piece of
//           2048 records (4096: variant piece4k) of an item is located again from the records'
//           bits (i0/s equal every other variant's), sorted by bin in shared memory and written
//           as runs into i0/s per axis and the permutation (records layout: the records
//           themselves, whole). The bins' starts for the item come from the scanned
//           (bin, chunk) table of the counting: start of (bin, first chunk of the item).
// Every write is bounds-checked against its segment (bucket and chunk in pass 2, bin and chunk
// range in pass 3) and a record whose bin is not its bucket's is refused: if the coordinates
// changed during the call some check fails (the call then throws Internal), and no write ever
// leaves its segment. Included by bin_sort.cu only (the launches of prepare_sorted).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda/device_views.hpp"
#include "cuda/sort_points.cuh"
#include "cuda/sort_strategy.hpp"

namespace nufftmp::detail {

// One work item of pass 3: records [begin, end) = bucket's segments of chunks [c0, c1).
struct BucketItem {
  std::int64_t begin, end;
  std::int32_t bucket, c0, c1, unused;
};

// What passes 2 and 3 read and write (device pointers; I the index type).
template <typename T, typename I>
struct BucketRun {
  sort_device::Coords3 coords;
  std::int64_t M;
  GridView grid;
  BinView bins;
  int w;
  int shift;                // chunk = 2^shift points (the counting's)
  std::int64_t chunks;      // G
  BucketGeometry geo;
  const I* table;           // scanned (bin, chunk) table: table[k G + c] = start of (k, c)
  const I* btable;          // scanned (bucket, chunk) table, the same for buckets
  I* cursor;                // tile variants: buckets x chunks entries apart from btable
  unsigned* records;        // M records (bucket-major after pass 2)
  BucketItem* items;        // capacity bucket_item_capacity(M, geo)
  std::int64_t item_capacity;
  I* perm;
  sort_device::PointArrays<T> out;  // i0/s per axis
  unsigned* sorted_records;  // non-null: records layout, pass 3 writes records (no perm, i0/s)
  unsigned long long* status;
  int device;
  cudaStream_t stream;
  BucketKernels kernels;    // NUFFTMP_CUDA_BUCKET_P2 / _P3 (sort_strategy.hpp)
  std::int64_t tile_cap;    // tile variants: at most this many points a tile (0: no cap; tests)
};

// Pass 2, and pass 3 (its items, then the unpack into the sorted arrays).
template <typename T, int D, typename I>
void bucket_pass2(const BucketRun<T, I>& r);
template <typename T, int D, typename I>
void bucket_pass3(const BucketRun<T, I>& r);
// Loads the kernels of both passes in variant k (32-bit indices), as load_point_kernels does;
// records: pass 3 as it runs in the records layout.
template <typename T, int D>
void load_bucket_kernels(const BucketKernels& k, bool records);

}  // namespace nufftmp::detail
