// The schedule of phase() (HIO/ER cycles with a narrowing shrink-wrap, independent starts),
// written once for the host engine (phasing.cpp, FFTW) and the device engine
// (gpu/phasing_gpu.hpp, cuFFT). An engine works in FFT order on the M^3 lattice:
//   Engine(M, amplitudes)                       |F| to impose (FFT order)
//   void   set(rho, support)                    the iterate and its support
//   double er(int steps)                        steps >= 1 error-reduction steps; returns the
//                                               Fourier error || |F| - A || / ||A|| of the last
//   void   hio(int steps, double beta)          hybrid input-output steps
//   void   shrink_wrap(double sigma, double t)  support = blurred rho above t * its maximum
//   void   keep() / void restore()              a copy of (rho, support), and its return
//   void   get(rho, support)
// Everything else (amplitudes, first support, random start) is computed here on the host, so
// both engines start from the same arrays and differ only by their FFTs' rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "fft3d.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

// out[fft index] = in[centred index] (to_fft), or back.
inline void reorder_cube(const std::vector<double>& in, std::vector<double>& out, std::int64_t M,
                         bool to_fft) {
  out.resize(in.size());
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const std::int64_t c = (k * M + j) * M + i;
        const std::int64_t f =
            (centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M);
        if (to_fft)
          out[f] = in[c];
        else
          out[c] = in[f];
      }
}

// One run of the schedule on `ph` (amplitudes loaded), from rho / support (FFT order): a
// fresh start, or a continuation (a previous density, its support shrink-wrapped first).
template <typename Engine>
PhaseResult run_schedule(Engine& ph, std::int64_t M, const PhaseOptions& po,
                         const std::vector<double>& rho0, const std::vector<char>& support0,
                         bool continuation) {
  const std::int64_t n = M * M * M;
  ph.set(rho0, support0);
  if (continuation) ph.shrink_wrap(po.shrink_sigma_end, po.shrink_threshold);
  PhaseResult res;
  double err = 0;
  // HIO wanders: a continuation (later generation) keeps its start when the new run ends
  // worse. Both have tight supports (shrink-wrap at the final blur), so their Fourier errors
  // compare fairly; iterates with looser supports would not (they fit more freely).
  double start_err = std::numeric_limits<double>::infinity();
  const int final_er = std::max(po.er_iter, 1);
  if (continuation) {
    start_err = ph.er(final_er);
    res.iterations += final_er;
    ph.keep();
  }
  for (int cyc = 0; cyc < po.cycles; ++cyc) {
    ph.hio(po.hio_iter, po.beta);
    res.iterations += po.hio_iter;
    if (po.er_iter > 0) {
      err = ph.er(po.er_iter);
      res.iterations += po.er_iter;
    }
    // Blur narrows geometrically from start to end over the cycles.
    const double f = po.cycles > 1 ? static_cast<double>(cyc) / (po.cycles - 1) : 1.0;
    // A continuation already has a tight support: re-loosening it would throw that away.
    const double sigma =
        continuation
            ? po.shrink_sigma_end
            : po.shrink_sigma_start * std::pow(po.shrink_sigma_end / po.shrink_sigma_start, f);
    ph.shrink_wrap(sigma, po.shrink_threshold);
  }
  // Finish inside the final support with ER.
  err = ph.er(final_er);
  res.iterations += final_er;
  if (start_err < err) {
    ph.restore();
    err = start_err;
  }
  res.fourier_error = err;
  std::vector<double> rho;
  std::vector<char> sup_fft;
  ph.get(rho, sup_fft);
  reorder_cube(rho, res.density, M, false);
  res.support.resize(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        res.support[(k * M + j) * M + i] =
            sup_fft[(centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M)];
  return res;
}

// Phasings of ac: one per seed from fresh random starts inside the autocorrelation's support,
// then one continuation from `start` when it is given. The amplitudes, the first support and
// the engine are made once for all runs.
template <typename Engine, typename... EngineArgs>
std::vector<PhaseResult> phase_runs_with(const std::vector<double>& ac, std::int64_t M,
                                         const PhaseOptions& po,
                                         const std::vector<std::uint64_t>& seeds,
                                         const std::vector<double>& start,
                                         EngineArgs&&... engine_args) {
  const std::int64_t n = M * M * M;
  if (static_cast<std::int64_t>(ac.size()) != n)
    throw Error(ErrorCode::InvalidArgument, "phase: autocorrelation size is not M^3");
  if (!start.empty() && static_cast<std::int64_t>(start.size()) != n)
    throw Error(ErrorCode::InvalidArgument, "phase: start density size is not M^3");

  // Measured amplitudes from the intensity (negative values are noise: clamp).
  std::vector<double> intensity = intensity_from_ac(ac, M), amp;
  for (auto& v : intensity) v = std::sqrt(std::max(v, 0.0));
  reorder_cube(intensity, amp, M, true);
  // Initial support: where the autocorrelation is significant. It holds every translate of
  // the density that touches the origin, so it is a loose but safe first support.
  std::vector<double> acf;
  reorder_cube(ac, acf, M, true);
  const double acmax = *std::max_element(acf.begin(), acf.end());
  std::vector<char> support(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) support[i] = acf[i] > 0.01 * acmax;

  Engine ph(M, amp, std::forward<EngineArgs>(engine_args)...);
  std::vector<PhaseResult> out;
  std::vector<double> rho;
  for (std::uint64_t seed : seeds) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    rho.assign(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) rho[i] = support[i] ? u(rng) : 0.0;
    out.push_back(run_schedule(ph, M, po, rho, support, false));
  }
  if (!start.empty()) {
    reorder_cube(start, rho, M, true);
    out.push_back(run_schedule(ph, M, po, rho, support, true));
  }
  return out;
}

