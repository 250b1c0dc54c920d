// Shared-memory tiles of one bin plus halo (see TileView): origin, the block's subproblem,
// zeroing, a walk over the tile's cells, and the flush that adds a tile to the fine grid with
// one complex atomic per non-zero cell.
#pragma once

#include "cuda/kernel_common.cuh"

namespace nufftmp::detail {

// First fine-grid cell (per dim, may be negative) of the tile of `bin`.
template <int D>
__device__ __forceinline__ void tile_origin(const BinView& bins, const TileView& tile,
                                            std::int32_t bin, int* origin) {
  int bc[3];
  bin_coords(bins, bin, bc);
#pragma unroll
  for (int d = 0; d < 3; ++d) origin[d] = d < D ? bc[d] * bins.size[d] - tile.pad : 0;
}

template <typename T>
__device__ __forceinline__ void tile_zero(T* re, T* im, std::int64_t cells) {
  for (std::int64_t t = threadIdx.x; t < cells; t += blockDim.x) {
    re[t] = T(0);
    im[t] = T(0);
  }
}

// Tiles of the last bin may reach past the grid by up to a bin plus the halo: wrap twice.
__device__ __forceinline__ int wrap_tile(int i, int n) {
  i = i < 0 ? i + n : i;
  i = i >= n ? i - n : i;
  return i >= n ? i - n : i;
}

// The subproblem of this block (blockIdx.x) and the origin of its bin's tile.
template <int D>
__device__ __forceinline__ Subproblem block_subproblem(const Subproblem* subs, const BinView& bins,
                                                       const TileView& tile, int* origin) {
  const Subproblem sub = subs[blockIdx.x];
  tile_origin<D>(bins, tile, sub.bin, origin);
  return sub;
}

// Each thread of the block visits tile cells: f(s, global) with s the cell's index in the
// shared planes and global() its fine-grid index (computed only when asked: a flush skips
// empty cells first).
template <int D, typename F>
__device__ __forceinline__ void for_each_tile_cell(const TileView& tile, const int* origin,
                                                   const GridView& grid, F&& f) {
  const int w0 = tile.width[0], w1 = tile.width[1];
  const int n = tile.width[0] * tile.width[1] * tile.width[2];
  for (int t = threadIdx.x; t < n; t += blockDim.x) {
    const int tx = t % w0;
    const int ty = D >= 2 ? (t / w0) % w1 : 0;
    const int tz = D == 3 ? t / (w0 * w1) : 0;
    const int s = tx + tile.stride0 * (ty + w1 * tz);
    f(s, [&] {
      std::int64_t g = wrap_tile(origin[0] + tx, grid.nf[0]);
      if (D >= 2) g += std::int64_t(grid.nf[0]) * wrap_tile(origin[1] + ty, grid.nf[1]);
      if (D == 3)
        g += std::int64_t(grid.nf[0]) * grid.nf[1] * wrap_tile(origin[2] + tz, grid.nf[2]);
      return g;
    });
  }
}

// Adds a tile (planes of accumulator type A: T, or fixed-point int scaled by 1 / unscale) to
// the fine grid, one complex atomic per non-zero cell.
template <typename T, int D, typename A>
__device__ __forceinline__ void tile_flush(const A* re, const A* im, const TileView& tile,
                                           const int* origin, const GridView& grid, cplx<T>* fw,
                                           T unscale = T(1)) {
  for_each_tile_cell<D>(tile, origin, grid, [&](int s, auto global) {
    const A r = re[s], m = im[s];
    if (r == A(0) && m == A(0)) return;  // clustered points leave most of a tile empty
    atomic_add_cplx(fw + global(), T(r) * unscale, T(m) * unscale);
  });
}

}  // namespace nufftmp::detail
