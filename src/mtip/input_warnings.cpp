// Warnings about suspicious input values (see input_warnings.hpp).
#include "input_warnings.hpp"

#include <cstdio>
#include <limits>

namespace nufftmp::mtip::detail {

std::int64_t warn_negative_intensities(MPI_Comm comm, const std::string& path,
                                       const LocalImages& local, std::int64_t npix) {
  std::int64_t count = 0;
  struct {
    double value;
    int rank;
  } lowest{std::numeric_limits<double>::infinity(), 0}, global{0, 0};
  std::int64_t where = -1;  // global flat index of this rank's lowest value
  for (std::size_t i = 0; i < local.intensities.size(); ++i) {
    const double v = local.intensities[i];
    if (v < 0) {
      ++count;
      if (v < lowest.value) lowest.value = v, where = local.share.first * npix + std::int64_t(i);
    }
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  lowest.rank = rank;
  if (MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
      MPI_Allreduce(&lowest, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm) != MPI_SUCCESS ||
      MPI_Bcast(&where, 1, MPI_INT64_T, global.rank, comm) != MPI_SUCCESS)
    throw Error(ErrorCode::MpiFailure, "MPI reduction of the negative intensities failed");
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
