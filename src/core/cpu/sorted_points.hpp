// Points as the CPU engine keeps them after set_points: folded into fine-grid units, bin-sorted
// with the permutation back to the user's order, and cut into subproblems (runs of consecutive
// sorted points) whose bounding boxes are known up front.
//
// The sort is a two-pass counting sort over the user's arrays (OpenMP): pass 1 folds every
// point, checks it and counts it into its bin; pass 2 folds it again and writes it to its
// bin's next free slot: for many points through buffers per bin (8 points' coordinates, a
// line of indices), each full line streamed past the caches (store misses on thousands of
// open lines were most of the sort's time). Nothing else reads or writes per-point memory: no
// bin index array, no gather through the permutation, no pass for the boxes (they follow from
// the bins).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cpu/host_array.hpp"

namespace nufftmp::detail::cpu {

struct Subproblem {
  std::int64_t begin = 0, end = 0;      // sorted point range
  std::array<std::int64_t, 3> lo{};     // first fine cell touched (may be < 0: wraps)
  std::array<std::int64_t, 3> extent{};  // cells covered per dim (box + kernel width)
  std::int64_t cells() const { return extent[0] * extent[1] * extent[2]; }
};

// Bins: boxes of 2^log_size[d] fine cells along axis d (the last bin of an axis may be cut
// short by the grid), numbered x fastest.
struct BinLayout {
  int dim = 1;
  std::array<int, 3> log_size{0, 0, 0};
  std::array<std::int64_t, 3> count{1, 1, 1};
  std::int64_t total() const { return count[0] * count[1] * count[2]; }
};

// Small: 3D bins of 16 x 4 x 4 cells instead of 16 x 8 x 8 (for the 3D double spreader,
// whose execute gains more from the finer order than set_points loses; sorted_points.cpp).
enum class BinShape { Default, Small };

// The bins for a fine grid nf: long in x (the contiguous axis) so that a subproblem's box is
// a few cache lines wide, small in y/z so that consecutive bins stay close in space; on grids
// with more than kMaxBins of those (large 1D and 2D grids) the x length doubles until they fit,
// so that pass 2's buffers stay in L2.
BinLayout make_bin_layout(int dim, const std::array<std::int64_t, 3>& nf,
                          BinShape shape = BinShape::Default);
constexpr std::int64_t kMaxBins = std::int64_t(1) << 14;

// lo/extent of a box covering every cell that a kernel of width w centred anywhere in the
// nonempty bins among b0..b1 can touch (bin_start: first sorted point of each bin, and M at
// the end); exact at the granularity of bins.
void box_of_bins(const BinLayout& bins, const std::array<std::int64_t, 3>& nf, int w,
                 const std::int64_t* bin_start, std::int64_t b0, std::int64_t b1,
                 Subproblem& sp);

template <typename T>
struct SortedPoints {
  int dim = 1;
  std::int64_t M = 0;
  // Coordinates in fine-grid units [0, nf), sorted order, point by point: g[j * dim + d].
  // Double for either precision: a float holds 24 bits, so on a grid of 2^20 cells only 4
  // would be left for the position within a cell (errors grew like nf * eps); the kernel
  // argument i0 - g is formed in double, then cast.
  HostArray<double> g;
  // The packed layout, used instead of g and perm32 for sorted float points below 2^31 (packed
  // true): record j is rec[j * (dim + 1) + d] for d < dim, the point's position within its bin
  // in 32-bit fixed point (g = bin origin + rec * 2^(s - 32) for bins of 2^s cells: at most
  // 2^(s - 33) cells off, 6e-8 for 1D bins of 256 cells, under the 2.4e-7 that the kernel
  // argument's cast to float rounds by), then its user index (d = dim). 4 (dim + 1) bytes a
  // point in one record (3D: 16 B where g and perm32 take 28): set_points' place writes one
  // line a point instead of two, and execute reads fewer bytes. PointReader (point_reader.hpp)
  // decodes it.
  HostArray<std::uint32_t> rec;
  bool packed = false;
  BinLayout layout;                 // the bins (also when not packed)
  std::array<double, 3> unit{};     // 2^(s - 32) per axis
  // Sorted position -> user index, 32-bit below 2^31 points (4 bytes fewer per point for the
  // sort to write and every execute to read), else 64-bit; a later set_points of fewer points
  // keeps 64-bit once it has the room (it then allocates nothing). with_perm reads it.
  HostArray<std::int32_t> perm32;
  HostArray<std::int64_t> perm64;
  bool wide_perm = false;
  std::vector<Subproblem> subproblems;
  std::int64_t max_subproblem_cells = 0;
  std::int64_t max_subproblem_points = 0;
  // The sort's working memory, kept for the next set_points (which then allocates nothing
  // unless M grows): bin counters per chunk of points (32-bit while M < 2^32), and each bin's
  // first sorted point.
  std::vector<std::uint32_t> counts32;
  std::vector<std::int64_t> counts64;
  std::vector<std::int64_t> bin_start;
  // The offsets' prefix over the ranges of bins that the threads take (one entry a thread).
  std::vector<std::int64_t> range_start;
  // The streamed place's line buffers and cursors, per thread (bin_pass.hpp).
  HostArray<std::uint64_t> line_buffers;

