// How set_points sorts on the device: which counting and which scatter it runs, the geometry
// of the block-local counting, and the size of a packed point record. Pure host logic (no
// CUDA): unit-tested on any machine (test_cuda_set_points_logic). The kernels are in
// bin_sort.cu; the reasoning and the measurements in PERFORMANCE.md ("set_points").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

// The scatter, pass 2 of the counting sort (NUFFTMP_CUDA_SCATTER):
//   gather  the permutation scattered (one 4-byte write per point), then a pass in sorted order
//           reads each point's coordinates through it (dim random reads) and writes i0/s;
//   direct  every array written at the sorted position (2 dim + 1 scattered writes);
//   packed  one record per point (its coordinates and user index, 8-32 bytes) written at the
//           sorted position, then a coalesced pass unpacks the records into i0/s and the
//           permutation;
//   bucket  two shared-memory counting sorts, so that every write is a run of adjacent
//           addresses: each counting block's chunk, a tile at a time, into buckets of
//           consecutive bins (records), then each bucket, a piece at a time, into its bins
//           (i0/s and the permutation). Needs the block counting's chunks; with global
//           counting it runs packed (bucket_scatter.cu, PERFORMANCE.md).
enum class ScatterKind { Gather, Direct, Packed, Bucket };

// The counting, pass 1 (NUFFTMP_CUDA_COUNT):
//   global  ranks from atomics on one global counter per bin (warp-aggregated);
//   block   each block counts a contiguous chunk of points in shared memory (ranks within the
//           chunk), writes one count per (bin, block), and one scan of that table gives every
//           (bin, block) its sorted offset: no global atomics (PERFORMANCE.md);
//   auto    block where the bins fit shared memory and the points are many enough per bin to
//           pay for the table, global otherwise.
enum class CountKind { Auto, Global, Block };

// The default scatter for a dimension and precision: the one place to switch it after a
// measurement (PERFORMANCE.md, "set_points"; with default_bucket_kernels below). H200, commit
// 6ac4fca, scripts/device_setpts.sh ab, set_points ms of one call: float 3D and 1D take the
// bucket scatter with tiled pass 2 (tile2k) and pieces of 4096 (P1 1.363 against packed's
// 1.52, P2 1.381 against 1.498, S31f-6 0.604 against 0.658, S32f-6 0.624 against 0.632, P7
// 1.264 against 1.313; clustered Q1 0.948 against 0.726, still 14x below cuFINUFFT's); double
// 3D stays packed (S31d-12 0.729 against the bucket's best 1.050; P6, S31d-6, S32d-6 alike in
// the compare run under the bucket); 2D takes the bucket (P3 tile2k 1.032, chunk 1.14, packed
// 1.408). 1D double was not measured: packed, as double 3D.
inline ScatterKind default_scatter(int dim, std::size_t real_bytes) {
  if (dim == 2) return ScatterKind::Bucket;
  return real_bytes == 4 ? ScatterKind::Bucket : ScatterKind::Packed;
}

// One environment choice: an enum value and the name the variable gives it.
template <typename E>
struct EnvChoice {
  E value;
  const char* name;
};

// The value of the environment variable `variable` among `choices`; null or empty: fallback.
// Anything else is an error naming the variable and the value, so a typo never silently
// measures the default.
template <typename E>
E choice_from_env(const char* variable, const char* value,
                  std::initializer_list<EnvChoice<E>> choices, E fallback) {
  if (value == nullptr || *value == '\0') return fallback;
  const std::string v(value);
  std::string names;
  for (const EnvChoice<E>& c : choices) {
    if (v == c.name) return c.value;
    names += std::string(names.empty() ? "" : ", ") + c.name;
  }
  throw Error(ErrorCode::InvalidArgument,
              std::string(variable) + " = '" + v + "': must be one of " + names);
}

// The value of NUFFTMP_CUDA_SCATTER (null or empty: the default for dim and precision).
inline ScatterKind scatter_from_env(const char* value, int dim, std::size_t real_bytes) {
  return choice_from_env<ScatterKind>("NUFFTMP_CUDA_SCATTER", value,
                                      {{ScatterKind::Gather, "gather"},
                                       {ScatterKind::Direct, "direct"},
                                       {ScatterKind::Packed, "packed"},
                                       {ScatterKind::Bucket, "bucket"}},
                                      default_scatter(dim, real_bytes));
}

// The value of NUFFTMP_CUDA_COUNT (null or empty: auto).
inline CountKind count_from_env(const char* value) {
  return choice_from_env<CountKind>(
      "NUFFTMP_CUDA_COUNT", value,
      {{CountKind::Auto, "auto"}, {CountKind::Global, "global"}, {CountKind::Block, "block"}},
      CountKind::Auto);
}

