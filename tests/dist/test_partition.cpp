// The pure decomposition logic (no MPI): shares, displacements, rebalance moves, MPI chunks.
#include <gtest/gtest.h>

#include <numeric>

#include "nufftmp/errors.hpp"
#include "partition.hpp"

using namespace nufftmp::dist::detail;

TEST(Partition, SharesAreContiguousNearEqualAndSumToTotal) {
  for (std::int64_t total : {0LL, 1LL, 5LL, 7LL, 100LL, 1001LL}) {
    for (int P : {1, 2, 3, 4, 7, 16}) {
      std::int64_t sum = 0, lo = total, hi = 0;
      for (int r = 0; r < P; ++r) {
        const auto c = share_count(total, P, r);
        EXPECT_EQ(share_offset(total, P, r), sum) << total << " over " << P << ", rank " << r;
        sum += c;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
      }
      EXPECT_EQ(sum, total);
      EXPECT_LE(hi - lo, 1) << total << " over " << P;
    }
  }
}

TEST(Partition, MoreRanksThanItemsGivesEmptyShares) {
  const auto c = share_counts(2, 5);
  EXPECT_EQ(c, (std::vector<std::int64_t>{1, 1, 0, 0, 0}));
  EXPECT_EQ(share_offset(2, 5, 4), 2);
}

TEST(Partition, CountsBeyond32Bits) {
  const std::int64_t total = 5'000'000'000'123LL;
  const int P = 7;
  std::int64_t sum = 0;
  for (int r = 0; r < P; ++r) sum += share_count(total, P, r);
  EXPECT_EQ(sum, total);
  EXPECT_EQ(share_offset(total, P, P - 1) + share_count(total, P, P - 1), total);
  EXPECT_GT(share_count(total, P, 0), std::int64_t(1) << 31);
}

TEST(Partition, Displacements) {
  EXPECT_EQ(displacements({3, 0, 4}), (std::vector<std::int64_t>{0, 3, 3, 7}));
  EXPECT_EQ(displacements({}), (std::vector<std::int64_t>{0}));
  EXPECT_THROW(displacements({1, -1}), nufftmp::Error);
}

TEST(Partition, BadArgumentsAreNamed) {
  try {
    share_count(10, 0, 0);
    FAIL() << "no throw";
  } catch (const nufftmp::Error& e) {
    EXPECT_EQ(e.code(), nufftmp::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("nranks = 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(share_count(10, 3, 3), nufftmp::Error);
  EXPECT_THROW(share_count(-1, 3, 0), nufftmp::Error);
}

// Applies the moves to data laid out by `counts` and checks the result is the even layout of
// the same items in the same global order.
static void check_rebalance(const std::vector<std::int64_t>& counts) {
  const int P = static_cast<int>(counts.size());
  const auto from = displacements(counts);
  const std::int64_t total = from.back();
  const auto target = share_counts(total, P);
  std::vector<std::vector<std::int64_t>> before(P), after(P);
  for (int r = 0; r < P; ++r)
    for (std::int64_t i = 0; i < counts[r]; ++i) before[r].push_back(from[r] + i);
  for (int r = 0; r < P; ++r) after[r].assign(static_cast<std::size_t>(target[r]), -1);
  std::int64_t moved = 0;
  for (const auto& t : rebalance_plan(counts)) {
    ASSERT_GT(t.count, 0);
    for (std::int64_t i = 0; i < t.count; ++i) {
      ASSERT_LT(t.from_offset + i, counts[t.from]);
      ASSERT_LT(t.to_offset + i, target[t.to]);
      after[t.to][t.to_offset + i] = before[t.from][t.from_offset + i];
    }
    moved += t.count;
  }
  EXPECT_EQ(moved, total);
  std::int64_t next = 0;
  for (int r = 0; r < P; ++r)
    for (auto v : after[r]) EXPECT_EQ(v, next++) << "rank " << r;
}

TEST(Partition, RebalancePlanEvensOutAndKeepsOrder) {
  check_rebalance({10, 0, 0});
  check_rebalance({0, 0, 9});
  check_rebalance({3, 3, 3});
  check_rebalance({1, 7, 0, 5});
  check_rebalance({0, 0, 0});
  check_rebalance({2});
  check_rebalance({100, 1, 1, 1, 1, 1, 1});
}

TEST(Partition, RebalanceOfEvenSharesMovesNothing) {
  for (const auto& t : rebalance_plan({4, 4, 3})) EXPECT_EQ(t.from, t.to);
}

TEST(Partition, MpiChunksFitInInt) {
  EXPECT_TRUE(mpi_chunks(0).empty());
  EXPECT_EQ(mpi_chunks(10, 4), (std::vector<std::int64_t>{4, 4, 2}));
  EXPECT_EQ(mpi_chunks(8, 4), (std::vector<std::int64_t>{4, 4}));
  const auto big = mpi_chunks(5'000'000'000LL);
  ASSERT_EQ(big.size(), 3u);
  for (auto p : big) EXPECT_LE(p, 2147483647LL);
  EXPECT_EQ(std::accumulate(big.begin(), big.end(), std::int64_t(0)), 5'000'000'000LL);
}

TEST(Partition, Imbalance) {
  EXPECT_DOUBLE_EQ(imbalance({5, 5}), 1.0);
  EXPECT_DOUBLE_EQ(imbalance({10, 0}), 2.0);
  EXPECT_DOUBLE_EQ(imbalance({0, 0}), 1.0);
}
