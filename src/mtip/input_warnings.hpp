// Warnings about input values that are legal but suspicious. NaN and Inf are errors already
// (read_local_images); negative intensities are not: background-subtracted data have them, but
// photon counts cannot be negative, so a run on them says so once (rank 0, on stderr) with how
// many there are and the lowest, instead of going on silently.
#pragma once

#include <mpi.h>

#include <string>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

// Collective. Returns the number of negative intensities over all ranks.
std::int64_t warn_negative_intensities(MPI_Comm comm, const std::string& path,
                                       const LocalImages& local, std::int64_t npix);

}  // namespace nufftmp::mtip::detail
