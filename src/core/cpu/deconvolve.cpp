#include "cpu/deconvolve.hpp"

#include <cmath>

#include "common/grid.hpp"
#include "common/kernel_ft.hpp"
#include "cpu/threads.hpp"

namespace nufftmp::detail::cpu {

template <typename T>
Deconvolver<T>::Deconvolver(const PlanConfig& cfg, std::int64_t row_, std::int64_t pad_)
    : dim(cfg.dim), N(cfg.N), nf(cfg.nf), row(row_), pad(pad_) {
  for (int d = 0; d < 3; ++d) {
    const std::vector<double> phihat =
        d < dim ? kernel_fourier_series(N[d], nf[d], cfg.kernel) : std::vector<double>{1.0};
    fine[d].resize(static_cast<size_t>(N[d]));
    inv[d].resize(static_cast<size_t>(N[d]));
    for (std::int64_t i = 0; i < N[d]; ++i) {
      const std::int64_t k = d < dim ? mode_of_output_index(i, N[d], cfg.opts.modeord) : 0;
      fine[d][i] = d < dim ? fine_index_of_mode(k, nf[d]) : 0;
      // Factors formed in double: phihat spans many decades at the edge of the mode box.
      inv[d][i] = static_cast<T>(1.0 / phihat[static_cast<size_t>(std::llabs(k))]);
    }
  }
}

template <typename T>
void Deconvolver<T>::grid_to_modes(const std::complex<T>* grid, std::complex<T>* f, int nvec,
                                   int nthreads) const {
  const std::int64_t nmodes = N[0] * N[1] * N[2], ncells = row * nf[1] * nf[2];
  const std::int64_t rows = N[1] * N[2];
  nthreads = threads_for(static_cast<double>(nmodes) * nvec, nthreads);
#pragma omp parallel for num_threads(nthreads) schedule(static) collapse(2)
  for (int v = 0; v < nvec; ++v)
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i2 = r % N[1], i3 = r / N[1];
      const T fac = inv[1][i2] * inv[2][i3];
      const std::complex<T>* src =
          grid + v * ncells + (fine[2][i3] * nf[1] + fine[1][i2]) * row + pad;
      std::complex<T>* dst = f + v * nmodes + r * N[0];
      const std::int64_t* fx = fine[0].data();
      const T* ix = inv[0].data();
      for (std::int64_t i = 0; i < N[0]; ++i) dst[i] = src[fx[i]] * (fac * ix[i]);
    }
}

template <typename T>
void Deconvolver<T>::modes_to_grid(const std::complex<T>* f, std::complex<T>* grid, int nvec,
                                   int nthreads) const {
  const std::int64_t nmodes = N[0] * N[1] * N[2], ncells = row * nf[1] * nf[2];
  const std::int64_t rows = N[1] * N[2];
  T* g = reinterpret_cast<T*>(grid);
  const std::int64_t nreal = 2 * ncells * nvec;
  nthreads = threads_for(static_cast<double>(nreal), nthreads);
#pragma omp parallel num_threads(nthreads)
  {
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < nreal; ++i) g[i] = T(0);
#pragma omp for schedule(static) collapse(2)
    for (int v = 0; v < nvec; ++v)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t i2 = r % N[1], i3 = r / N[1];
        const T fac = inv[1][i2] * inv[2][i3];
        std::complex<T>* dst = grid + v * ncells + (fine[2][i3] * nf[1] + fine[1][i2]) * row + pad;
        const std::complex<T>* src = f + v * nmodes + r * N[0];
        const std::int64_t* fx = fine[0].data();
        const T* ix = inv[0].data();
        for (std::int64_t i = 0; i < N[0]; ++i) dst[fx[i]] = src[i] * (fac * ix[i]);
      }
  }
}

template struct Deconvolver<float>;
template struct Deconvolver<double>;

}  // namespace nufftmp::detail::cpu
