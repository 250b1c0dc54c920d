// The mode-array step (mode_array.hpp) on the host.
#pragma once

#include <complex>

#include "mode_array.hpp"

namespace nufftmp::ewald::detail {

// S: m.count() modes; f: type2_vectors(forces) blocks of m.count() (S may be f). Returns sum_k g |S|^2, summed
// in a fixed order (per z plane, then over the planes), so that every rank gets the same bits
// whatever its thread count.
double apply_green_host(const ModeGrid& m, const std::complex<double>* S,
                        std::complex<double>* f, bool forces);

}  // namespace nufftmp::ewald::detail