// Block-local counting: `blocks` chunks of 2^shift consecutive points (the last one shorter),
// one thread block each. blocks == 0: count with global atomics instead.
struct BlockCount {
  std::int64_t blocks = 0;
  int shift = 0;
};

// Chunks are at most 2^30 points, so a bin's count within a chunk fits the 32-bit shared
// counter whatever the index width.
constexpr int kMaxChunkShift = 30;
// auto: block counting only with at least this many points per bin on average (below, the
// per-(bin, block) table costs more than the atomics it saves)...
constexpr std::int64_t kBlockCountMinPointsPerBin = 32;
// ... and with at most one table entry per this many points.
constexpr std::int64_t kBlockCountPointsPerEntry = 2;
// block (forced, for tests and A/B runs): chunks of at least this many points, so small point
// sets still spread over many blocks.
constexpr std::int64_t kBlockCountMinChunk = 32;

// resident: thread blocks of the counting kernel that fit the device at once (0 when its
// shared histogram of nbins counters does not fit a block).
inline BlockCount block_count_geometry(CountKind kind, std::int64_t M, std::int64_t nbins,
                                       std::int64_t resident) {
  BlockCount g;
  if (kind == CountKind::Global || M <= 0 || nbins <= 0 || resident <= 0) return g;
  std::int64_t want;
  if (kind == CountKind::Block) {
    want = (M + kBlockCountMinChunk - 1) / kBlockCountMinChunk;
  } else {
    if (M < kBlockCountMinPointsPerBin * nbins) return g;
    want = M / (kBlockCountPointsPerEntry * nbins);
  }
  if (want > resident) want = resident;
  if (want < 1) want = 1;
  const std::int64_t chunk_min = (M + want - 1) / want;
  int shift = 0;
  while (shift < kMaxChunkShift && (std::int64_t(1) << shift) < chunk_min) ++shift;
  g.shift = shift;
  g.blocks = (M + (std::int64_t(1) << shift) - 1) >> shift;
  return g;
}

// Entries of the (bin, block) table the scratch keeps for M points: nbins x blocks + 1 for any
// geometry above, and non-decreasing in M, so a later call with fewer points never needs more.
inline std::int64_t block_count_table_capacity(std::int64_t M, std::int64_t nbins,
                                               std::int64_t resident) {
  const std::int64_t big = (M + (std::int64_t(1) << kMaxChunkShift) - 1) >> kMaxChunkShift;
  const std::int64_t blocks = resident > big ? resident : big;
  return nbins * (blocks > 1 ? blocks : 1) + 1;
}

// 32-bit words of one packed record: the dim coordinates as given, then the user index (1 or
// 2 words), rounded up so that it is written with whole 8- or 16-byte stores: 2, 4, 6 or 8
// words (float 3D with 32-bit indices: x, y, z, j = 16 bytes; double 3D: 32 bytes).
constexpr int packed_record_words(int dim, int real_bytes, int index_bytes) {
  const int w = dim * (real_bytes / 4) + index_bytes / 4;
  return w <= 2 ? 2 : w <= 4 ? 4 : (w + 1) / 2 * 2;
}

// The points' layout after set_points (NUFFTMP_CUDA_POINTS; A/B runs, PERFORMANCE.md "records
// layout"), read by every execute kernel through one accessor (point_access.cuh):
//   split    i0 and s per axis and the permutation, 2 dim + 1 arrays (float 3D: 28 bytes a point);
//   records  the sorted packed records themselves (the coordinates bit for bit and the user index;
//            float 3D: 16 bytes, one vector load); the kernels compute i0 and s from the bits with
//            the function the sort locates with, so they equal split's bit for bit. The packed
//            scatter's output is then final (no unpack pass) and the bucket's pass 3 writes
//            records instead of 2 dim + 1 arrays.
enum class PointLayout { Split, Records };
// The default layout of a plan (measured on one H200, PERFORMANCE.md "records layout"):
// records in every class, which cut set_points by 6-30% (P1 1.36 -> 1.19 ms, P6 0.26 -> 0.18,
// S31d-12 0.77 -> 0.61) and leave execute equal or faster (P3 1.66 -> 1.48, S21d-6 0.81 ->
// 0.78, P5 2.41 -> 2.28). Double 3D type 1 kept split until its output spreader lost 19-25% on
// records; two causes, both gone: the exact fold at every decode (a double record now holds
// the folded position, point_record.cuh) and, at w 7-8, two blocks an SM instead of three
// (spread_output_rows.cu rows_three_blocks). The argument list stays for the next exception.
inline PointLayout default_point_layout(int /*dim*/, std::size_t /*real_bytes*/, int /*type*/) {
  return PointLayout::Records;
}
// The value of NUFFTMP_CUDA_POINTS (null or empty: `fallback`, the plan's default above).
inline PointLayout point_layout_from_env(const char* value, PointLayout fallback) {
  return choice_from_env<PointLayout>(
      "NUFFTMP_CUDA_POINTS", value,
      {{PointLayout::Split, "split"}, {PointLayout::Records, "records"}}, fallback);
}
// The layout a sort writes when `wanted` is asked for: records only where the scatter makes
// records (packed, bucket) and the indices are 32-bit (the kernels decode one record size per
// precision and dimension: Record<T, D, int32>); the gather and direct scatters, 64-bit indices
// (M >= 2^31) and unsorted points (GM) keep split.
inline PointLayout sorted_layout(PointLayout wanted, ScatterKind scatter, bool index64) {
  const bool records_scatter = scatter == ScatterKind::Packed || scatter == ScatterKind::Bucket;
  return wanted == PointLayout::Records && records_scatter && !index64 ? PointLayout::Records
                                                                        : PointLayout::Split;
}

