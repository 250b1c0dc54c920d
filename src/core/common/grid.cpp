#include "common/grid.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::detail {

namespace {

// The smallest 2^a 3^b 5^c [7^d] >= n_min with a >= min_two, by enumerating the products of
// the odd primes below 2 n_min and completing each with the least power of two that reaches
// n_min: O(log^3 n) products instead of a trial division of every candidate (the gaps between
// 5-smooth numbers near 2e7 are thousands wide: that search took ~0.2 ms per call, ~1-2 ms of a
// 1D plan of 1e7 modes, which sizes several candidate grids).
std::int64_t least_smooth(std::int64_t n_min, int min_two, bool with7) {
  const std::int64_t target = std::max<std::int64_t>(n_min, 1);
  std::int64_t best = -1;
  const std::int64_t bound = 2 * target;  // some power of two times 1 lies in [target, 2 target)
  for (std::int64_t p7 = 1; p7 <= bound; p7 *= 7) {
    for (std::int64_t p5 = p7; p5 <= bound; p5 *= 5) {
      for (std::int64_t p3 = p5; p3 <= bound; p3 *= 3) {
        std::int64_t v = p3 << min_two;
        while (v < target) v <<= 1;
        if (best < 0 || v < best) best = v;
      }
    }
    if (!with7) break;
  }
  return best;
}

}  // namespace

std::int64_t next_smooth_even(std::int64_t n_min) {
  if (n_min <= 2) return 2;
  return least_smooth(n_min, 1, false);
}

std::int64_t next_fft_friendly(std::int64_t n_min) { return least_smooth(n_min, 0, true); }

std::int64_t fine_grid_size(std::int64_t N, double upsampfac, int w) {
  const auto scaled = static_cast<std::int64_t>(std::ceil(upsampfac * static_cast<double>(N)));
  return next_smooth_even(std::max<std::int64_t>(scaled, 2 * w));
}

}  // namespace nufftmp::detail
