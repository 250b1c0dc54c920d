// Moving items between ranks so that every rank holds a near-equal share (the optional type 1
// / type 2 rebalance of DistPlan). The moves come from partition.hpp's rebalance_plan; here
// they are carried out with point-to-point MPI on host memory, in pieces that fit int counts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "partition.hpp"

namespace nufftmp::dist::detail {

class Rebalancer {
 public:
  Rebalancer() = default;
  // Collective: gathers every rank's count (this rank has `mine` items).
  Rebalancer(MPI_Comm comm, std::int64_t mine);
  std::int64_t count_before() const { return before_; }  // this rank's items as given
  std::int64_t count_after() const { return after_; }    // this rank's balanced share
  // Collective. src: count_before() items of elem_bytes bytes; dst: room for count_after().
  void forward(const void* src, void* dst, std::size_t elem_bytes) const;
  // Collective: the inverse (balanced layout back to the given one).
  void backward(const void* src, void* dst, std::size_t elem_bytes) const;

 private:
  void move(const void* src, void* dst, std::size_t elem_bytes, bool inverse) const;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  std::int64_t before_ = 0, after_ = 0;
  std::vector<Transfer> moves_;
};

}  // namespace nufftmp::dist::detail
