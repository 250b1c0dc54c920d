// The device kernels of orientation matching on the GPU (matcher_gpu.cpp) and of the slice
// points of merging (merger_gpu.cpp), behind launchers the host compiler can call. All are ordered on `stream` and return without synchronising.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace nufftmp::mtip::detail {

// Slice points of nb orientations, as slice_points() in geometry.cpp and to the same bits
// (no fused multiply-adds): x[o*npix + p] = T(scale * (R_o p)_x), etc. positions: [3, npix]
// doubles; rot: nb row-major 3x3 matrices.
template <typename T>
void launch_slice_points(const double* positions, const double* rot, std::int64_t nb,
                         std::int64_t npix, double scale, T* x, T* y, T* z, cudaStream_t stream);

// From the type 2 values (complex, interleaved re/im) of nb slices: the weighted real slices
// sw[r*npix + p] = w_p s_rp and their weighted norms norm[r] = sum_p w_p s_rp^2, in double.
// w: npix weights, or null for all ones.
template <typename T>
void launch_weighted_slices(const T* values, const float* w, std::int64_t nb, std::int64_t npix,
                            double* sw, double* norm, cudaStream_t stream);

// Widens n floats to doubles.
void launch_widen(const float* in, double* out, std::int64_t n, cudaStream_t stream);

// Empties the k-best lists of ni images: index -1, cost +inf (layout [j * ni + i]).
void launch_topk_reset(std::int64_t* index, double* cost, std::int64_t n, cudaStream_t stream);

// Merges one batch of nall references into each image's sorted k-best list. cross: ni x nall
// column-major (cross[r * ni + i] = b_i . (w s_r)); norm[r] = ||s_r||_w^2; the batch holds the
// references first .. first + nall - 1. The cost and the tie rule are those of the host path
// (matching.cpp): ||s||^2 - 2 b.s, or -(b.s)_+ / ||s|| with fit_scale; of equal costs the
// lower index first.
void launch_topk_update(const double* cross, std::int64_t ni, std::int64_t nall,
                        const double* norm, std::int64_t first, bool fit_scale, std::int64_t k,
                        std::int64_t* index, double* cost, cudaStream_t stream);

}  // namespace nufftmp::mtip::detail
