// Shared-memory tiles of one bin plus halo (see TileView): origin, zeroing, and the flush that
// adds a tile to the fine grid with one complex atomic per non-zero cell.
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

template <typename T, int D>
__device__ __forceinline__ void tile_flush(const T* re, const T* im, const TileView& tile,
                                           const int* origin, const GridView& grid,
                                           cplx<T>* fw) {
  const int w0 = tile.width[0], w1 = tile.width[1];
  const int n = tile.width[0] * tile.width[1] * tile.width[2];
  for (int t = threadIdx.x; t < n; t += blockDim.x) {
    const int tx = t % w0;
    const int ty = D >= 2 ? (t / w0) % w1 : 0;
    const int tz = D == 3 ? t / (w0 * w1) : 0;
    const int s = tx + tile.stride0 * (ty + w1 * tz);
    const T r = re[s], m = im[s];
    if (r == T(0) && m == T(0)) continue;  // clustered points leave most of a tile empty
    std::int64_t g = wrap_tile(origin[0] + tx, grid.nf[0]);
    if (D >= 2) g += std::int64_t(grid.nf[0]) * wrap_tile(origin[1] + ty, grid.nf[1]);
    if (D == 3)
      g += std::int64_t(grid.nf[0]) * grid.nf[1] * wrap_tile(origin[2] + tz, grid.nf[2]);
    atomic_add_cplx(fw + g, r, m);
  }
}

}  // namespace nufftmp::detail
