// The bounded set of idle resources behind the cuFFT handle pool (common/idle_cache.hpp):
// what is taken, in which order, and what is evicted.
#include <gtest/gtest.h>

#include <string>

#include "common/idle_cache.hpp"

namespace nufftmp::detail {
namespace {

TEST(IdleCache, TakesOnlyItsKeyMostRecentFirst) {
  IdleCache<std::string, int> c(4);
  EXPECT_FALSE(c.take("a").has_value());
  EXPECT_FALSE(c.give("a", 1).has_value());
  EXPECT_FALSE(c.give("b", 2).has_value());
  EXPECT_FALSE(c.give("a", 3).has_value());
  EXPECT_EQ(c.size(), 3u);
  EXPECT_FALSE(c.take("c").has_value());
  EXPECT_EQ(c.take("a"), 3);
  EXPECT_EQ(c.take("a"), 1);
  EXPECT_FALSE(c.take("a").has_value());
  EXPECT_EQ(c.take("b"), 2);
  EXPECT_EQ(c.size(), 0u);
}

TEST(IdleCache, EvictsTheLeastRecentlyReturned) {
  IdleCache<int, int> c(2);
  EXPECT_FALSE(c.give(1, 10).has_value());
  EXPECT_FALSE(c.give(2, 20).has_value());
  const auto out = c.give(3, 30);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->first, 1);  // the caller destroys it under its own key
  EXPECT_EQ(out->second, 10);
  EXPECT_EQ(c.size(), 2u);
  EXPECT_FALSE(c.take(1).has_value());
  EXPECT_EQ(c.take(3), 30);
  EXPECT_EQ(c.take(2), 20);

  IdleCache<int, int> none(0);  // keeps nothing: v comes straight back
  const auto back = none.give(7, 70);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->second, 70);
  EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace nufftmp::detail
