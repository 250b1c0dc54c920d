// common/int_divider.hpp: the multiply-and-shift quotient equals integer division for every
// divisor the plans use (bin sizes, bins per bucket: 1 .. 2^31 - 1) at the dividends where a
// wrong multiplier shows first (each side of every multiple of d, and the top of the range).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "common/int_divider.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {
namespace {

void expect_exact(std::int64_t d, const std::vector<std::int64_t>& ns) {
  const IntDivider v = IntDivider::make(d);
  for (std::int64_t n : ns) {
    if (n < 0 || n > INT32_MAX) continue;
    ASSERT_EQ(v.divide(static_cast<std::int32_t>(n)), n / d) << "n " << n << " / d " << d;
  }
}

std::vector<std::int64_t> near_multiples(std::int64_t d, std::mt19937_64& rng) {
  std::vector<std::int64_t> ns = {0, 1, d - 1, d, d + 1, INT32_MAX, INT32_MAX - 1};
  const std::int64_t qmax = INT32_MAX / d;
  for (std::int64_t q : {std::int64_t(1), std::int64_t(2), qmax - 1, qmax, qmax + 1})
    for (std::int64_t e : {-1, 0, 1}) ns.push_back(q * d + e);
  std::uniform_int_distribution<std::int64_t> any(0, INT32_MAX);
  for (int i = 0; i < 64; ++i) {
    const std::int64_t n = any(rng);
    ns.push_back(n);
    ns.push_back(n / d * d - 1);
    ns.push_back(n / d * d + d - 1);
  }
  return ns;
}

TEST(IntDivider, EqualsIntegerDivisionForSmallDivisors) {
  std::mt19937_64 rng(7);
  for (std::int64_t d = 1; d <= 4096; ++d) expect_exact(d, near_multiples(d, rng));
}

TEST(IntDivider, EqualsIntegerDivisionForLargeDivisors) {
  std::mt19937_64 rng(11);
  std::vector<std::int64_t> ds = {INT32_MAX, INT32_MAX - 1, std::int64_t(1) << 30,
                                  (std::int64_t(1) << 30) + 1, (std::int64_t(1) << 30) - 1,
                                  65535, 65536, 65537, 1000003};
  std::uniform_int_distribution<std::int64_t> any(4097, INT32_MAX);
  for (int i = 0; i < 2000; ++i) ds.push_back(any(rng));
  for (int l = 12; l < 31; ++l)
    for (std::int64_t e : {-1, 0, 1}) ds.push_back((std::int64_t(1) << l) + e);
  for (std::int64_t d : ds) expect_exact(d, near_multiples(d, rng));
}

TEST(IntDivider, EveryDividendForAFewDivisors) {
  // All 2^31 dividends would take seconds; every dividend up to 2^22 and the top 2^22.
  for (std::int64_t d : {3, 7, 24, 100, 641}) {
    const IntDivider v = IntDivider::make(d);
    for (std::int64_t n = 0; n < (std::int64_t(1) << 22); ++n)
      ASSERT_EQ(v.divide(static_cast<std::int32_t>(n)), n / d) << "n " << n << " d " << d;
    for (std::int64_t n = INT32_MAX - (std::int64_t(1) << 22); n <= INT32_MAX; ++n)
      ASSERT_EQ(v.divide(static_cast<std::int32_t>(n)), n / d) << "n " << n << " d " << d;
  }
}

TEST(IntDivider, RefusesDivisorsOutsideItsRange) {
  for (std::int64_t d : {std::int64_t(0), std::int64_t(-3), std::int64_t(INT32_MAX) + 1}) {
    try {
      IntDivider::make(d);
      ADD_FAILURE() << "divisor " << d << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Internal);
    }
  }
}

}  // namespace
}  // namespace nufftmp::detail