// The bucket scatter's geometry. Buckets are runs of `bins_per_bucket` consecutive bins
// (`buckets` of them). Pass 2 sorts each tile of a chunk by bucket in shared memory, so a
// bucket's run of a tile (tile / buckets records: 16 for 4096-point tiles and 256 buckets) is
// written to adjacent addresses; pass 3 takes work items of whole (bucket, chunk range) record
// segments of about `item_points` points (a bucket of clustered points is split at chunk
// boundaries, so it spreads over many blocks) and sorts each piece of an item by bin in shared
// memory, so a bin's run of a piece (piece / bins_per_bucket: 16 for 2048-point pieces and 128
// bins per bucket) is written to adjacent addresses of every output array.
struct BucketGeometry {
  int bins_per_bucket = 0;  // 0: not possible (then packed)
  std::int64_t buckets = 0;
  std::int64_t item_points = 0;
};
// Pass 2 scans the buckets' tile counts with one entry per thread (512 threads), pass 3 a
// piece's bin counts with one entry per thread (512 threads).
constexpr std::int64_t kMaxBuckets = 512;
constexpr int kMaxBinsPerBucket = 512;
constexpr std::int64_t kBucketTarget = 256;         // buckets by default
constexpr std::int64_t kBucketItemPoints = 32768;   // pass 3 work item, by default

// The test knob NUFFTMP_CUDA_BUCKET = "B,W[,S]": B bins per bucket, items of W points (W = 1:
// one item per non-empty (bucket, chunk) segment), and for pass 2's tile variants tiles of at
// most S points (a power of two), so small tests reach buckets of several bins, split buckets
// and chunks of several tiles. Null or empty: {0, 0, 0} (the defaults).
struct BucketKnob {
  int bins_per_bucket = 0;
  std::int64_t item_points = 0;
  std::int64_t tile_points = 0;
};
inline BucketKnob bucket_knob_from_env(const char* value) {
  BucketKnob k;
  if (value == nullptr || *value == '\0') return k;
  const std::string v(value);
  long long f[3] = {0, 0, 0};
  int n = 0;
  bool ok = true;
  for (std::size_t at = 0; ok && at <= v.size() && n < 4; ++n) {
    const std::size_t comma = std::min(v.find(',', at), v.size());
    ok = n < 3 && comma > at;
    if (ok) {
      std::size_t used = 0;
      try {
        f[n] = std::stoll(v.substr(at, comma - at), &used);
      } catch (...) {
        ok = false;
      }
      ok = ok && used == comma - at && f[n] >= 1;
    }
    at = comma + 1;
  }
  ok = ok && (n == 2 || n == 3) && f[0] <= kMaxBinsPerBucket && (f[2] & (f[2] - 1)) == 0;
  if (!ok)
    throw Error(ErrorCode::InvalidArgument,
                "NUFFTMP_CUDA_BUCKET = '" + v + "': must be B,W or B,W,S with 1 <= B <= " +
                    std::to_string(kMaxBinsPerBucket) +
                    " bins per bucket, W >= 1 points and S >= 1 points, a power of two");
  k.bins_per_bucket = static_cast<int>(f[0]);
  k.item_points = f[1];
  k.tile_points = f[2];
  return k;
}

inline BucketGeometry bucket_geometry(std::int64_t nbins, const BucketKnob& knob) {
  BucketGeometry g;
  if (nbins <= 0 || nbins > kMaxBuckets * kMaxBinsPerBucket) return g;
  std::int64_t per = knob.bins_per_bucket > 0 ? knob.bins_per_bucket
                                              : (nbins + kBucketTarget - 1) / kBucketTarget;
  const std::int64_t least = (nbins + kMaxBuckets - 1) / kMaxBuckets;
  if (per < least) per = least;
  if (per > kMaxBinsPerBucket) per = kMaxBinsPerBucket;
  if (per > nbins) per = nbins;
  g.bins_per_bucket = static_cast<int>(per);
  g.buckets = (nbins + per - 1) / per;
  g.item_points = knob.item_points > 0 ? knob.item_points : kBucketItemPoints;
  return g;
}

