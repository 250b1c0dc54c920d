// The scores' one NUFFT (volume_ops.cpp, truth_volume.cpp): the Fourier series
// sum_n f_n e^{isign i n.x} of a centred M^3 array (x fastest) at points x, y, z (radians per
// lattice step), by a type 2 on the CPU at 1e-6 (the scores are rank 0's host work on any
// engine).
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace nufftmp::mtip::detail {

// f is the plan's input (M^3 values); the result has one value per point.
std::vector<std::complex<double>> lattice_series(std::int64_t M, int isign,
                                                 std::vector<std::complex<double>>& f,
                                                 const std::vector<double>& x,
                                                 const std::vector<double>& y,
                                                 const std::vector<double>& z);

}  // namespace nufftmp::mtip::detail
