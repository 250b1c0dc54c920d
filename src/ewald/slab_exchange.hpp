// Moving ions to their slabs and the results back (collective over the context's ranks).
// The ions of every rank go to the rank owning their slab (slab_layout.hpp), and to every
// rank that needs them as a halo, in one exchange; the owner computes their potentials and
// forces, and return_values sends those back to the ranks and the order the ions came from.
// On one rank nothing moves but a copy. Host memory; the MPI exchange is dist's
// (src/dist/exchange.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "nufftmp/dist.hpp"
#include "real_space_pairs.hpp"
#include "slab_layout.hpp"

namespace nufftmp::ewald::detail {

class SlabExchange {
 public:
  // Collective. mine: this rank's ions, wrapped into the box (on one rank they become
  // ions() as they are). Every local step that
  // may fail (allocations) is agreed among the ranks before the next collective.
  SlabExchange(const dist::Context& ctx, const SlabLayout& layout, std::vector<Ion>&& mine);

  // The owned ions first (n_owned()), then the halo.
  const std::vector<Ion>& ions() const { return ions_; }
  std::int64_t n_owned() const { return n_owned_; }
  // Where ion i (owned or halo) came from: its rank and its index there.
  int origin_rank(std::int64_t i) const { return origin_rank_[i]; }
  std::int64_t origin_index(std::int64_t i) const { return origin_index_[i]; }

  // Collective: values[v][i] for every owned ion i -> out[v][j] for this rank's ion j as
  // given to the constructor. values and out have the same number of arrays on every rank.
  void return_values(const std::vector<const double*>& values,
                     const std::vector<double*>& out) const;

 private:
  void unpack(const char* data, const std::vector<std::int64_t>& recv_bytes);
  MPI_Comm comm_ = MPI_COMM_NULL;
  int size_ = 1;
  std::int64_t n_local_ = 0, n_owned_ = 0;
  std::vector<int> owner_of_;                // per ion given: the rank owning it
  std::vector<std::int64_t> owned_from_;     // per rank: owned ions received from it
  std::vector<Ion> ions_;
  std::vector<int> origin_rank_;
  std::vector<std::int64_t> origin_index_;
};

}  // namespace nufftmp::ewald::detail
