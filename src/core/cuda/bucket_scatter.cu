// The bucket scatter's kernels and launches (bucket_scatter.cuh says what each pass does).
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "cuda/bucket_scatter.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/launch_common.cuh"
#include "cuda/tu_instance.hpp"

namespace nufftmp::detail {

namespace {

using namespace sort_device;  // NOLINT: the sort's shared device helpers (sort_points.cuh)

// Pass 2: threads per block, and points per thread of a tile: 8 (tiles of 4096; chunk, tile)
// or 4 (tiles of 2048; tile2k). The chunk variant runs one block per counting chunk, about one
// per SM: the tile is large and its loads are all in flight at once (512 threads leave 128
// registers for them, 1024 spilled). The tile variants run one block per tile and ask for two
// resident blocks per SM (<= 64 registers). The tile's bucket counts are scanned one entry per
// thread: kMaxBuckets <= threads.
constexpr int kP2Threads = 512;
constexpr int kP2TileMax = kP2Threads * 8;
static_assert(kMaxBuckets <= kP2Threads, "one scan entry per thread");
// Pass 3: points per thread of a piece of an item; threads 512 (piece2k, several blocks per
// SM) or 1024 (piece4k, one block per SM, <= 64 registers).
constexpr int kP3PerThread = 4;
static_assert(kMaxBinsPerBucket <= 512, "one scan entry per thread");
static_assert(kP2TileMax <= 65536 && 1024 * kP3PerThread <= 65536 && kMaxBuckets <= 65536 &&
                  kMaxBinsPerBucket <= 65536,
              "16-bit staged keys");

// Rank of this lane's key among the keys counted so far in cnt (shared memory): the lanes of a
// warp with equal keys take consecutive ranks from one shared atomic (clustered points share a
// key across the whole warp). All 32 lanes must call it; `in` false: no key, rank 0.
__device__ __forceinline__ unsigned warp_shared_rank(unsigned* cnt, int key, bool in) {
  const unsigned active = __ballot_sync(0xffffffffu, in);
  if (!in) return 0u;
  const int lane = threadIdx.x & 31;
  const unsigned peers = __match_any_sync(active, key);
  const int leader = __ffs(peers) - 1;
  unsigned old = 0;
  if (lane == leader) old = atomicAdd(cnt + key, static_cast<unsigned>(__popc(peers)));
  old = __shfl_sync(peers, old, leader);
  return old + static_cast<unsigned>(__popc(peers & ((1u << lane) - 1u)));
}

template <typename T, int D, typename I>
std::size_t pass2_shared_bytes(std::int64_t buckets, int tile) {
  using Rec = Record<T, D, I>;
  return std::size_t(tile) * Rec::kWords * 4 + std::size_t(buckets) * (8 + 8 + 4 + 4) +
         std::size_t(tile) * (2 + 2);
}

// Per piece point: its s and i0 per axis and its user index (split) or its record (records),
// then its key and source slot.
template <typename T, int D, typename I, bool ToRecords>
std::size_t pass3_shared_bytes(int per_bucket, int piece) {
  const std::size_t staged =
      ToRecords ? Record<T, D, I>::kWords * 4 : D * sizeof(T) + sizeof(I) + D * 4;
  return std::size_t(per_bucket) * (8 + 8 + 4 + 4) + std::size_t(piece) * (staged + 2 + 2);
}

// Pass 2: block b sorts points [b span, (b + 1) span) of chunk c = (b span) >> shift by
// bucket, a tile at a time. Chunk variant (Claim false): span = 2^shift, block b is chunk b,
// and each bucket's place in the chunk's segment starts at the scanned table's entry and moves
// on tile by tile. Tile variants (Claim true): span = one tile (it divides 2^shift), and the
// tile takes its place in each (bucket, chunk) segment from that segment's cursor (a copy of
// the scanned table) with one atomic per bucket it holds. Either way each write is checked
// against the segment's end (the table's next entry).
template <typename T, int D, typename I, int PerThread, bool Claim>
__global__ void __launch_bounds__(kP2Threads, Claim ? 2 : 1)
    bucket_scatter_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins, int w,
                          int shift, std::int64_t span, std::int64_t G, IntDivider per_bucket,
                          int nbk, const I* bstart, I* cursor, unsigned* records,
                          unsigned long long* status) {
  using Rec = Record<T, D, I>;
  using Scan = cub::BlockScan<unsigned, kP2Threads>;
  constexpr int kTile = kP2Threads * PerThread;
  __shared__ typename Scan::TempStorage scan_tmp;
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned* const stage = reinterpret_cast<unsigned*>(smem);
  std::int64_t* const ptr = reinterpret_cast<std::int64_t*>(stage + kTile * Rec::kWords);
  std::int64_t* const stop = ptr + nbk;
  unsigned* const cnt = reinterpret_cast<unsigned*>(stop + nbk);
  unsigned* const off = cnt + nbk;
  unsigned short* const key = reinterpret_cast<unsigned short*>(off + nbk);
  unsigned short* const src = key + kTile;

  const int tid = threadIdx.x;
  const std::int64_t begin = std::int64_t(blockIdx.x) * span;
  const std::int64_t end = min(M, begin + span);
  const std::int64_t c = begin >> shift;
  for (int b = tid; b < nbk; b += kP2Threads) {
    if constexpr (!Claim) ptr[b] = static_cast<std::int64_t>(bstart[b * G + c]);
    stop[b] = static_cast<std::int64_t>(bstart[b * G + c + 1]);  // flat next: (b, c + 1)
  }
  for (std::int64_t base = begin; base < end; base += kTile) {
    for (int b = tid; b < nbk; b += kP2Threads) cnt[b] = 0u;
    __syncthreads();  // also: ptr/stop set, the previous tile's ptr update done
    // Each point is staged at its slot u = k threads + tid as it comes; only its bucket and
    // rank stay in registers.
    PointCoords<T, D> pc[PerThread];
#pragma unroll
    for (int k = 0; k < PerThread; ++k) {
      const std::int64_t j = base + k * kP2Threads + tid;
      if (j < end) pc[k] = load_coords<T, D>(coords, j);
    }
    int bk[PerThread];
    unsigned rk[PerThread];
#pragma unroll
    for (int k = 0; k < PerThread; ++k) {
      const int u = k * kP2Threads + tid;
      const bool in = base + u < end;
      bk[k] = 0;
      if (in) {
        const Located<T> p = locate_values<T, D>(pc[k], grid, bins, w);
        Rec::store(stage, u, record_values(pc[k], p), base + u);
        bk[k] = per_bucket.divide(p.bin);
      }
      rk[k] = warp_shared_rank(cnt, bk[k], in);
    }
    __syncthreads();
    unsigned first = 0;
    Scan(scan_tmp).ExclusiveSum(tid < nbk ? cnt[tid] : 0u, first);
    if (tid < nbk) {
      off[tid] = first;
      if constexpr (Claim) {
        // Unsigned to 64 bits, never through I: a cursor driven past its segment (changed
        // coordinates) stays a large positive place that the check below refuses.
        using U = Atomic<I>;
        const unsigned n = cnt[tid];
        if (n > 0)
          ptr[tid] = static_cast<std::int64_t>(atomicAdd(
              reinterpret_cast<U*>(cursor) + std::int64_t(tid) * G + c, static_cast<U>(n)));
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < PerThread; ++k) {
      const int u = k * kP2Threads + tid;
      if (base + u < end) {
        const unsigned t = off[bk[k]] + rk[k];
        src[t] = static_cast<unsigned short>(u);
        key[t] = static_cast<unsigned short>(bk[k]);
      }
    }
    __syncthreads();
    // Sorted place t of the tile (by bucket) to its bucket's segment: adjacent t of one bucket
    // go to adjacent records.
    const int n = static_cast<int>(min(std::int64_t(kTile), end - base));
    for (int t = tid; t < n; t += kP2Threads) {
      const int b = key[t], u = src[t];
      const std::int64_t pos = ptr[b] + (t - static_cast<int>(off[b]));
      if (pos < stop[b]) {
        Rec::copy(records, pos, stage, u);
      } else {
        atomicMin(status + kFirstInconsistent, static_cast<unsigned long long>(base + u));
      }
    }
    if constexpr (!Claim) {
      __syncthreads();
      for (int b = tid; b < nbk; b += kP2Threads) ptr[b] += cnt[b];
    }
  }
}

// Pass 3's items: thread b walks bucket b's chunk segments and closes an item once it holds at
// least item_points records (and at the last chunk), so a bucket of clustered points is cut at
// chunk boundaries into items of about item_points. Items are numbered by a counter (their
// order does not matter: each writes its own positions).
template <typename I>
__global__ void bucket_items_kernel(const I* bstart, std::int64_t G, std::int64_t nbk,
                                    std::int64_t item_points, std::int64_t capacity,
                                    BucketItem* items, unsigned long long* status) {
  for (std::int64_t b = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < nbk;
       b += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t c0 = 0;
    std::int64_t first = static_cast<std::int64_t>(bstart[b * G]);
    for (std::int64_t c = 0; c < G; ++c) {
      const std::int64_t next = static_cast<std::int64_t>(bstart[b * G + c + 1]);
      if (next - first < item_points && c + 1 < G) continue;
      if (next > first) {
        const unsigned long long i = atomicAdd(status + kNumItems, 1ull);
        if (i < static_cast<unsigned long long>(capacity))
          items[i] = BucketItem{first, next, static_cast<std::int32_t>(b),
                                static_cast<std::int32_t>(c0), static_cast<std::int32_t>(c + 1),
                                0};
        else
          atomicMin(status + kFirstInconsistent, 0ull);  // cannot happen (the capacity bound)
      }
      c0 = c + 1;
      first = next;
    }
  }
}

// Pass 3: resident blocks take items from a counter; each piece of an item is sorted by bin in
// shared memory and written as runs to the sorted arrays (ToRecords: to the sorted records, each
// record staged and copied whole - located only for its bin).
template <typename T, int D, typename I, int Threads, bool ToRecords>
__global__ void __launch_bounds__(Threads)
    bucket_unpack_kernel(const unsigned* records, GridView grid, BinView bins, int w,
                         int per_bucket, std::int64_t G, const I* table,
                         const BucketItem* items, std::int64_t capacity, I* perm,
                         PointArrays<T> out, unsigned* sorted, unsigned long long* status) {
  using Rec = Record<T, D, I>;
  using Scan = cub::BlockScan<unsigned, Threads>;
  constexpr int kPiece = Threads * kP3PerThread;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ unsigned long long item_index;
  __shared__ unsigned piece_total;
  extern __shared__ __align__(16) unsigned char smem[];
  std::int64_t* const ptr = reinterpret_cast<std::int64_t*>(smem);
  std::int64_t* const lim = ptr + per_bucket;
  // Split: s and i0 per axis (D x kPiece each) and the user index; records: kPiece records
  // (16-byte aligned: ptr and lim are 8-byte words, per_bucket of each).
  T* const ss = reinterpret_cast<T*>(lim + per_bucket);
  I* const sj = reinterpret_cast<I*>(ss + D * kPiece);
  std::int32_t* const si0 = reinterpret_cast<std::int32_t*>(sj + kPiece);
  unsigned* const stage = reinterpret_cast<unsigned*>(lim + per_bucket);
  unsigned* const cnt = ToRecords ? stage + kPiece * Rec::kWords
                                  : reinterpret_cast<unsigned*>(si0 + D * kPiece);
  unsigned* const off = cnt + per_bucket;
  unsigned short* const key = reinterpret_cast<unsigned short*>(off + per_bucket);
  unsigned short* const src = key + kPiece;

  const int tid = threadIdx.x;
  const unsigned long long made = status[kNumItems];
  const unsigned long long n_items =
      made < static_cast<unsigned long long>(capacity) ? made
                                                       : static_cast<unsigned long long>(capacity);
  for (;;) {
    if (tid == 0) item_index = atomicAdd(status + kNextItem, 1ull);
    __syncthreads();
    const unsigned long long it = item_index;
    if (it >= n_items) break;  // uniform: every thread read the same index
    const BucketItem item = items[it];
    const std::int64_t k0 = std::int64_t(item.bucket) * per_bucket;
    const int nb = static_cast<int>(min(std::int64_t(per_bucket), bins.total - k0));
    for (int lb = tid; lb < nb; lb += Threads) {
      ptr[lb] = static_cast<std::int64_t>(table[(k0 + lb) * G + item.c0]);
      lim[lb] = static_cast<std::int64_t>(table[(k0 + lb) * G + item.c1]);  // flat: (k, c1)
    }
    for (std::int64_t base = item.begin; base < item.end; base += kPiece) {
      for (int lb = tid; lb < nb; lb += Threads) cnt[lb] = 0u;
      __syncthreads();  // also: ptr/lim set, the previous piece's ptr update done
      // Each point is located and staged at its slot u = k threads + tid as it comes; only its
      // bin and rank stay in registers.
      PointCoords<T, D> pc[kP3PerThread];
      std::int64_t jj[kP3PerThread];
#pragma unroll
      for (int k = 0; k < kP3PerThread; ++k) {
        const std::int64_t q = base + k * Threads + tid;
        jj[k] = 0;
        if (q < item.end) Rec::load(records, q, pc[k], jj[k]);
      }
      int lb[kP3PerThread];
      unsigned rk[kP3PerThread];
#pragma unroll
      for (int k = 0; k < kP3PerThread; ++k) {
        const int u = k * Threads + tid;
        bool ok = false;
        lb[k] = -1;
        if (base + u < item.end) {
          const Located<T> p = locate_values<T, D, true>(pc[k], grid, bins, w);
          const std::int64_t l = std::int64_t(p.bin) - k0;
          ok = l >= 0 && l < nb;
          if (ok) {
            lb[k] = static_cast<int>(l);
            if constexpr (ToRecords) {
              Rec::store(stage, u, pc[k], jj[k]);  // the same bits as loaded
            } else {
#pragma unroll
              for (int d = 0; d < D; ++d) {
                si0[d * kPiece + u] = p.i0[d];
                ss[d * kPiece + u] = p.s[d];
              }
              sj[u] = static_cast<I>(jj[k]);
            }
          } else {
            atomicMin(status + kFirstInconsistent, static_cast<unsigned long long>(jj[k]));
          }
        }
        rk[k] = warp_shared_rank(cnt, ok ? lb[k] : 0, ok);
      }
      __syncthreads();
      unsigned first = 0, total = 0;
      Scan(scan_tmp).ExclusiveSum(tid < nb ? cnt[tid] : 0u, first, total);
      if (tid < nb) off[tid] = first;
      if (tid == 0) piece_total = total;
      __syncthreads();
#pragma unroll
      for (int k = 0; k < kP3PerThread; ++k)
        if (lb[k] >= 0) {
          const unsigned t = off[lb[k]] + rk[k];
          src[t] = static_cast<unsigned short>(k * Threads + tid);
          key[t] = static_cast<unsigned short>(lb[k]);
        }
      __syncthreads();
      // Sorted place t of the piece (by bin) to its bin: adjacent t of one bin go to adjacent
      // positions of every array.
      const int n = static_cast<int>(piece_total);
      for (int t = tid; t < n; t += Threads) {
        const int l = key[t], u = src[t];
        const std::int64_t q = ptr[l] + (t - static_cast<int>(off[l]));
        if (q < lim[l]) {
          if constexpr (ToRecords) {
            Rec::copy(sorted, q, stage, u);
          } else {
            perm[q] = sj[u];
#pragma unroll
            for (int d = 0; d < D; ++d) {
              out.i0[d][q] = si0[d * kPiece + u];
              out.s[d][q] = ss[d * kPiece + u];
            }
          }
        } else {
          const std::int64_t j = ToRecords ? Rec::load_index(stage, u) : std::int64_t(sj[u]);
          atomicMin(status + kFirstInconsistent, static_cast<unsigned long long>(j));
        }
      }
      __syncthreads();
      for (int l = tid; l < nb; l += Threads) ptr[l] += cnt[l];
    }
    __syncthreads();  // every thread is done with item_index, ptr and lim
  }
}

template <typename K>
void allow_shared(K* kernel, std::size_t bytes) {
  NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(bytes)));
}

}  // namespace

