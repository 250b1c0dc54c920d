// How points are divided among ranks: pure arithmetic (no MPI, no GPU), unit-tested on its own.
// All counts and offsets are 64-bit; MPI's int-sized counts are produced only by
// mpi_chunks(), which splits any 64-bit count into pieces that fit.
#pragma once

#include <cstdint>
#include <vector>

namespace nufftmp::dist::detail {

// Near-equal contiguous share of `total` items among `nranks`: the first total % nranks ranks
// get one item more. share_count(...) sums to total over all ranks.
std::int64_t share_count(std::int64_t total, int nranks, int rank);
std::int64_t share_offset(std::int64_t total, int nranks, int rank);

// Counts of every rank, and their exclusive prefix sums (displacements; one more entry than
// counts, the last being the total).
std::vector<std::int64_t> share_counts(std::int64_t total, int nranks);
std::vector<std::int64_t> displacements(const std::vector<std::int64_t>& counts);

// One move of a rebalance: rank `from` sends `count` items starting at its local index
// `from_offset` to rank `to`, which stores them at its local index `to_offset`.
struct Transfer {
  int from = 0, to = 0;
  std::int64_t from_offset = 0, to_offset = 0, count = 0;
};

// The moves that turn the current distribution `counts` (items in global rank order: rank 0's
// items first) into the near-equal shares of share_counts(total, nranks), keeping the global
// order. Items that stay on their rank appear as a Transfer with from == to. The moves are
// listed by increasing global index; each rank's received pieces tile [0, new count).
std::vector<Transfer> rebalance_plan(const std::vector<std::int64_t>& counts);

// The largest count one MPI call takes (its counts are int).
constexpr std::int64_t kMaxMpiCount = 2147483647;

// Splits n items into pieces of at most max_piece, for MPI calls whose counts are int.
// Returns the piece sizes (empty for n == 0).
std::vector<std::int64_t> mpi_chunks(std::int64_t n, std::int64_t max_piece = kMaxMpiCount);

// Largest imbalance: max(counts) / mean(counts) (1 when perfectly even or empty).
double imbalance(const std::vector<std::int64_t>& counts);

}  // namespace nufftmp::dist::detail
