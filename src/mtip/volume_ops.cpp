// Operations on M^3 volumes: autocorrelation, intensity on the reciprocal lattice, and the
// correlation of a reconstruction with the truth up to the ambiguities of phasing
// (translation and inversion).
#include <algorithm>
#include <cmath>

#include "fft3d.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip {

using detail::centred_to_fft;
using detail::Fft3d;
using detail::wrap;

namespace {
void check_cube(const std::vector<double>& v, std::int64_t M, const char* name) {
  if (M < 1 || static_cast<std::int64_t>(v.size()) != M * M * M)
    throw Error(ErrorCode::InvalidArgument, std::string(name) + " has " +
                                                std::to_string(v.size()) + " values, expected M^3 = " +
                                                std::to_string(M) + "^3");
}
}  // namespace

std::vector<double> autocorrelation(const std::vector<double>& density, std::int64_t M) {
  check_cube(density, M, "density");
  const std::int64_t L = 2 * M, h = M / 2;  // zero padding to 2M: no wrap-around of lags
  Fft3d<double> fft(L, L, L);
  std::fill(fft.data(), fft.data() + fft.size(), std::complex<double>(0));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        fft.data()[(wrap(k - h, L) * L + wrap(j - h, L)) * L + wrap(i - h, L)] =
            density[(k * M + j) * M + i];
  fft.forward();
  for (std::int64_t n = 0; n < fft.size(); ++n) fft.data()[n] = std::norm(fft.data()[n]);
  fft.backward();
  const double norm = 1.0 / static_cast<double>(fft.size());
  std::vector<double> ac(static_cast<std::size_t>(M * M * M));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        ac[(k * M + j) * M + i] =
            norm * fft.data()[(wrap(k - h, L) * L + wrap(j - h, L)) * L + wrap(i - h, L)].real();
  return ac;
}

std::vector<double> intensity_from_ac(const std::vector<double>& ac, std::int64_t M) {
  check_cube(ac, M, "autocorrelation");
  Fft3d<double> fft(M, M, M);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        fft.data()[(centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M)] =
            ac[(k * M + j) * M + i];
  fft.forward();
  std::vector<double> out(ac.size());
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        out[(k * M + j) * M + i] =
            fft.data()[(centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M)]
                .real();
  return out;
}

double correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty())
    throw Error(ErrorCode::InvalidArgument, "correlation: arrays of different or zero size");
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
  ma /= n, mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return (saa > 0 && sbb > 0) ? sab / std::sqrt(saa * sbb) : 0.0;
}

double aligned_correlation(const std::vector<double>& rec, const std::vector<double>& ref,
                           std::int64_t M, std::vector<double>* aligned) {
  check_cube(rec, M, "reconstruction");
  check_cube(ref, M, "reference");
  const std::int64_t n = M * M * M;
  // Spectrum of the reference, once; circular cross-correlation with each candidate.
  Fft3d<double> fref(M, M, M), fc(M, M, M);
  for (std::int64_t i = 0; i < n; ++i) fref.data()[i] = ref[i];
  fref.forward();
  double best = -2;
  std::vector<double> cand(n), best_copy;
  for (int inverted = 0; inverted < 2; ++inverted) {
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i) {
          // Inversion about any centre differs from this one by a translation, which the
          // shift search below absorbs.
          const std::int64_t src =
              inverted ? (wrap(-k, M) * M + wrap(-j, M)) * M + wrap(-i, M) : (k * M + j) * M + i;
          cand[(k * M + j) * M + i] = rec[src];
        }
    for (std::int64_t i = 0; i < n; ++i) fc.data()[i] = cand[i];
    fc.forward();
    // C(s) = sum_r cand(r + s) ref(r): spectrum FFT(cand) conj(FFT(ref)).
    for (std::int64_t i = 0; i < n; ++i) fc.data()[i] *= std::conj(fref.data()[i]);
    fc.backward();
    std::int64_t s = 0;
    for (std::int64_t i = 1; i < n; ++i)
      if (fc.data()[i].real() > fc.data()[s].real()) s = i;
    const std::int64_t sx = s % M, sy = (s / M) % M, sz = s / (M * M);
    std::vector<double> shifted(n);
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i)
          shifted[(k * M + j) * M + i] =
              cand[(wrap(k + sz, M) * M + wrap(j + sy, M)) * M + wrap(i + sx, M)];
    const double c = correlation(shifted, ref);
    if (c > best) {
      best = c;
      best_copy.swap(shifted);
    }
  }
  if (aligned) *aligned = std::move(best_copy);
  return best;
}

}  // namespace nufftmp::mtip
