// The 1D fine-grid size a CUDA plan transforms fastest. cuFFT's time per cell of a 1D
// transform moves by up to 40% between neighbouring 5-smooth sizes (H200, CUDA 13.0: 2e7 =
// 2^8 5^7 takes 0.41 ms in float, 2.048e7 = 2^15 5^4 0.31 ms), and no rule over the exponents
// fits the measured times well, so the choice reads a table of them (cufft_1d_costs.inc,
// every even 5-smooth size in [1e6, 4.5e7], made by scripts/cufft_size_table.py from a
// scripts/cuda_probe.cu run). Pure C++: the plan's configuration calls it for CUDA plans.
#pragma once

#include <cstdint>

namespace nufftmp::detail {

// The size within kCufftSizeSlack above n (n: an even 5-smooth size, the smallest grid the
// plan may use) whose measured cuFFT time is least, for single (C2C) or double (Z2Z)
// precision; n itself outside the table, or where no larger size is at least kCufftSizeGain
// faster (the larger grid costs memory and padding for nothing within the noise).
std::int64_t cufft_1d_size(std::int64_t n, bool single);
constexpr double kCufftSizeSlack = 1.10;
constexpr double kCufftSizeGain = 0.03;

}  // namespace nufftmp::detail
