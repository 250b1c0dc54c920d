// Orientation matching on the GPU for matching.cpp's entry points (the work itself is
// GpuMatcher's, matcher_gpu.hpp): reference slices by a type 2 NUFFT on the device, the cross
// term of every (image, reference) pair as one cuBLAS GEMM per reference batch, and the
// per-image k best on the device. The same answers as the host path (to rounding: it
// multiplies in double where the host multiplies float chunks), with the same options (pixel
// and Poisson weights, fitted scale, top-k); every rank slices every reference (the host path
// splits them). Builds without CUDA link gpu_absent.cpp instead.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

// Whether matching runs on the GPU: the CUDA backend, or Auto with a visible device. With comm,
// collective: true only when it is true on every rank (the two paths' collectives differ).
bool match_on_gpu(const MPI_Comm* comm, const Options& opts);

// As match_impl of matching.cpp, with the pixel weights already resolved (empty: all ones) and
// k already clamped to refs.size(). With comm, collective only for the status agreement.
template <typename T>
TopMatches match_top_k_gpu(const MPI_Comm* comm, const std::vector<double>& model,
                           std::int64_t M, const std::vector<Quaternion>& refs,
                           const std::vector<double>& positions, double scale,
                           const float* images, std::int64_t n_images, std::int64_t k,
                           const std::vector<float>& weights, const MatchOptions& mopts,
                           const Options& opts, MatchReport* report);

}  // namespace nufftmp::mtip::detail