// Pass 2 in one variant: PerThread points per thread; Claim: one block per tile (cursor
// copied from the scanned table first) instead of one per chunk.
template <typename T, int D, typename I, int PerThread, bool Claim>
void launch_pass2(const BucketRun<T, I>& r) {
  constexpr int tile = kP2Threads * PerThread;
  auto* kernel = bucket_scatter_kernel<T, D, I, PerThread, Claim>;
  const std::size_t bytes = pass2_shared_bytes<T, D, I>(r.geo.buckets, tile);
  allow_shared(kernel, bytes);
  const std::int64_t span =
      Claim ? bucket_tile_points(tile, r.shift, r.tile_cap) : (std::int64_t(1) << r.shift);
  const std::int64_t blocks = (r.M + span - 1) / span;
  if (blocks > INT_MAX)
    throw Error(ErrorCode::NotAvailable,
                "set_points: " + std::to_string(r.M) +
                    " points need more pass-2 blocks than a launch holds (NUFFTMP_CUDA_BUCKET_P2)");
  if constexpr (Claim)
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(r.cursor, r.btable,
                                     std::size_t(r.geo.buckets * r.chunks) * sizeof(I),
                                     cudaMemcpyDeviceToDevice, r.stream));
  kernel<<<static_cast<unsigned>(blocks), kP2Threads, bytes, r.stream>>>(
      r.coords, r.M, r.grid, r.bins, r.w, r.shift, span, r.chunks,
      IntDivider::make(r.geo.bins_per_bucket), static_cast<int>(r.geo.buckets), r.btable,
      r.cursor, r.records, r.status);
  check_launch("bucket_scatter_kernel");
}

