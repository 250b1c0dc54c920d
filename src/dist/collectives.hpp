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
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/plan.hpp"
#include "scatter_gather.hpp"

namespace nufftmp::dist::detail {

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// max_piece: the largest count handed to one MPI call (INT_MAX; smaller values only in tests,
// to exercise the 64-bit chunking).
constexpr std::int64_t kMaxPiece = kMaxMpiCount;

// In-place sum over the ranks of n doubles (or 64-bit integers).
void allreduce_sum(MPI_Comm comm, double* v, std::int64_t n, std::int64_t max_piece = kMaxPiece);
void allreduce_sum(MPI_Comm comm, std::int64_t* v, std::int64_t n,
                   std::int64_t max_piece = kMaxPiece);
// In-place maximum over the ranks of n doubles (the slowest rank's times, the largest
// rank's memory).
void allreduce_max(MPI_Comm comm, double* v, std::int64_t n, std::int64_t max_piece = kMaxPiece);
// Every rank waits for every other (lines up the start of a timed section).
void barrier(MPI_Comm comm);
// True when `mine` is true on every rank.
bool all_true(MPI_Comm comm, bool mine);
// The lowest `value` of all ranks and the lowest rank holding it (MPI_MINLOC).
struct RankValue {
  double value = 0;
  int rank = 0;
};
RankValue min_with_rank(MPI_Comm comm, double value);
// Root's n doubles (or 64-bit integers) to every rank.
void bcast(MPI_Comm comm, double* v, std::int64_t n, int root,
           std::int64_t max_piece = kMaxPiece);
void bcast(MPI_Comm comm, std::int64_t* v, std::int64_t n, int root,
           std::int64_t max_piece = kMaxPiece);
// Root's vector, its size included, to every rank (the others' vectors are resized).
void bcast_vector(MPI_Comm comm, std::vector<double>& v, int root,
                  std::int64_t max_piece = kMaxPiece);

// Every rank's n_local values (float or double), in rank order, into `all` on every rank:
// the distributed layer's AllGather (all_gather.hpp) over MPI on host memory. `all` holds the
// sum of every rank's n_local; the caller allocates it (under a status agreement where that
// can fail on one rank).
template <typename V>
void allgather(MPI_Comm comm, const V* local, std::int64_t n_local, V* all,
               std::int64_t max_piece = kMaxPiece);

// Over the context's communicators, in `space` (see the header comment).
void allreduce_sum(const Context& ctx, double* v, std::int64_t n, MemorySpace space);
void allreduce_sum(const Context& ctx, float* v, std::int64_t n, MemorySpace space);
void bcast(const Context& ctx, double* v, std::int64_t n, int root, MemorySpace space);

}  // namespace nufftmp::dist::detail
