// The cell order of type 2's points inside each subproblem (cell_order.hpp says why).
#include "cuda/cell_order.hpp"

#include <cub/block/block_radix_sort.cuh>

#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/launch_common.cuh"
#include "cuda/point_access.cuh"
#include "cuda/tile_common.cuh"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;
constexpr int kItems = kCellOrderMaxSub / kThreads;
constexpr int kMaxKeyBits = 16;

// Bits of the sort key: a tile's cell index and one more value above them, the padding key.
int tile_key_bits(int dim, int w, const BinView& bins) {
  const TileView t = make_tile(dim, w, bins);
  const std::int64_t cells = std::int64_t(t.width[0]) * t.width[1] * t.width[2];
  int bits = 0;
  while ((std::int64_t(1) << bits) <= cells) ++bits;  // 2^bits > cells: room for the padding
  return bits;
}

// Block = subproblem. The records are read into shared memory before any is written (a
// barrier between), so the write-back in place reads nothing it has overwritten. The sort
// carries each key's position as its value, so the sorted values are a permutation of the
// positions whatever the keys say; the padding keys (2^bits - 1, above every cell index) sort
// after every real one. Only the key's bits are sorted (a tile of 38^2 cells: 11 bits, three
// passes of CUB's four).
template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    cell_order_kernel(unsigned* records, const Subproblem* subs, BinView bins, TileView tile,
                      GridView grid, int w, int key_bits) {
  using Rec = PointRecord<T, D>;
  using Sort = cub::BlockRadixSort<unsigned, kThreads, kItems, unsigned short>;
  __shared__ typename Sort::TempStorage sort_storage;
  extern __shared__ __align__(16) unsigned stage[];  // the subproblem's records
  const Subproblem sub = subs[blockIdx.x];
  const int n = sub.count;
  if (n < 2) return;  // the whole block leaves together
  int origin[3];
  tile_origin<D>(bins, tile, sub.bin, origin);
  unsigned* base = records + sub.start * Rec::kWords;
  for (int t = threadIdx.x; t < n * Rec::kWords; t += kThreads) stage[t] = base[t];
  __syncthreads();
  const unsigned pad_key = (1u << key_bits) - 1u;
  unsigned keys[kItems];
  unsigned short pos[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int p = threadIdx.x + j * kThreads;  // consecutive lanes, consecutive records
    keys[j] = pad_key;
    pos[j] = static_cast<unsigned short>(p);
    if (p < n) {
      PointCoords<T, D> c;
      std::int64_t user;
      Rec::load(stage, p, c, user);
      unsigned cell = 0, scale = 1;
#pragma unroll
      for (int d = 0; d < D; ++d) {
        std::int32_t i0;
        T s;
        locate_record(c.v[d], grid.nf[d], w, i0, s);  // the execute kernels' i0, bit for bit
        cell += scale * static_cast<unsigned>(i0 - origin[d]);
        scale *= static_cast<unsigned>(tile.width[d]);
      }
      keys[j] = min(cell, pad_key - 1u);  // a cell off its tile (cannot happen) sorts last
    }
  }
  Sort(sort_storage).SortBlockedToStriped(keys, pos, 0, key_bits);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int q = threadIdx.x + j * kThreads;  // striped: consecutive lanes write side by side
    if (q < n) Rec::copy(base, q, stage, pos[j]);
  }
}

template <typename T, int D>
void run(unsigned* records, const Subproblem* subs, std::int64_t n, const BinView& bins,
         const std::int32_t* nf, int w, int maxsub, cudaStream_t stream, bool load_only) {
  auto* kernel = cell_order_kernel<T, D>;
  const std::size_t shmem =
      std::size_t(maxsub) * PointRecord<T, D>::kWords * sizeof(unsigned);
  NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shmem)));
  if (load_only || n <= 0) return;  // setting the attribute loaded the kernel
  GridView grid{};
  for (int d = 0; d < 3; ++d) grid.nf[d] = nf[d];
  kernel<<<static_cast<unsigned>(n), kThreads, shmem, stream>>>(
      records, subs, bins, make_tile(D, w, bins), grid, w, tile_key_bits(D, w, bins));
  check_launch("cell_order_kernel");
}

template <typename T>
void run_dim(int dim, unsigned* records, const Subproblem* subs, std::int64_t n,
             const BinView& bins, const std::int32_t* nf, int w, int maxsub,
             cudaStream_t stream, bool load_only) {
  switch (dim) {
    case 1: return run<T, 1>(records, subs, n, bins, nf, w, maxsub, stream, load_only);
    case 2: return run<T, 2>(records, subs, n, bins, nf, w, maxsub, stream, load_only);
    default: return run<T, 3>(records, subs, n, bins, nf, w, maxsub, stream, load_only);
  }
}

}  // namespace

CellOrderMode cell_order_from_env() {
  const char* v = std::getenv("NUFFTMP_CUDA_CELL_ORDER");
  if (!v || !*v || std::strcmp(v, "auto") == 0) return CellOrderMode::Auto;
  if (std::strcmp(v, "on") == 0) return CellOrderMode::On;
  if (std::strcmp(v, "off") == 0) return CellOrderMode::Off;
  throw Error(ErrorCode::InvalidArgument,
              std::string("NUFFTMP_CUDA_CELL_ORDER = '") + v + "' must be auto, on or off");
}

bool cell_order_fits(int dim, int w, const BinView& bins, int maxsub) {
  return maxsub > 0 && maxsub <= kCellOrderMaxSub && tile_key_bits(dim, w, bins) <= kMaxKeyBits;
}

template <typename T>
void order_cells(int dim, unsigned* records, const Subproblem* subs, std::int64_t n,
                 const BinView& bins, const std::int32_t* nf, int w, int maxsub,
                 CUstream_st* stream) {
  if (!cell_order_fits(dim, w, bins, maxsub))
    throw Error(ErrorCode::Internal, "the cell order was asked for subproblems of " +
                                         std::to_string(maxsub) + " points; it takes at most " +
                                         std::to_string(kCellOrderMaxSub));
  run_dim<T>(dim, records, subs, n, bins, nf, w, maxsub, stream, false);
}

template <typename T>
void load_cell_order_kernel(int dim, int w, const BinView& bins, int maxsub) {
  if (!cell_order_fits(dim, w, bins, maxsub)) return;
  const std::int32_t nf[3] = {1, 1, 1};
  run_dim<T>(dim, nullptr, nullptr, 0, bins, nf, w, maxsub, nullptr, true);
}

template void order_cells<float>(int, unsigned*, const Subproblem*, std::int64_t,
                                 const BinView&, const std::int32_t*, int, int, CUstream_st*);
template void order_cells<double>(int, unsigned*, const Subproblem*, std::int64_t,
                                  const BinView&, const std::int32_t*, int, int, CUstream_st*);
template void load_cell_order_kernel<float>(int, int, const BinView&, int);
template void load_cell_order_kernel<double>(int, int, const BinView&, int);

}  // namespace nufftmp::detail