template <typename T, int D, typename I>
void bucket_pass2(const BucketRun<T, I>& r) {
  if (r.M <= 0) return;
  switch (r.kernels.pass2) {
    case BucketPass2::Chunk: return launch_pass2<T, D, I, 8, false>(r);
    case BucketPass2::Tile: return launch_pass2<T, D, I, 8, true>(r);
    case BucketPass2::Tile2k: return launch_pass2<T, D, I, 4, true>(r);
  }
}

template <typename T, int D, typename I, int Threads, bool ToRecords>
void launch_unpack(const BucketRun<T, I>& r) {
  auto* kernel = bucket_unpack_kernel<T, D, I, Threads, ToRecords>;
  const std::size_t bytes =
      pass3_shared_bytes<T, D, I, ToRecords>(r.geo.bins_per_bucket, Threads * kP3PerThread);
  allow_shared(kernel, bytes);
  int sms = 0, per_sm = 0;
  NUFFTMP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, r.device));
  NUFFTMP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Threads, bytes));
  // Resident blocks only (they take items from the counter); no more than there can be items.
  const std::int64_t blocks =
      std::max<std::int64_t>(1, std::min<std::int64_t>(std::int64_t(std::max(per_sm, 1)) * sms,
                                                       r.item_capacity));
  kernel<<<static_cast<unsigned>(blocks), Threads, bytes, r.stream>>>(
      r.records, r.grid, r.bins, r.w, r.geo.bins_per_bucket, r.chunks, r.table, r.items,
      r.item_capacity, r.perm, r.out, r.sorted_records, r.status);
  check_launch("bucket_unpack_kernel");
}

