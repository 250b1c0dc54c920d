#include "cpu/deconvolve.hpp"

#include <algorithm>

#include "common/grid.hpp"
#include "common/kernel_ft.hpp"
#include "cpu/threads.hpp"

namespace nufftmp::detail::cpu {

namespace {

// Pieces each x-row is cut into, so that 1D (one row) and thin 2D/3D mode boxes still give
// every thread work.
std::int64_t x_parts(std::int64_t row_tasks, std::int64_t n0, int nthreads) {
  constexpr std::int64_t kMinPart = 8192;
  if (row_tasks >= 4 * nthreads) return 1;
  return std::max<std::int64_t>(1, std::min<std::int64_t>(4 * nthreads, n0 / kMinPart));
}

// The fine-grid index and |k| of output index i along an axis.
struct AxisMode {
  std::int64_t fine, abs_k;
};
inline AxisMode axis_mode(std::int64_t i, std::int64_t N, std::int64_t nf, int modeord) {
  const std::int64_t k = mode_of_output_index(i, N, modeord);
  return {fine_index_of_mode(k, nf), k < 0 ? -k : k};
}

// Walks the x-part `part` of `parts` of one row: fn(out index, fine index, |k|, count) for
// each run's slice, the indices advancing together (|k| downwards in the negative run).
template <typename Fn>
inline void for_x_slices(const AxisRuns& r, std::int64_t part, std::int64_t parts, Fn&& fn) {
  const std::int64_t p0 = r.n_pos * part / parts, p1 = r.n_pos * (part + 1) / parts;
  fn(r.out_pos + p0, p0, p0, p1 - p0, false);
  const std::int64_t q0 = r.n_neg * part / parts, q1 = r.n_neg * (part + 1) / parts;
  fn(r.out_neg + q0, r.fine_neg + q0, r.n_neg - q0, q1 - q0, true);
}

}  // namespace

AxisRuns axis_runs(std::int64_t N, std::int64_t nf, int modeord) {
  AxisRuns r;
  r.n_neg = N / 2;
  r.n_pos = N - N / 2;
  r.out_neg = modeord == 0 ? 0 : r.n_pos;
  r.out_pos = modeord == 0 ? r.n_neg : 0;
  r.fine_neg = nf - r.n_neg;
  return r;
}

template <typename T>
Deconvolver<T>::Deconvolver(const PlanConfig& cfg, std::int64_t row_, std::int64_t pad_,
                            int nthreads, std::int64_t max_x_table)
    : dim(cfg.dim), N(cfg.N), nf(cfg.nf), row(row_), pad(pad_), modeord(cfg.opts.modeord) {
  const KernelFtQuadrature quad = kernel_ft_quadrature(cfg.kernel);
  xruns = axis_runs(N[0], nf[0], modeord);
  for (int d = 0; d < 3; ++d) {
    const std::int64_t nk = N[d] / 2 + 1;
    inv[d].ensure(d == 0 && nk > max_x_table ? 1 : nk, "deconvolution factors");
    T* out = inv[d].data();
    if (d >= dim) {
      out[0] = T(1);
      continue;
    }
    if (d == 0 && nk > max_x_table) {
      out[0] = T(1);  // unused: move_modes evaluates xseries
      xseries.emplace(quad, nf[0], nk);
      continue;
    }
    const KernelFourierSeries series(quad, nf[d], nk);
    constexpr std::int64_t kChunk = 2048;
    const std::int64_t nchunks = (nk + kChunk - 1) / kChunk;
#pragma omp parallel for num_threads(threads_for(20.0 * nk, nthreads)) schedule(static)
    for (std::int64_t c = 0; c < nchunks; ++c) {
      double phihat[kChunk];
      const std::int64_t k0 = c * kChunk, k1 = std::min(nk, k0 + kChunk);
      series.evaluate(k0, k1, phihat);
      for (std::int64_t k = k0; k < k1; ++k) out[k] = static_cast<T>(1.0 / phihat[k - k0]);
    }
  }
}

template <typename T>
template <bool kToModes>
void Deconvolver<T>::move_modes(const std::complex<T>* from, std::complex<T>* to, int nvec,
                                int nthreads) const {
  const std::int64_t nmodes = N[0] * N[1] * N[2], ncells = row * nf[1] * nf[2];
  const std::int64_t rows = N[1] * N[2];
  const std::int64_t parts = x_parts(rows * nvec, N[0], nthreads);
  const std::int64_t tasks = nvec * rows * parts;
  const T* ix = inv[0].data();
#pragma omp parallel for num_threads(threads_for(static_cast<double>(nmodes) * nvec, nthreads)) \
    schedule(static)
  for (std::int64_t task = 0; task < tasks; ++task) {
    const std::int64_t part = task % parts, r = (task / parts) % rows, v = task / (parts * rows);
    const AxisMode m1 = axis_mode(r % N[1], N[1], nf[1], modeord);
    const AxisMode m2 = axis_mode(r / N[1], N[2], nf[2], modeord);
    const T fac = inv[1][m1.abs_k] * inv[2][m2.abs_k];
    const std::int64_t grid_row = v * ncells + (m2.fine * nf[1] + m1.fine) * row + pad;
    const std::int64_t f_row = v * nmodes + r * N[0];
    const std::complex<T>* src = from + (kToModes ? grid_row : f_row);
    std::complex<T>* dst = to + (kToModes ? f_row : grid_row);
    // o: the slice's first index in f, g: in the grid row, k: its first |k|.
    for_x_slices(xruns, part, parts,
                 [&](std::int64_t o, std::int64_t g, std::int64_t k, std::int64_t n, bool neg) {
                   const std::int64_t s0 = kToModes ? g : o, d0 = kToModes ? o : g;
                   if (xseries) {
                     slice_from_series(src + s0, dst + d0, k, n, neg, fac);
                   } else if (neg) {
                     for (std::int64_t i = 0; i < n; ++i) dst[d0 + i] = src[s0 + i] * (fac * ix[k - i]);
                   } else {
                     for (std::int64_t i = 0; i < n; ++i) dst[d0 + i] = src[s0 + i] * (fac * ix[k + i]);
                   }
                 });
  }
}

template <typename T>
void Deconvolver<T>::slice_from_series(const std::complex<T>* src, std::complex<T>* dst,
                                       std::int64_t k, std::int64_t n, bool neg, T fac) const {
  // Chunks of ascending |k| (the series' order), each factor formed as the table's would be.
  constexpr std::int64_t kChunk = 1024;
  double phihat[kChunk];
  for (std::int64_t i0 = 0; i0 < n; i0 += kChunk) {
    const std::int64_t i1 = std::min(n, i0 + kChunk);
    if (neg) {  // |k| = k - i for i0 <= i < i1: k - i1 + 1 .. k - i0
      xseries->evaluate(k - i1 + 1, k - i0 + 1, phihat);
      for (std::int64_t i = i0; i < i1; ++i)
        dst[i] = src[i] * (fac * static_cast<T>(1.0 / phihat[i1 - 1 - i]));
    } else {  // |k| = k + i
      xseries->evaluate(k + i0, k + i1, phihat);
      for (std::int64_t i = i0; i < i1; ++i)
        dst[i] = src[i] * (fac * static_cast<T>(1.0 / phihat[i - i0]));
    }
  }
}

template <typename T>
void Deconvolver<T>::grid_to_modes(const std::complex<T>* grid, std::complex<T>* f, int nvec,
                                   int nthreads) const {
  move_modes<true>(grid, f, nvec, nthreads);
}

template <typename T>
void Deconvolver<T>::modes_to_grid(const std::complex<T>* f, std::complex<T>* grid, int nvec,
                                   int nthreads) const {
  T* g = reinterpret_cast<T*>(grid);
  const std::int64_t nreal = 2 * row * nf[1] * nf[2] * nvec;
#pragma omp parallel for num_threads(threads_for(static_cast<double>(nreal), nthreads)) \
    schedule(static)
  for (std::int64_t i = 0; i < nreal; ++i) g[i] = T(0);
  move_modes<false>(f, grid, nvec, nthreads);
}

template struct Deconvolver<float>;
template struct Deconvolver<double>;

}  // namespace nufftmp::detail::cpu