  // f(p) with p the permutation (const std::int32_t* or const std::int64_t*).
  // The packed layout's user indices, every R-th word (R = dim + 1): indexed and offset like a
  // pointer.
  template <int R>
  struct StridedIndex {
    const std::uint32_t* p;
    std::int64_t operator[](std::int64_t j) const { return static_cast<std::int64_t>(p[j * R]); }
    StridedIndex operator+(std::int64_t k) const { return {p + k * R}; }
  };
  template <typename F>
  decltype(auto) with_perm(F&& f) const {
    if (packed) {
      const std::uint32_t* p = rec.data() + dim;
      if (dim == 1) return f(StridedIndex<2>{p});
      return dim == 2 ? f(StridedIndex<3>{p}) : f(StridedIndex<4>{p});
    }
    return wide_perm ? f(perm64.data()) : f(perm32.data());
  }
  // Point j's user index and coordinate d in fine-grid units (tests; execute uses PointReader).
  std::int64_t index(std::int64_t j) const {
    return with_perm([&](auto p) { return static_cast<std::int64_t>(p[j]); });
  }
  double coord(std::int64_t j, int d) const;
  template <int D>
  const double* point(std::int64_t j) const {
    return g.data() + j * D;
  }
  std::size_t bytes() const {
    return g.bytes() + rec.bytes() + perm32.bytes() + perm64.bytes() + line_buffers.bytes() +
           subproblems.capacity() * sizeof(Subproblem) +
           counts32.capacity() * sizeof(std::uint32_t) +
           (counts64.capacity() + bin_start.capacity() + range_start.capacity()) *
               sizeof(std::int64_t);
  }
};

// How pass 2 writes the points: Auto picks by the number of points and bins; the others force
// one way (tests compare them; the results are the same bit for bit).
enum class Place { Auto, Direct, Streamed };

// Checks x/y/z (Error(BadPoints) naming the first bad coordinate, as check_points_host; the
// arrays and M are checked by the caller), folds and rescales them, sorts them into bins (when
// sort is true; else keeps the user order) and builds the subproblems for kernel width w and
// nthreads threads. On any error the previous points are kept, except after
// Error(OutOfMemory) growing the arrays (then M = 0). debug >= 2 prints the phases' times.
template <typename T>
void sort_points(int dim, std::int64_t M, const T* x, const T* y, const T* z,
                 const std::array<std::int64_t, 3>& nf, int w, bool sort, int nthreads,
                 int debug, SortedPoints<T>& out, Place place = Place::Auto,
                 BinShape shape = BinShape::Default, bool allow_packed = true);

}  // namespace nufftmp::detail::cpu
