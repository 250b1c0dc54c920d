// Shared-memory layout of the sweep kernels (spread_sweep.cu, interp_sweep.cu) and of the dealt
// interpolator (interp_dealt.cu): pure arithmetic, shared by the kernels and by heuristics.cpp,
// which sizes the launch and checks that it fits.
//
// A sweep block works on one subproblem. Its tile (bin plus halo) is cut into strips of 32
// columns, one warp per strip, lane = column. In 2D the subproblem's points are counting-sorted
// by their first stencil row (oy) into per-row buckets; each warp walks the buckets top to
// bottom with a window of W tile rows in registers. A warp stages up to 32 points of a bucket at
// a time (those whose stencil reaches its strip): one lane per point evaluates its kernel values
// into the warp's scratch, then every lane adds (type 1) or reads (type 2) its column.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/host_device.hpp"
#include "cuda/device_views.hpp"

namespace nufftmp::detail {

constexpr int kSweepStripCols = 32;  // columns per warp: one per lane
constexpr int kSweepMaxStrips = 8;   // warps per block, so tiles of at most 256 columns
constexpr int kSweepChunk = 32;      // points a warp stages at once: one per lane
constexpr int kSweepMaxSub = 8192;   // subproblem bound (16-bit sort indices, shared memory)
// Default subproblem bounds: type 1 holds a 2D bin of ~4000 points (density 1) in one
// subproblem, as each subproblem adds its whole tile to the fine grid; type 2 keeps two partial
// sums per point in shared memory.
constexpr int kSweepDefaultSub1 = 4096;
constexpr int kSweepDefaultSub2 = 1024;

// Row strides (elements of T) of a warp's staged kernel values. x values: odd, so the 32 lanes,
// each writing its own point's row, hit distinct banks. y values are read back as 16-byte
// vectors: a whole number of vectors, odd in vectors, so vector stores of 8 consecutive lanes
// hit distinct 16-byte bank groups.
NUFFTMP_HD constexpr int sweep_kx_stride(int w) { return w | 1; }
NUFFTMP_HD constexpr int sweep_ky_stride(int w, int tsize) {
  return (16 / tsize) * (((w + 16 / tsize - 1) / (16 / tsize)) | 1);
}

NUFFTMP_HD constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }

// Number of row buckets: a point's first stencil row oy lies in [0, rows - w] (tile rows =
// bin + 2 ceil(w / 2)); 1 in 1D (one row).
NUFFTMP_HD int sweep_buckets(int dim, int w, const TileView& tile) {
  return dim == 2 ? tile.width[1] - w + 1 : 1;
}

NUFFTMP_HD int sweep_strips(const TileView& tile) {
  return (tile.width[0] + kSweepStripCols - 1) / kSweepStripCols;
}

// Byte offsets into a sweep block's dynamic shared memory, every region 16-byte aligned:
//   load     kSweepMaxStrips int: points whose stencil reaches each strip (spreads the warps)
//   cnt      (buckets + 1) int: bucket counts, then the buckets' first sorted positions (2D)
//   rank     maxsub uint16: a point's rank in its bucket (2D)
//   idx      maxsub uint16: sorted position -> point of the subproblem (2D)
//   ox       maxsub int16: sorted position -> first stencil column in the tile (2D)
//   part     type 2: 2 x maxsub complex partial sums by sorted position (a stencil reaches at
//            most two strips: part[0] from the strip holding its first column, part[1] the next)
//   scratch  per warp: x values [32][kx stride], y values [32][ky stride] (2D), strengths [32]
//            (type 1) or sorted positions [32] (type 2), first columns [32]
struct SweepLayout {
  std::size_t load, cnt, rank, idx, ox, part, scratch, warp_bytes, total;
  int kx_stride, ky_stride;
};

NUFFTMP_HD SweepLayout sweep_layout(int type, int dim, int w, std::size_t tsize,
                                           const TileView& tile, int maxsub) {
  SweepLayout l{};
  const std::size_t n = static_cast<std::size_t>(maxsub);
  const std::size_t cbytes = 2 * tsize;  // one complex value
  l.kx_stride = sweep_kx_stride(w);
  l.ky_stride = sweep_ky_stride(w, static_cast<int>(tsize));
  std::size_t at = 0;
  l.load = at;
  at = align16(at + sizeof(int) * kSweepMaxStrips);
  l.cnt = at;
  if (dim == 2) at = align16(at + sizeof(int) * (sweep_buckets(dim, w, tile) + 1));
  l.rank = at;
  if (dim == 2) at = align16(at + sizeof(std::uint16_t) * n);
  l.idx = at;
  if (dim == 2) at = align16(at + sizeof(std::uint16_t) * n);
  l.ox = at;
  if (dim == 2) at = align16(at + sizeof(std::int16_t) * n);
  l.part = at;
  if (type == 2) at = align16(at + 2 * cbytes * n);
  l.scratch = at;
  std::size_t wb = align16(tsize * kSweepChunk * l.kx_stride);
  if (dim == 2) wb += align16(tsize * kSweepChunk * l.ky_stride);
  wb += align16(type == 1 ? cbytes * kSweepChunk : sizeof(int) * kSweepChunk);
  wb += align16(sizeof(int) * kSweepChunk);
  l.warp_bytes = wb;
  l.total = at + wb * static_cast<std::size_t>(sweep_strips(tile));
  return l;
}

// Launch shape of a sweep kernel (host side): one warp per strip, and its shared memory.
struct SweepLaunch {
  int threads;
  std::size_t shared_bytes;
};
inline SweepLaunch sweep_launch(int type, int dim, int w, std::size_t tsize, const BinView& bins,
                                int maxsub) {
  const TileView tile = make_tile(dim, w, bins);
  return {kSweepStripCols * sweep_strips(tile),
          sweep_layout(type, dim, w, tsize, tile, maxsub).total};
}
// Whether the sweep kernels take these bins: 1D or 2D, a tile row of at most 8 strips, and
// subproblems the 16-bit sort indices cover.
inline bool sweep_applies(int dim, int w, const BinView& bins, int maxsub) {
  return (dim == 1 || dim == 2) && maxsub > 0 && maxsub <= kSweepMaxSub &&
         sweep_strips(make_tile(dim, w, bins)) <= kSweepMaxStrips;
}

// The dealt interpolator stages one round of points (one per thread) after its tile:
//   cells    the tile, interleaved complex
//   cnt      kDealKeys(T) int: points per bank key
//   l0, p    rounds x int: tile offset of the stencil's first cell, point of the subproblem
//   s        dim x rounds T: the Horner arguments
// Bank keys: a 128-byte row of banks holds 16 float or 8 double complex cells.
NUFFTMP_HD constexpr int deal_keys(std::size_t tsize) { return static_cast<int>(64 / tsize); }

struct DealLayout {
  std::size_t cnt, l0, p, s, total;
};

NUFFTMP_HD DealLayout deal_layout(int dim, std::size_t tsize, const TileView& tile,
                                         int threads) {
  DealLayout l{};
  const std::size_t r = static_cast<std::size_t>(threads);
  std::size_t at = align16(2 * tsize * static_cast<std::size_t>(tile.cells));
  l.cnt = at;
  at = align16(at + sizeof(int) * deal_keys(tsize));
  l.l0 = at;
  at = align16(at + sizeof(int) * r);
  l.p = at;
  at = align16(at + sizeof(int) * r);
  l.s = at;
  at = align16(at + tsize * r * static_cast<std::size_t>(dim));
  l.total = at;
  return l;
}

}  // namespace nufftmp::detail
