// exchange_bytes (src/dist/exchange.hpp): every rank's blocks arrive at the right ranks in
// rank order, also when they move in many small pieces (max_piece 7 bytes) and when some
// blocks are empty.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dist_test_util.hpp"
#include "exchange.hpp"

namespace nufftmp::test {
namespace {

// The byte k of the block from rank `from` to rank `to`.
char pattern(int from, int to, std::int64_t k) { return static_cast<char>(31 * from + 7 * to + k); }
// Block sizes: some empty (from + to divisible by 3), the others of different lengths.
std::int64_t block(int from, int to) { return (from + to) % 3 == 0 ? 0 : 5 * (from + 1) + 3 * to; }

void check_exchange(std::int64_t max_piece) {
  const int me = world_rank(), P = world_size();
  std::vector<char> send;
  std::vector<std::int64_t> bytes(P);
  for (int r = 0; r < P; ++r) {
    bytes[r] = block(me, r);
    for (std::int64_t k = 0; k < bytes[r]; ++k) send.push_back(pattern(me, r, k));
  }
  const auto got = dist::detail::exchange_bytes(MPI_COMM_WORLD, send.data(), bytes, max_piece);
  std::int64_t at = 0;
  for (int r = 0; r < P; ++r) {
    ASSERT_EQ(got.recv_bytes[r], block(r, me)) << "from rank " << r;
    for (std::int64_t k = 0; k < block(r, me); ++k)
      ASSERT_EQ(got.data[at + k], pattern(r, me, k)) << "from rank " << r << " byte " << k;
    at += block(r, me);
  }
  EXPECT_EQ(static_cast<std::int64_t>(got.data.size()), at);
}

TEST(DistExchange, BlocksArriveInRankOrder) { check_exchange(2147483647); }
TEST(DistExchange, ManySmallPieces) { check_exchange(7); }

}  // namespace
}  // namespace nufftmp::test
