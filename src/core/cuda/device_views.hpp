// Plain-data snapshots of a plan that kernels receive by value: no owning types, no virtuals,
// readable by the host compiler (the engine fills them) and by nvcc (kernels read them).
#pragma once

#include <cstdint>

#include "common/int_divider.hpp"
#include "common/kernel.hpp"

namespace nufftmp::detail {

// Horner coefficients of the kernel in working precision, right-aligned: row r (0 ..
// kMaxHornerDegree) holds c[r * w + j], the coefficient of s^(kMaxHornerDegree - r) on interval
// j; rows below `first` = kMaxHornerDegree - degree are zero, and KernelSpec::horner's row p
// is row first + p. Passed as a kernel parameter: it lives in the constant bank, every thread
// reads the same word at the same time. Right-aligned so that the device's Horner steps all have
// compile-time rows (eval_kernel enters them at `first` with one jump): an FMA then takes its
// coefficient straight from the constant bank, where a run-time row costs a load per
// coefficient (LDC + FFMA: twice the instructions of the kernel evaluation).
template <typename T>
struct KernelCoeffs {
  T c[(kMaxHornerDegree + 1) * kMaxWidth];
  int first;  // kMaxHornerDegree - degree: the first non-zero row (the width is the kernels' W)
};

// Points after set_points, in processing order (bin-sorted, or user order without sorting), in
// one of two layouts (sort_strategy.hpp PointLayout), each a view type of its own that kernels
// are compiled for (their template parameter P, chosen by dispatch_kernel in
// width_dispatch.hpp) and read through point_access.cuh only. One kernel for both with a
// uniform run-time branch held the larger register count of the two (ptxas, sm_90:
// interp_sweep float 2D w 6 64 -> 80, spread_sweep 51 -> 64, interp_dealt 2D 32 -> 40), and a
// split view grown by the records' fields changed today's kernels too (spread_rows w 13 3D
// spilled): so the split view is exactly today's.
//
// Split: per dimension i0 = first fine-grid cell the kernel touches (exact integer; may be
// negative by up to w/2) and s in [-1, 1), the Horner argument - splitting the fine-grid
// coordinate into an integer and a small fraction keeps float exact on grids past 2^24 cells -
// and the permutation.
template <typename T>
struct SplitPoints {
  const std::int32_t* i0[3];
  const T* s[3];
  // Processing position -> user index: 32-bit for M < 2^31 (cuda/index_width.hpp), else 64-bit;
  // both nullptr = identity (unsorted).
  const std::int32_t* perm32;
  const std::int64_t* perm64;
  std::int64_t M;
};

// Records: the sorted packed records (point_record.cuh; coordinates and 32-bit user index), from
// which i0 and s are computed with the sort's own arithmetic and the fine grid and width it
// sorted with.
template <typename T>
struct RecordPoints {
  const unsigned* records;
  std::int32_t nf[3];
  int w;
  std::int64_t M;
};

// What the engine hands a launch: either layout (records non-null: records; the split arrays
// are then null). A kernel gets the view of its layout (slicing to SplitPoints, or the
// conversion below).
template <typename T>
struct PointsView : SplitPoints<T> {
  const unsigned* records;
  std::int32_t nf[3];
  int w;
  operator RecordPoints<T>() const {  // NOLINT: implicit at launches
    return RecordPoints<T>{records, {nf[0], nf[1], nf[2]}, w, this->M};
  }
};

struct GridView {
  std::int32_t nf[3];  // fine grid per dim (1 for unused dims); each < 2^31
  std::int64_t total;  // prod(nf)
};

struct BinView {
  std::int32_t size[3];   // bin size in fine-grid cells (1 for unused dims)
  std::int32_t count[3];  // bins per dim
  std::int64_t total;
  IntDivider per_size[3];  // division by size[d] (make_bins sets both): a cell's bin coordinate
};

// A shared-memory copy of one bin plus its kernel halo: width = bin + 2 * pad per used dim,
// with an odd row stride so rows of a stencil land in different banks.
struct TileView {
  std::int32_t width[3];
  std::int32_t stride0;  // >= width[0]
  std::int32_t pad;      // ceil(w / 2)
  std::int64_t cells;    // stride0 * width[1] * width[2]: one real plane
};

inline TileView make_tile(int dim, int w, const BinView& bins) {
  TileView t{};
  t.pad = (w + 1) / 2;
  for (int d = 0; d < 3; ++d) t.width[d] = d < dim ? bins.size[d] + 2 * t.pad : 1;
  t.stride0 = (dim > 1) ? (t.width[0] | 1) : t.width[0];
  t.cells = std::int64_t(t.stride0) * t.width[1] * t.width[2];
  return t;
}

// Up to maxsubprobsize consecutive sorted points of one bin.
struct Subproblem {
  std::int64_t start;  // first sorted position
  std::int32_t count;
  std::int32_t bin;
};

}  // namespace nufftmp::detail