// The bucket scatter's kernels (NUFFTMP_CUDA_BUCKET_P2, NUFFTMP_CUDA_BUCKET_P3; A/B runs,
// PERFORMANCE.md "fourth round"). Pass 2:
//   chunk   one 512-thread block per counting chunk, its tiles of 4096 points in turn, each
//           bucket's place in the chunk's segment advanced tile by tile (about one block per
//           SM: 16 warps, latency bound);
//   tile    one 512-thread block per tile of 4096 points (never across a chunk boundary), two
//           resident per SM (32 warps); a tile takes its place in each (bucket, chunk) segment
//           with one global atomic per bucket on a copy of the scanned bucket table, so the
//           work is balanced whatever the number of chunks;
//   tile2k  the same with tiles of 2048 points (4 per thread), whose smaller shared-memory
//           stage keeps two blocks per SM in double precision and with 64-bit indices.
// Pass 3: piece2k = 512 threads, pieces of 2048 records (several blocks per SM); piece4k =
// 1024 threads, pieces of 4096 records: a bin's run per array twice as long, and one block
// per SM, so half the lines in flight of piece2k's three (PERFORMANCE.md).
enum class BucketPass2 { Chunk, Tile, Tile2k };
enum class BucketPass3 { Piece2k, Piece4k };
// Value-initialised: the first kernels (chunk, piece2k); an engine takes
// default_bucket_kernels(dim) unless the environment names others.
struct BucketKernels {
  BucketPass2 pass2 = BucketPass2::Chunk;
  BucketPass3 pass3 = BucketPass3::Piece2k;
};
// The bucket scatter's default passes per dimension (measured: default_scatter above): pass 2
// in tiles of 2048 everywhere (P3 1.032 ms against the chunk's 1.14), pass 3 in pieces of 4096
// in 1D and 3D (P1 pass 3 0.93 -> 0.65 ms: 128 bins per bucket leave 16-point runs per 2048
// piece) and of 2048 in 2D (P3 1.032 against 1.097 with pieces of 4096).
inline BucketKernels default_bucket_kernels(int dim) {
  BucketKernels k;
  k.pass2 = BucketPass2::Tile2k;
  k.pass3 = dim == 2 ? BucketPass3::Piece2k : BucketPass3::Piece4k;
  return k;
}

// NUFFTMP_CUDA_BUCKET_P2 / _P3 (null or empty: the default of the dimension).
inline BucketKernels bucket_kernels_from_env(const char* pass2, const char* pass3, int dim) {
  BucketKernels k = default_bucket_kernels(dim);
  k.pass2 = choice_from_env<BucketPass2>(
      "NUFFTMP_CUDA_BUCKET_P2", pass2,
      {{BucketPass2::Chunk, "chunk"}, {BucketPass2::Tile, "tile"}, {BucketPass2::Tile2k, "tile2k"}},
      k.pass2);
  k.pass3 = choice_from_env<BucketPass3>(
      "NUFFTMP_CUDA_BUCKET_P3", pass3,
      {{BucketPass3::Piece2k, "piece2k"}, {BucketPass3::Piece4k, "piece4k"}}, k.pass3);
  return k;
}
// Points of one pass-2 block's tile: the tile variants cut each chunk of 2^shift points into
// tiles of min(tile, 2^shift, cap) (cap: the test knob's S, 0 = none; all powers of two, so no
// tile straddles a chunk).
inline std::int64_t bucket_tile_points(int tile, int shift, std::int64_t cap) {
  std::int64_t t = std::int64_t(1) << shift;
  if (tile < t) t = tile;
  if (cap > 0 && cap < t) t = cap;
  return t;
}
// Entries of the bucket scratch table: the scanned (bucket, chunk) table (table_entries), and
// for the tile variants a copy of it that the tiles advance with atomics.
inline std::int64_t bucket_table_entries(std::int64_t table_entries, BucketPass2 pass2) {
  return pass2 == BucketPass2::Chunk ? table_entries : 2 * table_entries;
}

// Work items pass 3 may get: every bucket's last item may be short, every other one holds at
// least item_points points. Non-decreasing in M (a later call with fewer points fits).
inline std::int64_t bucket_item_capacity(std::int64_t M, const BucketGeometry& g) {
  return g.buckets + M / g.item_points + 1;
}

}  // namespace nufftmp::detail
