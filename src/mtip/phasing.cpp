// Phasing: a real, positive density whose Fourier modulus matches sqrt(intensity), by hybrid
// input-output (HIO) and error reduction (ER) with a shrink-wrap support. Works in FFT order
// internally (index 0 = origin); inputs and outputs are in centred order.
#include <algorithm>
#include <cmath>
#include <limits>

#include "fft3d.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

using detail::centred_to_fft;
using detail::Fft3d;

namespace {

// out[fft index] = in[centred index] (or back).
void reorder(const std::vector<double>& in, std::vector<double>& out, std::int64_t M,
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

// Signed frequency of FFT index i on an axis of length M.
inline double freq(std::int64_t i, std::int64_t M) {
  return static_cast<double>(i <= M / 2 ? i : i - M) / static_cast<double>(M);
}

class Phaser {
 public:
  Phaser(std::int64_t M, std::vector<double> amplitude)
      : M_(M), n_(M * M * M), amp_(std::move(amplitude)), fft_(M, M, M) {}

  // rho' = P_F(rho): keep the phases, impose the measured amplitudes. Returns the error.
  double fourier_projection(const std::vector<double>& rho, std::vector<double>& out) {
    std::complex<double>* g = fft_.data();
    for (std::int64_t i = 0; i < n_; ++i) g[i] = rho[i];
    fft_.forward();
    double err = 0, norm = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      const double mag = std::abs(g[i]);
      err += (mag - amp_[i]) * (mag - amp_[i]);
      norm += amp_[i] * amp_[i];
      g[i] = mag > 0 ? g[i] * (amp_[i] / mag) : std::complex<double>(amp_[i], 0);
    }
    fft_.backward();
    out.resize(static_cast<std::size_t>(n_));
    const double s = 1.0 / static_cast<double>(n_);
    for (std::int64_t i = 0; i < n_; ++i) out[i] = g[i].real() * s;
    return norm > 0 ? std::sqrt(err / norm) : 0.0;
  }

  // Shrink-wrap: support = Gaussian-blurred density above a fraction of its maximum.
  void shrink_wrap(const std::vector<double>& rho, double sigma, double threshold,
                   std::vector<char>& support) {
    std::complex<double>* g = fft_.data();
    for (std::int64_t i = 0; i < n_; ++i) g[i] = rho[i];
    fft_.forward();
    const double c = 2.0 * M_PI * M_PI * sigma * sigma;
    for (std::int64_t k = 0; k < M_; ++k)
      for (std::int64_t j = 0; j < M_; ++j)
        for (std::int64_t i = 0; i < M_; ++i) {
          const double q2 = freq(i, M_) * freq(i, M_) + freq(j, M_) * freq(j, M_) +
                            freq(k, M_) * freq(k, M_);
          g[(k * M_ + j) * M_ + i] *= std::exp(-c * q2);
        }
    fft_.backward();
    double mx = 0;
    for (std::int64_t i = 0; i < n_; ++i) mx = std::max(mx, g[i].real());
    support.assign(static_cast<std::size_t>(n_), 0);
    for (std::int64_t i = 0; i < n_; ++i) support[i] = g[i].real() > threshold * mx;
  }

 private:
  std::int64_t M_, n_;
  std::vector<double> amp_;
  Fft3d<double> fft_;
};

}  // namespace

