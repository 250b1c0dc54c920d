// PointReader: the coordinates of consecutive sorted points (SortedPoints, either layout) as
// fine-grid doubles, for the spreading and interpolation loops. Like kernel_eval.hpp it lives in
// the namespace NUFFTMP_CPU_ISA: an inline function shared by name between the isa_*.cpp files
// would let the linker keep one instruction set's copy for all of them (and GCC did not inline
// read: 3.5% of a 3D float type 1 run out of line).
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/sorted_points.hpp"

#ifndef NUFFTMP_CPU_ISA
#define NUFFTMP_CPU_ISA generic
#endif

namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA {

// Reads the coordinates of consecutive sorted points in either layout, as fine-grid doubles:
// for the packed layout it follows the bins (bin_start) to know each point's bin origin, so
// reads should go forward (a read before the current bin seeks again, by a binary search).
template <typename T>
class PointReader {
 public:
  explicit PointReader(const SortedPoints<T>& pts) : pts_(pts) {}
  // Points j..j+n-1 into out[q * D + d] (packed), or a pointer into pts.g.
  template <int D>
  __attribute__((always_inline)) inline const double* read(std::int64_t j, int n, double* out) {
    if (!pts_.packed) return pts_.template point<D>(j);
    // Locals: out's stores could alias the doubles of pts_ and *this, which would otherwise be
    // reloaded after every store.
    const std::uint32_t* rec = pts_.rec.data();
    double unit[D], origin[D];
    for (int d = 0; d < D; ++d) {
      unit[d] = pts_.unit[d];
      origin[d] = origin_[d];
    }
    for (int q = 0; q < n; ++q) {
      const std::int64_t jj = j + q;
      if (__builtin_expect(jj >= next_ || jj < first_, 0)) {
        advance(jj);
        for (int d = 0; d < D; ++d) origin[d] = origin_[d];
      }
      const std::uint32_t* r = rec + jj * (D + 1);
      for (int d = 0; d < D; ++d) out[q * D + d] = origin[d] + static_cast<double>(r[d]) * unit[d];
    }
    return out;
  }

 private:
  // To the bin holding sorted point j: the next few bins in turn (the usual case: the reads
  // go forward), else a binary search of bin_start (empty bins share their start with the
  // next nonempty one: the last bin starting at or before j holds it).
  // (Out of line: inlined, it made the spreader's group preparation too large for GCC to
  // inline that into spread_box, 22% of a 3D float type 1 run in the out-of-line copy.)
  __attribute__((noinline)) void advance(std::int64_t j) {
    const std::int64_t* starts = pts_.bin_start.data();
    const std::int64_t nbins = pts_.layout.total();
    int steps = 0;
    while (j >= next_ && j >= first_ && b_ + 1 < nbins && steps < 8) {
      ++b_;
      ++steps;
      first_ = next_;
      next_ = starts[b_ + 1];
    }
    if (j < first_ || j >= next_)
      b_ = std::upper_bound(starts, starts + nbins + 1, j) - starts - 1;
    first_ = starts[b_];
    next_ = starts[b_ + 1];
    const std::int64_t nx = pts_.layout.count[0], ny = pts_.layout.count[1];
    const std::int64_t c[3] = {b_ % nx, (b_ / nx) % ny, b_ / (nx * ny)};
    for (int d = 0; d < 3; ++d)
      origin_[d] = static_cast<double>(c[d] << pts_.layout.log_size[d]);
  }
  const SortedPoints<T>& pts_;
  std::int64_t b_ = -1;
  std::int64_t first_ = 0, next_ = 0;  // bin b_'s sorted range [first_, next_)
  double origin_[3] = {0, 0, 0};
};

}  // namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA
