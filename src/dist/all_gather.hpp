// Every rank's share of an array, on every rank: rank r's n_r elements land at its offset
// (rank order), by one broadcast per rank with data through the communicator (host or device
// buffers, NCCL or MPI). For the type 3 plan with scattered targets, which needs all sources
// on every rank: their coordinates at set_points, their strengths at every execute.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "communicator.hpp"

namespace nufftmp::dist::detail {

class AllGather {
 public:
  // Collective: learns every rank's count (64-bit).
  AllGather(MPI_Comm comm, std::int64_t n_local);

  std::int64_t total() const { return offsets_.back(); }

  // all[offset_r + i] = rank r's local[i], i < n_r, for elements of `width` scalars of type s
  // (1: a coordinate; 2: a complex value). local and all in cm's memory space; all holds
  // total() elements. Collective.
  void gather(Communicator& cm, const void* local, void* all, Scalar s, int width) const;

 private:
  int rank_ = 0;
  std::vector<std::int64_t> offsets_;  // size + 1 entries
};

}  // namespace nufftmp::dist::detail