namespace {
PhaseResult phase_once(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                       const std::vector<double>& start) {
  const std::int64_t n = M * M * M;
  if (static_cast<std::int64_t>(ac.size()) != n)
    throw Error(ErrorCode::InvalidArgument, "phase: autocorrelation size is not M^3");
  if (!start.empty() && static_cast<std::int64_t>(start.size()) != n)
    throw Error(ErrorCode::InvalidArgument, "phase: start density size is not M^3");

  // Measured amplitudes from the intensity (negative values are noise: clamp).
  std::vector<double> intensity = intensity_from_ac(ac, M), amp;
  for (auto& v : intensity) v = std::sqrt(std::max(v, 0.0));
  reorder(intensity, amp, M, true);
  Phaser ph(M, std::move(amp));

  // Initial support: where the autocorrelation is significant. It holds every translate of
  // the density that touches the origin, so it is a loose but safe first support.
  std::vector<double> acf;
  reorder(ac, acf, M, true);
  const double acmax = *std::max_element(acf.begin(), acf.end());
  std::vector<char> support(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) support[i] = acf[i] > 0.01 * acmax;

  std::vector<double> rho, proj;
  if (!start.empty()) {
    reorder(start, rho, M, true);
    ph.shrink_wrap(rho, po.shrink_sigma_end, po.shrink_threshold, support);
  } else {
    std::mt19937_64 rng(po.seed);
    std::uniform_real_distribution<double> u(0, 1);
    rho.assign(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) rho[i] = support[i] ? u(rng) : 0.0;
  }

  PhaseResult res;
  double err = 0;
  const auto er_steps = [&](int steps) {
    for (int it = 0; it < steps; ++it, ++res.iterations) {
      err = ph.fourier_projection(rho, proj);
      for (std::int64_t i = 0; i < n; ++i) rho[i] = (support[i] && proj[i] > 0) ? proj[i] : 0.0;
    }
  };
  // HIO wanders: a continuation (later generation) keeps its start when the new run ends
  // worse. Both have tight supports (shrink-wrap at the final blur), so their Fourier errors
  // compare fairly; iterates with looser supports would not (they fit more freely).
  double start_err = std::numeric_limits<double>::infinity();
  std::vector<double> start_rho;
  std::vector<char> start_support;
  if (!start.empty()) {
    er_steps(std::max(po.er_iter, 1));
    start_err = err;
    start_rho = rho;
    start_support = support;
  }
  for (int cyc = 0; cyc < po.cycles; ++cyc) {
    for (int it = 0; it < po.hio_iter; ++it, ++res.iterations) {
      err = ph.fourier_projection(rho, proj);
      for (std::int64_t i = 0; i < n; ++i)
        rho[i] = (support[i] && proj[i] > 0) ? proj[i] : rho[i] - po.beta * proj[i];
    }
    er_steps(po.er_iter);
    // Blur narrows geometrically from start to end over the cycles.
    const double f = po.cycles > 1 ? static_cast<double>(cyc) / (po.cycles - 1) : 1.0;
    // A continuation already has a tight support: re-loosening it would throw that away.
    const double sigma =
        start.empty()
            ? po.shrink_sigma_start * std::pow(po.shrink_sigma_end / po.shrink_sigma_start, f)
            : po.shrink_sigma_end;
    ph.shrink_wrap(rho, sigma, po.shrink_threshold, support);
  }
  // Finish inside the final support with ER.
  er_steps(std::max(po.er_iter, 1));
  if (start_err < err) {
    rho.swap(start_rho);
    support.swap(start_support);
    err = start_err;
  }
  res.fourier_error = err;
  reorder(rho, res.density, M, false);
  res.support.resize(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        res.support[(k * M + j) * M + i] =
            support[(centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M)];
  return res;
}

}  // namespace

// HIO is chaotic: a start that differs in the last bits may end in a stagnated (twin-mixed)
// solution. Independent starts, judged by their Fourier error (all end with the same final
// shrink-wrap and ER, so the errors compare fairly), make the outcome robust.
PhaseResult phase(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                  const std::vector<double>& start) {
  if (po.attempts < 1)
    throw Error(ErrorCode::InvalidArgument, "phase attempts = " + std::to_string(po.attempts));
  PhaseResult best = phase_once(ac, M, po, start);
  if (!start.empty()) return best;  // a continuation has no random start to vary
  for (int a = 1; a < po.attempts; ++a) {
    PhaseOptions o = po;
    o.seed = po.seed + 7919u * static_cast<std::uint64_t>(a);
    PhaseResult r = phase_once(ac, M, o, start);
    r.iterations += best.iterations;
    if (r.fourier_error < best.fourier_error) std::swap(best, r);
    best.iterations = std::max(best.iterations, r.iterations);
  }
  return best;
}

}  // namespace nufftmp::mtip
