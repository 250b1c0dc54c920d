// Division of a nonnegative 31-bit integer by a divisor fixed at plan time, as one 32 x 32 -> 64
// bit multiply and a shift (Granlund and Montgomery 1994, the round-up multiplier; the spare
// 32nd bit of the dividend keeps the multiplier within 32 bits). On the GPU an integer division
// by a run-time value is a sequence of about twenty instructions; set_points divides every
// point's cell by the bin size on each axis in each pass over the points, and those passes are
// bound by their instructions (src/core/cuda/PERFORMANCE.md, "set_points after the records
// layout").
#pragma once

#include <cstdint>
#include <string>

#include "common/host_device.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

struct IntDivider {
  // The divisor 1 by default (magic 2^31 + 1, shift 31: (n (2^31 + 1)) >> 31 = n for n < 2^31).
  std::uint32_t magic = 0x80000001u;
  std::int32_t shift = 31;

  // d in [1, 2^31). With l = ceil(log2 d), magic = floor(2^(31 + l) / d) + 1 exceeds
  // 2^(31 + l) / d by at most 1, so n magic / 2^(31 + l) exceeds n / d by at most
  // n / 2^(31 + l) < 2^-l <= 1 / d: never enough to reach the next integer for n < 2^31.
  // magic < 2^32: for d = 2^l it is 2^31 + 1, otherwise d > 2^(l-1) keeps it below 2^32.
  static IntDivider make(std::int64_t d) {
    if (d < 1 || d > INT32_MAX)
      throw Error(ErrorCode::Internal,
                  "IntDivider: divisor " + std::to_string(d) + " outside [1, 2^31)");
    int l = 0;
    while ((std::int64_t(1) << l) < d) ++l;
    IntDivider v;
    v.magic = static_cast<std::uint32_t>(((std::uint64_t(1) << (31 + l)) / std::uint64_t(d)) + 1);
    v.shift = 31 + l;
    return v;
  }

  // n / d for 0 <= n < 2^31 (the caller's guarantee: cells of a fine grid, bins of a grid).
  NUFFTMP_HD std::int32_t divide(std::int32_t n) const {
    return static_cast<std::int32_t>((std::uint64_t(static_cast<std::uint32_t>(n)) * magic) >>
                                     shift);
  }
};

}  // namespace nufftmp::detail
