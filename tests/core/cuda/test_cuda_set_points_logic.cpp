// Host-only logic of the CUDA engine's set_points: the 32/64-bit choice of the sort's indices,
// the subproblem-list bound it sizes its buffer with, and the memory pool's release threshold.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "cuda/index_width.hpp"
#include "cuda/pool_policy.hpp"

namespace nufftmp::detail {
namespace {

TEST(SortIndexWidth, ThirtyTwoBitsBelowTwoToThe31) {
  const std::int64_t two31 = std::int64_t(1) << 31;
  EXPECT_FALSE(sort_needs_index64(0, 1, 0, false));
  EXPECT_FALSE(sort_needs_index64(16777216, 32768, 1024, false));  // P1
  EXPECT_FALSE(sort_needs_index64(two31 - 2, 32768, 0, false));
  EXPECT_TRUE(sort_needs_index64(two31, 32768, 0, false));
  EXPECT_FALSE(sort_needs_index64(two31 - 1, 32768, 0, false));  // offsets reach M: fits
  EXPECT_TRUE(sort_needs_index64(5, two31, 0, false));          // bin offsets index nbins + 1
  // Subproblem offsets reach M / maxsub + min(nbins, M): with maxsub 1 that is ~2M.
  EXPECT_FALSE(sort_needs_index64(two31 / 4, two31 / 4, 1, false));
  EXPECT_TRUE(sort_needs_index64(two31 / 2 + 10, two31 / 2, 1, false));
  EXPECT_TRUE(sort_needs_index64(100, 10, 64, true));  // forced (tests of the wide path)
}

// The bound is >= the true count for any fill of the bins, and tight for one full bin.
TEST(SortIndexWidth, SubproblemCapacityBoundsEveryFill) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t nbins = 1 + rng() % 300;
    const std::int64_t M = rng() % 5000;
    const int maxsub = 1 + static_cast<int>(rng() % 100);
    std::vector<std::int64_t> n(static_cast<size_t>(nbins), 0);
    const bool crowded = trial % 3 == 0;
    for (std::int64_t j = 0; j < M; ++j)
      ++n[static_cast<size_t>(crowded ? (rng() % 3) : (rng() % nbins))];
    std::int64_t count = 0;
    for (std::int64_t v : n) count += (v + maxsub - 1) / maxsub;
    EXPECT_GE(subproblem_capacity(M, nbins, maxsub), count)
        << "M " << M << " nbins " << nbins << " maxsub " << maxsub;
  }
  EXPECT_EQ(subproblem_capacity(1000, 50, 0), 0);
  EXPECT_GE(subproblem_capacity(0, 50, 64), 1);  // never an empty list buffer
}

TEST(PoolPolicy, DefaultIsAnEighthOfTheDevice) {
  const std::size_t total = std::size_t(141) << 30;
  EXPECT_EQ(pool_release_threshold(total, nullptr), total / 8);
  EXPECT_EQ(pool_release_threshold(total, ""), total / 8);
}

TEST(PoolPolicy, EnvironmentOverrides) {
  const std::size_t total = std::size_t(100) << 30;
  EXPECT_EQ(pool_release_threshold(total, "0"), 0u);
  EXPECT_EQ(pool_release_threshold(total, "4096"), 4096u);
  EXPECT_EQ(pool_release_threshold(total, "3K"), 3u * 1024);
  EXPECT_EQ(pool_release_threshold(total, "512M"), 512ull << 20);
  EXPECT_EQ(pool_release_threshold(total, "2G"), 2ull << 30);
  EXPECT_EQ(pool_release_threshold(total, "25%"), total / 4);
  EXPECT_EQ(pool_release_threshold(total, "100%"), total);
  EXPECT_EQ(pool_release_threshold(total, "1e30"), UINT64_MAX);  // keep everything
  // Nonsense keeps the default.
  for (const char* bad : {"abc", "-5", "12X", "150%", "G", "nan"})
    EXPECT_EQ(pool_release_threshold(total, bad), total / 8) << bad;
}

}  // namespace
}  // namespace nufftmp::detail
