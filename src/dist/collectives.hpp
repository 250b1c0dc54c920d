// Collectives on plain arrays for the layers above the distributed plan (the M-TIP loop), so
// that every MPI and NCCL call of the project lives in src/dist. Internal API (the target
// nufftmp_dist_internal; not installed): src/mtip includes it as "dist/collectives.hpp".
//
// The MPI_Comm forms work on host memory over any communicator (every return code checked,
// counts 64-bit and chunked into MPI's int counts). The Context forms take a MemorySpace: on
// Device the buffer is a device pointer of the context's GPU and the operation runs through
// the context's device communicator (NCCL, or MPI on device buffers), ordered after the work
// already enqueued on the context's stream; on Host, MPI. All are collective and blocking.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::dist::detail {

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// max_piece: the largest count handed to one MPI call (INT_MAX; smaller values only in tests,
// to exercise the 64-bit chunking).
constexpr std::int64_t kMaxPiece = 2147483647;

// In-place sum over the ranks of n doubles.
void allreduce_sum(MPI_Comm comm, double* v, std::int64_t n, std::int64_t max_piece = kMaxPiece);
// True when `mine` is true on every rank.
bool all_true(MPI_Comm comm, bool mine);
// The lowest `value` of all ranks and the lowest rank holding it (MPI_MINLOC).
struct RankValue {
  double value = 0;
  int rank = 0;
};
RankValue min_with_rank(MPI_Comm comm, double value);
// Root's n doubles to every rank.
void bcast(MPI_Comm comm, double* v, std::int64_t n, int root,
           std::int64_t max_piece = kMaxPiece);
// Root's vector, its size included, to every rank (the others' vectors are resized).
void bcast_vector(MPI_Comm comm, std::vector<double>& v, int root,
                  std::int64_t max_piece = kMaxPiece);

// Every rank's bytes[r] bytes, in rank order, into `out` on every rank (bytes known on every
// rank; out holds their sum). One MPI_Allgatherv when the total fits max_piece, else each
// rank's part broadcast from it in pieces.
void allgather_bytes(MPI_Comm comm, const void* local, const std::vector<std::int64_t>& bytes,
                     void* out, std::int64_t max_piece = kMaxPiece);
// Every rank's n_local values of a trivially copyable V, in rank order, on every rank.
// counts (when given) receives each rank's n_local.
template <typename V>
std::vector<V> allgather(MPI_Comm comm, const V* local, std::int64_t n_local,
                         std::vector<std::int64_t>* counts = nullptr);

// Over the context's communicators, in `space` (see the header comment).
void allreduce_sum(const Context& ctx, double* v, std::int64_t n, MemorySpace space);
void allreduce_sum(const Context& ctx, float* v, std::int64_t n, MemorySpace space);
void bcast(const Context& ctx, double* v, std::int64_t n, int root, MemorySpace space);

// ------------------------------------------------------------------------------ inline part
std::vector<std::int64_t> allgather_counts(MPI_Comm comm, std::int64_t n_local);

template <typename V>
std::vector<V> allgather(MPI_Comm comm, const V* local, std::int64_t n_local,
                         std::vector<std::int64_t>* counts) {
  std::vector<std::int64_t> n = allgather_counts(comm, n_local);
  std::vector<std::int64_t> bytes(n.size());
  std::int64_t total = 0;
  for (std::size_t r = 0; r < n.size(); ++r) {
    bytes[r] = n[r] * static_cast<std::int64_t>(sizeof(V));
    total += n[r];
  }
  std::vector<V> all(static_cast<std::size_t>(total));
  allgather_bytes(comm, local, bytes, all.data());
  if (counts) *counts = std::move(n);
  return all;
}

}  // namespace nufftmp::dist::detail
