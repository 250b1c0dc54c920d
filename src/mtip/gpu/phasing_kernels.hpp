// The device passes of GPU phasing (phasing_gpu.cpp), behind launchers the host compiler can
// call; the same arithmetic as the host engine of phasing.cpp. Arrays are M^3 in FFT order;
// support is one byte per voxel (0 / 1). Ordered on `stream`, no synchronisation.
#pragma once

#include <cuComplex.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace nufftmp::mtip::detail {

// Keeps each phase, imposes the amplitude: g = g * amp / |g| (g = amp where |g| = 0). With
// sqdiff, also sqdiff[i] = (|g| - amp)^2 (the Fourier error's terms).
void launch_project_amplitudes(cuDoubleComplex* g, const double* amp, std::int64_t n,
                               double* sqdiff, cudaStream_t stream);
// proj = scale * Re(g). Error reduction: rho = proj inside the support where proj > 0, else 0.
// Hybrid input-output: ... else rho - beta proj.
void launch_er_update(const cuDoubleComplex* g, const unsigned char* support, std::int64_t n,
                      double scale, double* rho, cudaStream_t stream);
void launch_hio_update(const cuDoubleComplex* g, const unsigned char* support, std::int64_t n,
                       double scale, double beta, double* rho, cudaStream_t stream);
// g *= exp(-c |q|^2), q the signed frequency / M of each FFT index of the M^3 cube.
void launch_gaussian_filter(cuDoubleComplex* g, std::int64_t M, double c, cudaStream_t stream);
// support = blurred > threshold * max(*max_value, 0) (*max_value in device memory).
void launch_threshold(const double* blurred, std::int64_t n, const double* max_value,
                      double threshold, unsigned char* support, cudaStream_t stream);

}  // namespace nufftmp::mtip::detail
