// cuFFT's advanced layout of one transform (cufft_plan.hpp, cufft_handle_pool.hpp).
#pragma once

namespace nufftmp::detail {

// cuFFT's advanced layout, slowest axis first (n[0]): element (b, i) of a batch at
// b * dist + (linear index of i in n) * stride; in place. FineGridFft (fine_grid_fft.hpp) makes
// the pruned transforms of the fine grid from it.
struct CufftLayout {
  int rank = 1;
  long long n[3] = {1, 1, 1};
  long long stride = 1, dist = 1;
  long long batch = 1;
};

}  // namespace nufftmp::detail