// HIO is chaotic: a start that differs in the last bits may end in a stagnated (twin-mixed)
// solution. Independent starts (po.attempts, seeds po.seed + 7919 a), judged by their Fourier
// error (all end with the same final shrink-wrap and ER, so the errors compare fairly), make
// the outcome robust: the best is returned, its iterations counting every start's.
template <typename Engine, typename... EngineArgs>
PhaseResult phase_with(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                       const std::vector<double>& start, EngineArgs&&... engine_args) {
  if (po.attempts < 1)
    throw Error(ErrorCode::InvalidArgument, "phase attempts = " + std::to_string(po.attempts));
  // Fresh starts, or (start given) the one continuation.
  std::vector<std::uint64_t> seeds;
  for (int a = 0; start.empty() && a < po.attempts; ++a)
    seeds.push_back(po.seed + 7919u * static_cast<std::uint64_t>(a));
  std::vector<PhaseResult> runs =
      phase_runs_with<Engine>(ac, M, po, seeds, start, std::forward<EngineArgs>(engine_args)...);
  std::size_t best = 0;
  int iterations = 0;
  for (std::size_t a = 0; a < runs.size(); ++a) {
    iterations += runs[a].iterations;
    if (runs[a].fourier_error < runs[best].fourier_error) best = a;
  }
  runs[best].iterations = iterations;
  return std::move(runs[best]);
}

// The runs of phase_runs_with on each engine: the host's (phasing.cpp) and the GPU's on
// `device` (-1: current), ordered on `stream` (nullptr: an own one) (gpu/phasing_gpu.cpp;
// NotAvailable in builds without CUDA).
std::vector<PhaseResult> phase_runs_on_host(const std::vector<double>& ac, std::int64_t M,
                                            const PhaseOptions& po,
                                            const std::vector<std::uint64_t>& seeds,
                                            const std::vector<double>& start);
std::vector<PhaseResult> phase_runs_on_gpu(const std::vector<double>& ac, std::int64_t M,
                                           const PhaseOptions& po,
                                           const std::vector<std::uint64_t>& seeds,
                                           const std::vector<double>& start, int device,
                                           void* stream);

}  // namespace nufftmp::mtip::detail
