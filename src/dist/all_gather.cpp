#include "all_gather.hpp"

#include <cstring>

#include "device_runtime.hpp"
#include "mpi_check.hpp"

namespace nufftmp::dist::detail {

AllGather::AllGather(MPI_Comm comm, std::int64_t n_local) {
  int size = 1;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank_));
  NUFFTMP_MPI_CHECK(MPI_Comm_size(comm, &size));
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size));
  NUFFTMP_MPI_CHECK(
      MPI_Allgather(&n_local, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm));
  offsets_.assign(static_cast<std::size_t>(size) + 1, 0);
  for (int r = 0; r < size; ++r) offsets_[r + 1] = offsets_[r] + counts[r];
}

void AllGather::gather(Communicator& cm, const void* local, void* all, Scalar s,
                       int width) const {
  const std::size_t elem = scalar_bytes(s) * static_cast<std::size_t>(width);
  auto* out = static_cast<unsigned char*>(all);
  const std::int64_t mine = offsets_[rank_ + 1] - offsets_[rank_];
  if (mine > 0) {
    void* dst = out + static_cast<std::size_t>(offsets_[rank_]) * elem;
    const std::size_t bytes = static_cast<std::size_t>(mine) * elem;
    if (cm.memory_space() == MemorySpace::Host)
      std::memcpy(dst, local, bytes);
    else
      copy_bytes(dst, local, bytes);
  }
  // Every rank knows every count, so all skip the same empty shares.
  for (std::size_t r = 0; r + 1 < offsets_.size(); ++r) {
    const std::int64_t n = offsets_[r + 1] - offsets_[r];
    if (n > 0)
      cm.bcast(out + static_cast<std::size_t>(offsets_[r]) * elem, n * width, s,
               static_cast<int>(r));
  }
}

}  // namespace nufftmp::dist::detail
