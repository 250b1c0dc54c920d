// What every matching path does before it matches (matching.cpp), shared with the GPU
// generation engine (gpu/generation_gpu.cpp): the argument checks and the pixel weights in use.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

// Local checks of the references, geometry and options (the same on every rank).
void check_match_args(const std::vector<Quaternion>& refs, const std::vector<double>& positions,
                      const MatchOptions& mopts);
// The pixel weights in use: the user's, times 1 / mean intensity with poisson_weights (the mean
// over every rank's images when comm is given: collective then). Empty: all ones.
std::vector<float> match_pixel_weights(const MPI_Comm* comm, const MatchOptions& mopts,
                                       const float* images, std::int64_t n_images,
                                       std::int64_t npix);

}  // namespace nufftmp::mtip::detail
