// Near-equal contiguous shares, displacements and the rebalance plan (pure arithmetic).
#include "partition.hpp"

#include <algorithm>
#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::dist::detail {

namespace {
void require_valid(std::int64_t total, int nranks, int rank) {
  if (nranks < 1)
    throw Error(ErrorCode::InvalidArgument,
                "partition: nranks = " + std::to_string(nranks) + " (must be >= 1)");
  if (rank < 0 || rank >= nranks)
    throw Error(ErrorCode::InvalidArgument, "partition: rank = " + std::to_string(rank) +
                                                " outside [0, " + std::to_string(nranks) + ")");
  if (total < 0)
    throw Error(ErrorCode::InvalidArgument,
                "partition: total = " + std::to_string(total) + " (must be >= 0)");
}
}  // namespace

std::int64_t share_count(std::int64_t total, int nranks, int rank) {
  require_valid(total, nranks, rank);
  return total / nranks + (rank < total % nranks ? 1 : 0);
}

std::int64_t share_offset(std::int64_t total, int nranks, int rank) {
  require_valid(total, nranks, rank);
  const std::int64_t base = total / nranks, extra = total % nranks;
  // Ranks below `extra` carry base + 1 items each.
  return rank * base + std::min<std::int64_t>(rank, extra);
}

std::vector<std::int64_t> share_counts(std::int64_t total, int nranks) {
  require_valid(total, nranks, 0);
  std::vector<std::int64_t> c(static_cast<std::size_t>(nranks));
  for (int r = 0; r < nranks; ++r) c[r] = share_count(total, nranks, r);
  return c;
}

std::vector<std::int64_t> displacements(const std::vector<std::int64_t>& counts) {
  std::vector<std::int64_t> d(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] < 0)
      throw Error(ErrorCode::InvalidArgument, "partition: count of rank " + std::to_string(r) +
                                                  " is " + std::to_string(counts[r]));
    d[r + 1] = d[r] + counts[r];
  }
  return d;
}

std::vector<Transfer> rebalance_plan(const std::vector<std::int64_t>& counts) {
  const int P = static_cast<int>(counts.size());
  const auto from_disp = displacements(counts);
  const std::int64_t total = from_disp.back();
  if (P == 0) return {};
  const auto to_disp = displacements(share_counts(total, P));
  // Walk both partitions of [0, total) together; every overlap of an old and a new interval
  // is one move.
  std::vector<Transfer> moves;
  int a = 0, b = 0;
  std::int64_t pos = 0;
  while (pos < total) {
    while (from_disp[a + 1] <= pos) ++a;
    while (to_disp[b + 1] <= pos) ++b;
    const std::int64_t end = std::min(from_disp[a + 1], to_disp[b + 1]);
    moves.push_back({a, b, pos - from_disp[a], pos - to_disp[b], end - pos});
    pos = end;
  }
  return moves;
}

std::vector<std::int64_t> mpi_chunks(std::int64_t n, std::int64_t max_piece) {
  if (n < 0 || max_piece < 1)
    throw Error(ErrorCode::InvalidArgument, "mpi_chunks: n = " + std::to_string(n) +
                                                ", max_piece = " + std::to_string(max_piece));
  std::vector<std::int64_t> pieces;
  for (std::int64_t done = 0; done < n; done += max_piece)
    pieces.push_back(std::min(max_piece, n - done));
  return pieces;
}

double imbalance(const std::vector<std::int64_t>& counts) {
  if (counts.empty()) return 1.0;
  std::int64_t total = 0, mx = 0;
  for (auto c : counts) total += c, mx = std::max(mx, c);
  if (total == 0) return 1.0;
  return static_cast<double>(mx) * static_cast<double>(counts.size()) /
         static_cast<double>(total);
}

}  // namespace nufftmp::dist::detail
