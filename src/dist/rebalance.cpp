// Rebalancer: the moves of rebalance_plan over MPI point-to-point (see rebalance.hpp).
#include "rebalance.hpp"

#include <cstring>

#include "mpi_check.hpp"
#include "mpi_pieces.hpp"

namespace nufftmp::dist::detail {

namespace {
constexpr int kTag = 7302;
}

Rebalancer::Rebalancer(MPI_Comm comm, std::int64_t mine) : comm_(comm), before_(mine) {
  int size = 1;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  NUFFTMP_MPI_CHECK(MPI_Comm_size(comm_, &size));
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size));
  NUFFTMP_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm_));
  std::int64_t total = 0;
  for (auto c : counts) total += c;
  after_ = share_count(total, size, rank_);
  for (const auto& t : rebalance_plan(counts))
    if (t.from == rank_ || t.to == rank_) moves_.push_back(t);
}

void Rebalancer::forward(const void* src, void* dst, std::size_t elem_bytes) const {
  move(src, dst, elem_bytes, false);
}
void Rebalancer::backward(const void* src, void* dst, std::size_t elem_bytes) const {
  move(src, dst, elem_bytes, true);
}

void Rebalancer::move(const void* src, void* dst, std::size_t elem_bytes, bool inverse) const {
  const auto eb = static_cast<std::int64_t>(elem_bytes);
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  std::vector<MPI_Request> reqs;
  for (const auto& t : moves_) {
    // Backward runs every move the other way round.
    const int from = inverse ? t.to : t.from, to = inverse ? t.from : t.to;
    const std::int64_t from_off = (inverse ? t.to_offset : t.from_offset) * eb;
    const std::int64_t to_off = (inverse ? t.from_offset : t.to_offset) * eb;
    const std::int64_t bytes = t.count * eb;
    if (from == rank_ && to == rank_) {
      std::memmove(d + to_off, s + from_off, static_cast<std::size_t>(bytes));
      continue;
    }
    if (from == rank_)
      isend_bytes(comm_, s + from_off, bytes, to, kTag, kMaxMpiCount, reqs);
    else
      irecv_bytes(comm_, d + to_off, bytes, from, kTag, kMaxMpiCount, reqs);
  }
  wait_all(reqs);
}

}  // namespace nufftmp::dist::detail
