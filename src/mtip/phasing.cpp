// Phasing: a real, positive density whose Fourier modulus matches sqrt(intensity), by hybrid
// input-output (HIO) and error reduction (ER) with a shrink-wrap support. Works in FFT order
// internally (index 0 = origin); inputs and outputs are in centred order. The schedule is
// phasing_schedule.hpp's; this file is its host engine (FFTW) and the entry points.
#include <algorithm>
#include <cmath>

#include "fft3d.hpp"
#include "gpu/phasing_gpu.hpp"
#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"
#include "phasing_schedule.hpp"

namespace nufftmp::mtip {

using detail::Fft3d;

namespace {

// Signed frequency of FFT index i on an axis of length M.
inline double freq(std::int64_t i, std::int64_t M) {
  return static_cast<double>(i <= M / 2 ? i : i - M) / static_cast<double>(M);
}

// The host engine of phasing_schedule.hpp.
class HostPhaser {
 public:
  HostPhaser(std::int64_t M, const std::vector<double>& amplitude)
      : M_(M), n_(M * M * M), amp_(amplitude), fft_(M, M, M) {}

  void set(const std::vector<double>& rho, const std::vector<char>& support) {
    rho_ = rho;
    support_ = support;
  }
  double er(int steps) {
    double err = 0;
    for (int it = 0; it < steps; ++it) {
      err = fourier_projection();
      for (std::int64_t i = 0; i < n_; ++i)
        rho_[i] = (support_[i] && proj_[i] > 0) ? proj_[i] : 0.0;
    }
    return err;
  }
  void hio(int steps, double beta) {
    for (int it = 0; it < steps; ++it) {
      fourier_projection();
      for (std::int64_t i = 0; i < n_; ++i)
        rho_[i] = (support_[i] && proj_[i] > 0) ? proj_[i] : rho_[i] - beta * proj_[i];
    }
  }
  // Shrink-wrap: support = Gaussian-blurred density above a fraction of its maximum.
  void shrink_wrap(double sigma, double threshold) {
    std::complex<double>* g = fft_.data();
    for (std::int64_t i = 0; i < n_; ++i) g[i] = rho_[i];
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
    support_.assign(static_cast<std::size_t>(n_), 0);
    for (std::int64_t i = 0; i < n_; ++i) support_[i] = g[i].real() > threshold * mx;
  }
  void keep() {
    kept_rho_ = rho_;
    kept_support_ = support_;
  }
  void restore() {
    rho_.swap(kept_rho_);
    support_.swap(kept_support_);
  }
  void get(std::vector<double>& rho, std::vector<char>& support) const {
    rho = rho_;
    support = support_;
  }

 private:
  // proj = P_F(rho): keep the phases, impose the measured amplitudes. Returns the error.
  double fourier_projection() {
    std::complex<double>* g = fft_.data();
    for (std::int64_t i = 0; i < n_; ++i) g[i] = rho_[i];
    fft_.forward();
    double err = 0, norm = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      const double mag = std::abs(g[i]);
      err += (mag - amp_[i]) * (mag - amp_[i]);
      norm += amp_[i] * amp_[i];
      g[i] = mag > 0 ? g[i] * (amp_[i] / mag) : std::complex<double>(amp_[i], 0);
    }
    fft_.backward();
    proj_.resize(static_cast<std::size_t>(n_));
    const double s = 1.0 / static_cast<double>(n_);
    for (std::int64_t i = 0; i < n_; ++i) proj_[i] = g[i].real() * s;
    return norm > 0 ? std::sqrt(err / norm) : 0.0;
  }

  std::int64_t M_, n_;
  std::vector<double> amp_;
  Fft3d<double> fft_;
  std::vector<double> rho_, proj_, kept_rho_;
  std::vector<char> support_, kept_support_;
};

}  // namespace

PhaseResult phase(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                  const std::vector<double>& start) {
  return detail::phase_with<HostPhaser>(ac, M, po, start);
}

std::vector<PhaseResult> detail::phase_runs_on_host(const std::vector<double>& ac,
                                                    std::int64_t M, const PhaseOptions& po,
                                                    const std::vector<std::uint64_t>& seeds,
                                                    const std::vector<double>& start) {
  return phase_runs_with<HostPhaser>(ac, M, po, seeds, start);
}

PhaseResult phase(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                  const std::vector<double>& start, const Options& engine) {
  const bool gpu =
      engine.backend == Backend::Cuda || (engine.backend == Backend::Auto && cuda_available());
  if (!gpu) return phase(ac, M, po, start);
  return detail::phase_on_gpu(ac, M, po, start, engine);
}

}  // namespace nufftmp::mtip
