// The device passes of merging on the GPU (toeplitz_gpu.cpp, merger_gpu.cpp), behind
// launchers the host compiler can call; the same arithmetic as the host path of merging.cpp.
// Complex arrays of the NUFFTs' precision T are interleaved (re at even offsets); the
// convolution and CG run in cuDoubleComplex. Ordered on `stream`, no synchronisation.
#pragma once

#include <cuComplex.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace nufftmp::mtip::detail {

// The Toeplitz convolution on the L^3 circulant embedding (L = toeplitz_side(M), FFT order;
// the grid is zeroed by the caller): grid[embed(c)] = in[c] for the M^3 centred indices c, and
// back with out[c] = grid[embed(c)] + lambda in[c].
void launch_toeplitz_embed(const cuDoubleComplex* in, std::int64_t M, std::int64_t L,
                           cuDoubleComplex* grid, cudaStream_t stream);
void launch_toeplitz_extract(const cuDoubleComplex* grid, const cuDoubleComplex* in,
                             double lambda, std::int64_t M, std::int64_t L, cuDoubleComplex* out,
                             cudaStream_t stream);
// a[i] *= b[i]; v[i] *= s; g[i] *= s[i] (s real).
void launch_multiply(cuDoubleComplex* a, const cuDoubleComplex* b, std::int64_t n,
                     cudaStream_t stream);
void launch_scale(cuDoubleComplex* v, double s, std::int64_t n, cudaStream_t stream);
void launch_scale_by(cuDoubleComplex* g, const double* s, std::int64_t n, cudaStream_t stream);

// T. Chan's optimal circulant of the Toeplitz kernel (chan_circulant.hpp): c (M^3, FFT order
// of the M lattice) from Re(t) on the L^3 lattice (FFT order, L = toeplitz_side(M)).
void launch_chan_circulant(const cuDoubleComplex* t, std::int64_t M, std::int64_t L,
                           cuDoubleComplex* c, cudaStream_t stream);
// Centred order <-> FFT order on the M^3 lattice (the preconditioner's periodic embedding).
void launch_centred_to_fft(const cuDoubleComplex* in, std::int64_t M, cuDoubleComplex* out,
                           cudaStream_t stream);
void launch_fft_to_centred(const cuDoubleComplex* in, std::int64_t M, cuDoubleComplex* out,
                           cudaStream_t stream);

// The type 1 strengths of n points: c_j = (w_j d_j, 0) in T, w = null meaning ones and
// d = null meaning ones (the Toeplitz kernel's strengths are the weights alone).
template <typename T, typename D>
void launch_strengths(const T* w, const D* d, std::int64_t n, T* c, cudaStream_t stream);
// out[i] = (Re f_i, 0) in double, f interleaved complex of T.
template <typename T>
void launch_real_of(const T* f, std::int64_t n, cuDoubleComplex* out, cudaStream_t stream);
// w[o * npix + p] = T(slice_weight[o] * pixel_weight[p]), either null meaning ones.
template <typename T>
void launch_slice_weights(const double* slice_weight, const double* pixel_weight,
                          std::int64_t n_orient, std::int64_t npix, T* w, cudaStream_t stream);

}  // namespace nufftmp::mtip::detail
