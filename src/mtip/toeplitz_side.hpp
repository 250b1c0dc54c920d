// The side L of the periodic lattice that holds the lags -(M-1) .. M-1 of an M^3 cube without
// wrap-around: the merge's circulant embedding of its Toeplitz kernel (merging.cpp, the GPU
// merger) and the autocorrelation's zero padding (volume_ops.cpp). Any L >= 2M - 1 does (2M
// is the textbook choice); the smallest FFT-friendly one is taken: at M = 41, 81 instead of
// 82 = 2 x 41 (the CG's FFTs ~4x faster, measured in FFTW).
#pragma once

#include <cstdint>

#include "common/grid.hpp"

namespace nufftmp::mtip::detail {

inline std::int64_t toeplitz_side(std::int64_t M) {
  return nufftmp::detail::next_fft_friendly(2 * M - 1);
}

}  // namespace nufftmp::mtip::detail
