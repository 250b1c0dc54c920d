#include "common/cufft_sizes.hpp"

#include <algorithm>
#include <iterator>

namespace nufftmp::detail {

namespace {

struct SizeCost {
  std::int64_t n;
  int single, dbl;  // best-of-10 time per cell, ns x 1e5
};

constexpr SizeCost kCosts[] = {
#include "common/cufft_1d_costs.inc"
};

}  // namespace

std::int64_t cufft_1d_size(std::int64_t n, bool single) {
  const auto* const begin = std::begin(kCosts);
  const auto* const end = std::end(kCosts);
  const auto* at = std::lower_bound(begin, end, n,
                                    [](const SizeCost& c, std::int64_t v) { return c.n < v; });
  if (at == end || at->n != n) return n;  // outside the table (or not a table size)
  const auto time = [single](const SizeCost& c) {
    return static_cast<double>(c.n) * (single ? c.single : c.dbl);
  };
  const double base = time(*at);
  std::int64_t best = n;
  double best_time = base * (1.0 - kCufftSizeGain);
  for (const auto* c = at + 1; c != end && static_cast<double>(c->n) <= kCufftSizeSlack * n; ++c) {
    if (time(*c) < best_time) {
      best = c->n;
      best_time = time(*c);
    }
  }
  return best;
}

}  // namespace nufftmp::detail
