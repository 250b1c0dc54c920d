// Shared-memory tiles of one bin plus halo (see TileView): origin, the block's subproblem,
// zeroing, a walk over the tile's cells, the flush that adds a tile to the fine grid with one
// complex atomic per non-zero cell, and the tile accumulators of the output-driven spreader
// (floating point, 32-bit fixed point, 64-bit fixed point in 32-bit word pairs).
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
  // Cell t = tx + w0 (ty + w1 tz), carried from step to step (blockDim.x cells: sy rows and sx
  // cells) instead of two runtime divisions per cell: a tile is loaded once per subproblem,
  // and on crowded bins (clustered points, thousands of subproblems of one bin) the divisions
  // were a tenth of a gather's instructions.
  const int step = blockDim.x, sy = step / w0, sx = step - sy * w0;
  int tx = threadIdx.x % w0, ty = threadIdx.x / w0, tz = 0;
  while (ty >= w1) {
    ty -= w1;
    ++tz;
  }
  for (int t = threadIdx.x; t < n; t += step) {
    const int s = tx + tile.stride0 * (ty + w1 * tz);
    f(s, [&] {
      std::int64_t g = wrap_tile(origin[0] + tx, grid.nf[0]);
      if (D >= 2) g += std::int64_t(grid.nf[0]) * wrap_tile(origin[1] + ty, grid.nf[1]);
      if (D == 3)
        g += std::int64_t(grid.nf[0]) * grid.nf[1] * wrap_tile(origin[2] + tz, grid.nf[2]);
      return g;
    });
    tx += sx;
    ty += sy;
    if (tx >= w0) {
      tx -= w0;
      ++ty;
    }
    while (ty >= w1) {
      ty -= w1;
      ++tz;
    }
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

// Accumulators of a spreading tile: a real and an imaginary plane of `cells` values each, held
// in 32- or 64-bit words (kWords words per value: plane p of a tile starts at word
// p * kWords * cells). Hopper has no shared-memory atomic add for float or for any 64-bit
// type (CAS loops: PERFORMANCE.md); 32-bit integer adds are native. A fixed-point accumulator
// holds round(v * scale), with the scale chosen per subproblem so that kFullScale bounds every
// cell (`fixed_point_scale`).
//
// Floating point in precision T (CAS-loop atomics on Hopper).
template <typename T>
struct FloatPlanes {
  using Word = T;
  static constexpr int kWords = 1;
  static constexpr bool kFixed = false;
  static constexpr double kFullScale = 1.0;
  __device__ static void add(Word* plane, std::int64_t, int i, T v) { atomicAdd(plane + i, v); }
  __device__ static T get(const Word* plane, std::int64_t, int i) { return plane[i]; }
};

// 32-bit fixed point for float: |cell| <= 2^30, one native atomic per add. The rounding per add
// is 2^-31 of the subproblem's sum |c_j|: it grows with the subproblem's points, hence the
// smaller subproblems at tight tolerances (heuristics.cpp, kFineFixedTileSub).
struct Fixed32Planes {
  using Word = int;
  static constexpr int kWords = 1;
  static constexpr bool kFixed = true;
  static constexpr double kFullScale = 1073741824.0;  // 2^30
  __device__ static void add(Word* plane, std::int64_t, int i, float v) {
    atomicAdd(plane + i, __float2int_rn(v));
  }
  __device__ static float get(const Word* plane, std::int64_t, int i) { return float(plane[i]); }
};

// 64-bit fixed point for double, in two 32-bit words per value: the low words of a plane at
// [0, cells), the high words at [cells, 2 cells) (separate word planes keep a row's adds on
// consecutive banks). An add of q = round(v * scale) (two's complement) is two native atomics:
// the low word's atomicAdd returns the old low word, so the add knows whether it wrapped past
// 2^32, and the high word gets q's high word plus that carry. The low words' sum wraps exactly
// as often as the carries added say, in any interleaving of the blocks' threads, so after the
// barrier (hi:lo) is the exact two's complement sum mod 2^64; |cell| <= 2^62 keeps it in range.
// The rounding per add is 2^-63 of the subproblem's sum |c_j| (PERFORMANCE.md: at the level of
// double's own rounding of the cells, far under the tolerances double reaches).
struct Fixed64Planes {
  using Word = unsigned int;
  static constexpr int kWords = 2;
  static constexpr bool kFixed = true;
  static constexpr double kFullScale = 4611686018427387904.0;  // 2^62
  __device__ static void add(Word* plane, std::int64_t cells, int i, double v) {
    const unsigned long long q = static_cast<unsigned long long>(__double2ll_rn(v));
    const unsigned lo = static_cast<unsigned>(q), hi = static_cast<unsigned>(q >> 32);
    const unsigned old = atomicAdd(plane + i, lo);
    const unsigned carry = (old + lo) < lo ? 1u : 0u;  // the low word wrapped
    atomicAdd(plane + cells + i, hi + carry);
  }
  __device__ static double get(const Word* plane, std::int64_t cells, int i) {
    const unsigned long long q =
        (static_cast<unsigned long long>(plane[cells + i]) << 32) | plane[i];
    return double(static_cast<long long>(q));
  }
};

// The scale of a fixed-point tile: sum_j |Re c_j| + |Im c_j| over the subproblem bounds every
// cell of either plane (kernel values <= 1) and maps to just under kFullScale, so rounding of
// the scaled values cannot reach the accumulator's range. 1 for an empty subproblem.
template <typename T>
__host__ __device__ __forceinline__ T fixed_point_scale(T abs_sum, double full_scale) {
  return abs_sum > T(0) ? T(full_scale) / (abs_sum * T(1.0001)) : T(1);
}

// Adds a tile held by accumulator Acc (planes from `base`; fixed-point values times
// 1 / unscale) to the fine grid, one complex atomic per non-zero cell.
template <typename Acc, typename T, int D>
__device__ __forceinline__ void tile_flush_acc(const typename Acc::Word* base, const TileView& tile,
                                               const int* origin, const GridView& grid,
                                               cplx<T>* fw, T unscale) {
  const std::int64_t plane = std::int64_t(Acc::kWords) * tile.cells;
  for_each_tile_cell<D>(tile, origin, grid, [&](int s, auto global) {
    const T r = Acc::get(base, tile.cells, s), m = Acc::get(base + plane, tile.cells, s);
    if (r == T(0) && m == T(0)) return;  // clustered points leave most of a tile empty
    atomic_add_cplx(fw + global(), r * unscale, m * unscale);
  });
}

}  // namespace nufftmp::detail
