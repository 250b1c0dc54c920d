// Warnings about suspicious input values (see input_warnings.hpp).
#include "input_warnings.hpp"

#include <cstdio>
#include <limits>

#include "dist/collectives.hpp"

namespace nufftmp::mtip::detail {

std::int64_t warn_negative_intensities(MPI_Comm comm, const std::string& path,
                                       const LocalImages& local, std::int64_t npix) {
  std::int64_t count = 0;
  double lowest = std::numeric_limits<double>::infinity();
  std::int64_t where = -1;  // global flat index of this rank's lowest value
  for (std::size_t i = 0; i < local.intensities.size(); ++i) {
    const double v = local.intensities[i];
    if (v < 0) {
      ++count;
      if (v < lowest) lowest = v, where = local.share.first * npix + std::int64_t(i);
    }
  }
  const int rank = dist::detail::comm_rank(comm);
  dist::detail::allreduce_sum(comm, &count, 1);
  const dist::detail::RankValue global = dist::detail::min_with_rank(comm, lowest);
  dist::detail::bcast(comm, &where, 1, global.rank);
  if (count > 0 && rank == 0)
    std::fprintf(stderr,
                 "nufftmp warning: '%s': %lld intensities are negative (lowest %g, image %lld, "
                 "pixel %lld); they are used as they are (photon counts cannot be negative: "
                 "check the background subtraction)\n",
                 path.c_str(), static_cast<long long>(count), global.value,
                 static_cast<long long>(where / npix), static_cast<long long>(where % npix));
  return count;
}

}  // namespace nufftmp::mtip::detail
