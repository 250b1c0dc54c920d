// Between the FFT and the mode array: pick the modes out of the fine grid (in the user's
// modeord) and divide by the kernel's Fourier coefficients, in one pass (type 1), or the
// reverse, writing the zero-padded fine grid (type 2).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <optional>

#include "common/kernel_ft.hpp"
#include "common/plan_config.hpp"
#include "cpu/host_array.hpp"

namespace nufftmp::detail::cpu {

// Where an axis's modes sit. Of its N modes, N/2 are negative (k = -N/2 .. -1, fine cells
// nf - N/2 .. nf - 1) and N - N/2 are not (k = 0 .. N - N/2 - 1, fine cells 0 ..): two runs
// that are contiguous in the fine grid and in the output (modeord 0: negative run first;
// modeord 1: FFT order, the other run first).
struct AxisRuns {
  std::int64_t n_neg = 0, n_pos = 1;  // lengths of the runs
  std::int64_t out_neg = 0, out_pos = 0;  // output index of each run's first mode
  std::int64_t fine_neg = 0;              // fine cell of k = -n_neg
};
AxisRuns axis_runs(std::int64_t N, std::int64_t nf, int modeord);

template <typename T>
struct Deconvolver {
  int dim = 1;
  std::array<std::int64_t, 3> N{1, 1, 1}, nf{1, 1, 1};
  std::int64_t row = 1, pad = 0;  // grid layout: x-row stride and ghost cells (GridShape)
  int modeord = 0;
  AxisRuns xruns;  // the x-axis's two contiguous runs (y and z go row by row: axis_mode)
  // Per axis, 1 / phihat(|k|) for |k| = 0 .. N/2 (formed in double: phihat spans many decades
  // at the edge of the mode box; then cast). Half the length of a per-mode table, and no
  // per-mode index table: the runs are contiguous.
  std::array<HostArray<T>, 3> inv;
  // An x-axis of more than max_x_table factors (1D plans of millions of modes) has no table:
  // each execute evaluates its factors a slice at a time from this series (about 1 ns a mode,
  // under 1% of such an execute), where the table cost the plan its page faults, the series
  // and a division per mode (12 ms and 40 MB for 1e7 modes, most of the plan's time).
  std::optional<KernelFourierSeries> xseries;
  static constexpr std::int64_t kMaxXTable = std::int64_t(1) << 18;

  Deconvolver() = default;
  Deconvolver(const PlanConfig& cfg, std::int64_t row, std::int64_t pad, int nthreads,
              std::int64_t max_x_table = kMaxXTable);

  // f (nvec mode arrays) from the transformed fine grids.
  void grid_to_modes(const std::complex<T>* grid, std::complex<T>* f, int nvec,
                     int nthreads) const;
  // Fine grids (zeroed, ghosts included, then the deconvolved modes placed) from f.
  void modes_to_grid(const std::complex<T>* f, std::complex<T>* grid, int nvec,
                     int nthreads) const;
  std::size_t bytes() const {
    return inv[0].bytes() + inv[1].bytes() + inv[2].bytes() + (xseries ? xseries->bytes() : 0);
  }

 private:
  // to = from's modes times the factors: grid -> f (kToModes) or f -> grid.
  template <bool kToModes>
  void move_modes(const std::complex<T>* from, std::complex<T>* to, int nvec, int nthreads) const;
  // dst[i] = src[i] * fac / phihat(|k|) for i < n, |k| = k + i (or k - i when neg), from
  // xseries.
  void slice_from_series(const std::complex<T>* src, std::complex<T>* dst, std::int64_t k,
                         std::int64_t n, bool neg, T fac) const;
};

}  // namespace nufftmp::detail::cpu
