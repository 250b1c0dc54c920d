// The NUFFT tolerance of M-TIP's slices and merges when the options leave it at 0: a little
// above each precision's floor.
#pragma once

namespace nufftmp::mtip::detail {

inline double nufft_tolerance(double requested, bool is_float) {
  return requested > 0 ? requested : (is_float ? 1e-5 : 1e-9);
}

}  // namespace nufftmp::mtip::detail