template <typename T, int D, typename I>
void bucket_pass3(const BucketRun<T, I>& r) {
  if (r.M <= 0) return;
  constexpr int kItemThreads = 128;
  const std::int64_t item_blocks = (r.geo.buckets + kItemThreads - 1) / kItemThreads;
  bucket_items_kernel<I><<<static_cast<unsigned>(item_blocks), kItemThreads, 0, r.stream>>>(
      r.btable, r.chunks, r.geo.buckets, r.geo.item_points, r.item_capacity, r.items, r.status);
  check_launch("bucket_items_kernel");
  // The records layout has 32-bit indices only (sorted_layout): no 64-bit records variant.
  if constexpr (sizeof(I) == 4) {
    if (r.sorted_records != nullptr) {
      switch (r.kernels.pass3) {
        case BucketPass3::Piece2k: return launch_unpack<T, D, I, 512, true>(r);
        case BucketPass3::Piece4k: return launch_unpack<T, D, I, 1024, true>(r);
      }
    }
  } else if (r.sorted_records != nullptr) {
    throw Error(ErrorCode::Internal, "set_points: records layout with 64-bit indices");
  }
  switch (r.kernels.pass3) {
    case BucketPass3::Piece2k: return launch_unpack<T, D, I, 512, false>(r);
    case BucketPass3::Piece4k: return launch_unpack<T, D, I, 1024, false>(r);
  }
}

