#include "common/grid.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::detail {

std::int64_t next_smooth_even(std::int64_t n_min) {
  if (n_min <= 2) return 2;
  std::int64_t n = n_min + (n_min & 1);
  for (;; n += 2) {
    std::int64_t m = n;
    while (m % 2 == 0) m /= 2;
    while (m % 3 == 0) m /= 3;
    while (m % 5 == 0) m /= 5;
    if (m == 1) return n;
  }
}

std::int64_t next_fft_friendly(std::int64_t n_min) {
  for (std::int64_t n = std::max<std::int64_t>(n_min, 1);; ++n) {
    std::int64_t m = n;
    for (std::int64_t p : {2, 3, 5, 7})
      while (m % p == 0) m /= p;
    if (m == 1) return n;
  }
}

std::int64_t fine_grid_size(std::int64_t N, double upsampfac, int w) {
  const auto scaled = static_cast<std::int64_t>(std::ceil(upsampfac * static_cast<double>(N)));
  return next_smooth_even(std::max<std::int64_t>(scaled, 2 * w));
}

}  // namespace nufftmp::detail