template <typename T, int D>
void load_bucket_kernels(const BucketKernels& k, bool records) {
  using I = std::int32_t;
  switch (k.pass2) {
    case BucketPass2::Chunk:
      load_kernel(bucket_scatter_kernel<T, D, I, 8, false>, "bucket_scatter_kernel");
      break;
    case BucketPass2::Tile:
      load_kernel(bucket_scatter_kernel<T, D, I, 8, true>, "bucket_scatter_kernel");
      break;
    case BucketPass2::Tile2k:
      load_kernel(bucket_scatter_kernel<T, D, I, 4, true>, "bucket_scatter_kernel");
      break;
  }
  load_kernel(bucket_items_kernel<I>, "bucket_items_kernel");
  const char* p3 = "bucket_unpack_kernel";
  if (k.pass3 == BucketPass3::Piece4k) {
    if (records) load_kernel(bucket_unpack_kernel<T, D, I, 1024, true>, p3);
    else load_kernel(bucket_unpack_kernel<T, D, I, 1024, false>, p3);
  } else {
    if (records) load_kernel(bucket_unpack_kernel<T, D, I, 512, true>, p3);
    else load_kernel(bucket_unpack_kernel<T, D, I, 512, false>, p3);
  }
}

#define NUFFTMP_BUCKET_INSTANTIATE(T, D, I)                          \
  template void bucket_pass2<T, D, I>(const BucketRun<T, I>&); \
  template void bucket_pass3<T, D, I>(const BucketRun<T, I>&);
#define NUFFTMP_BUCKET_INSTANTIATE_TD(T, D)           \
  NUFFTMP_BUCKET_INSTANTIATE(T, D, std::int32_t)      \
  NUFFTMP_BUCKET_INSTANTIATE(T, D, std::int64_t)      \
  template void load_bucket_kernels<T, D>(const BucketKernels&, bool);
NUFFTMP_BUCKET_INSTANTIATE_TD(NUFFTMP_TU_REAL, NUFFTMP_TU_DIM)

}  // namespace nufftmp::detail
