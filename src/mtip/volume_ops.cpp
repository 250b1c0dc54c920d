// Operations on M^3 volumes: autocorrelation, intensity on the reciprocal lattice, and the
// correlation of a reconstruction with the truth up to the ambiguities of phasing
// (translation and inversion) and, from unknown orientations, of the frame (a global rotation).
#include <algorithm>
#include <cmath>
#include <complex>

#include "fft3d.hpp"
#include "lattice_series.hpp"
#include "nufftmp/mtip.hpp"
#include "toeplitz_side.hpp"

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
  // Zero padding to L >= 2M - 1: no wrap-around of the lags -(M-1) .. M-1 (toeplitz_side.hpp).
  const std::int64_t L = detail::toeplitz_side(M), h = M / 2;
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
  // Both spectra from one FFT of ref + i rec (both real): Z = R + i C, and since a real
  // array's spectrum is Hermitian (X[-m] = conj X[m]), R = (Z[m] + conj Z[-m]) / 2 and
  // C = (Z[m] - conj Z[-m]) / 2i.
  Fft3d<double> z(M, M, M), corr(M, M, M);
  for (std::int64_t i = 0; i < n; ++i) z.data()[i] = {ref[i], rec[i]};
  z.forward();
  // The circular cross-correlations C(s) = sum_r cand(r + s) ref(r) of both candidates, rec and
  // its inversion rec(-r) (spectrum conj C): spectra C conj R and conj C conj R, those of real
  // arrays, so one backward FFT of A + i B gives both (real part, imaginary part).
  const std::complex<double> I(0, 1);
  std::vector<std::int64_t> neg(static_cast<std::size_t>(M));  // -c modulo M, per axis
  for (std::int64_t c = 0; c < M; ++c) neg[c] = wrap(-c, M);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const std::int64_t m = (k * M + j) * M + i;
        const std::complex<double> zm = z.data()[m];
        const std::complex<double> zn = std::conj(z.data()[(neg[k] * M + neg[j]) * M + neg[i]]);
        const std::complex<double> R = 0.5 * (zm + zn), C = I * -0.5 * (zm - zn);
        corr.data()[m] = C * std::conj(R) + I * (std::conj(C) * std::conj(R));
      }
  corr.backward();
  double best = -2;
  std::vector<double> shifted(n), best_copy;
  std::vector<std::int64_t> src[3];  // per axis: the index of rec read at each index
  for (int inverted = 0; inverted < 2; ++inverted) {
    const auto c_at = [&](std::int64_t i) {
      return inverted ? corr.data()[i].imag() : corr.data()[i].real();
    };
    std::int64_t s = 0;
    for (std::int64_t i = 1; i < n; ++i)
      if (c_at(i) > c_at(s)) s = i;
    // The candidate shifted by s: cand(r + s), cand(r) = rec(r) or rec(-r). (Inversion about
    // any centre differs from this one by a translation, which the shift search absorbs.)
    const std::int64_t shift[3] = {s % M, (s / M) % M, s / (M * M)};
    for (int d = 0; d < 3; ++d) {
      src[d].resize(static_cast<std::size_t>(M));
      for (std::int64_t c = 0; c < M; ++c)
        src[d][c] = inverted ? wrap(-(c + shift[d]), M) : wrap(c + shift[d], M);
    }
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i)
          shifted[(k * M + j) * M + i] = rec[(src[2][k] * M + src[1][j]) * M + src[0][i]];
    const double c = correlation(shifted, ref);
    if (c > best) {
      best = c;
      best_copy.swap(shifted);
      shifted.resize(static_cast<std::size_t>(n));
    }
  }
  if (aligned) *aligned = std::move(best_copy);
  return best;
}

}  // namespace nufftmp::mtip

// ---------------------------------------------------------------- frame alignment
namespace nufftmp::mtip {

namespace {
// The centred lattice frequencies 2 pi (n - M/2) / M (x fastest) rotated by g, at the lattice
// points with keep(i, j, k, r2) (r2 = |n - M/2|^2); then the Fourier series of the centred
// M^3 array f evaluated there with the given sign (lattice_series.hpp).
struct RotatedSamples {
  std::vector<double> x, y, z;
  std::vector<std::complex<double>> values;
};
template <typename Keep>
RotatedSamples rotated_series(std::int64_t M, const Quaternion& g, int isign,
                              std::vector<std::complex<double>>& f, Keep&& keep) {
  constexpr double kTwoPi = 6.283185307179586476925;
  const std::int64_t h = M / 2;
  const auto m = quat_to_matrix(g);
  RotatedSamples r;
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const double r2 = double((i - h) * (i - h) + (j - h) * (j - h) + (k - h) * (k - h));
        if (!keep(i, j, k, r2)) continue;
        const double a = kTwoPi * (i - h) / M, b = kTwoPi * (j - h) / M, c = kTwoPi * (k - h) / M;
        r.x.push_back(m[0] * a + m[1] * b + m[2] * c);
        r.y.push_back(m[3] * a + m[4] * b + m[5] * c);
        r.z.push_back(m[6] * a + m[7] * b + m[8] * c);
      }
  r.values = detail::lattice_series(M, isign, f, r.x, r.y, r.z);
  return r;
}
}  // namespace

void accumulate_rotation_moments(const std::vector<Quaternion>& rec,
                                 const std::vector<Quaternion>& truth, double* m) {
  if (rec.size() != truth.size())
    throw Error(ErrorCode::InvalidArgument, "rotation moments: orientation counts differ");
  for (std::size_t i = 0; i < rec.size(); ++i) {
    const Quaternion p = quat_multiply(rec[i], quat_conjugate(truth[i]));
    const double v[4] = {p.w, p.x, p.y, p.z};
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) m[4 * a + b] += v[a] * v[b];
  }
}

Quaternion mean_rotation_from_moments(const double* m, double* spread) {
  // Cyclic Jacobi on the symmetric 4x4 matrix: the eigenvectors accumulate in V.
  double A[4][4], V[4][4];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) A[a][b] = m[4 * a + b], V[a][b] = a == b;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) off += A[a][b] * A[a][b];
    if (off < 1e-30) break;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) {
        if (std::fabs(A[p][q]) < 1e-300) continue;
        const double th = 0.5 * std::atan2(2 * A[p][q], A[q][q] - A[p][p]);
        const double c = std::cos(th), s = std::sin(th);
        for (int k = 0; k < 4; ++k) {  // A <- A J
          const double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - s * akq;
          A[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 4; ++k) {  // A <- J^T A
          const double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - s * aqk;
          A[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 4; ++k) {
          const double vkp = V[k][p], vkq = V[k][q];
          V[k][p] = c * vkp - s * vkq;
          V[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int top = 0;
  double trace = 0;
  for (int a = 0; a < 4; ++a) {
    trace += A[a][a];
    if (A[a][a] > A[top][top]) top = a;
  }
  if (spread) *spread = trace > 0 ? A[top][top] / trace : 0.0;
  if (!(trace > 0)) return Quaternion{};
  return quat_normalized({V[0][top], V[1][top], V[2][top], V[3][top]});
}

FrameFit fit_frame(const std::vector<Quaternion>& rec, const std::vector<Quaternion>& truth) {
  double mom[16] = {0};
  accumulate_rotation_moments(rec, truth, mom);
  FrameFit f;
  f.frame = mean_rotation_from_moments(mom, &f.agreement);
  if (rec.empty()) return f;
  std::vector<double> err(rec.size());
  for (std::size_t i = 0; i < rec.size(); ++i)
    err[i] = quat_angle(rec[i], quat_multiply(f.frame, truth[i])) * 57.29577951308232;
  std::nth_element(err.begin(), err.begin() + err.size() / 2, err.end());
  f.median_error_deg = err[err.size() / 2];
  return f;
}

std::vector<double> rotate_density(const std::vector<double>& rho, std::int64_t M,
                                   const Quaternion& g) {
  check_cube(rho, M, "density");
  const std::int64_t n = M * M * M, h = M / 2;
  constexpr double kTwoPi = 6.283185307179586476925;
  // Circular centre of mass per axis (the phase of the first Fourier coefficient), moved to
  // the lattice origin: the rotation is about the molecule, not about a wrapped-around piece.
  // The phase factors once per index, not per voxel (3 M^3 sin/cos), summed in the same order.
  std::vector<std::complex<double>> phase(static_cast<std::size_t>(M));
  for (std::int64_t c = 0; c < M; ++c) phase[c] = std::polar(1.0, kTwoPi * c / M);
  std::int64_t shift[3];
  for (int d = 0; d < 3; ++d) {
    std::complex<double> s = 0;
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i) {
          const std::int64_t c = d == 0 ? i : d == 1 ? j : k;
          s += rho[(k * M + j) * M + i] * phase[c];
        }
    const double centre = std::arg(s) / kTwoPi * M;  // index, modulo M
    shift[d] = static_cast<std::int64_t>(std::llround(centre)) - h;
  }
  std::vector<std::complex<double>> f(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        f[(k * M + j) * M + i] =
            rho[(wrap(k + shift[2], M) * M + wrap(j + shift[1], M)) * M + wrap(i + shift[0], M)];
  // out(r) = rho(G r): its spectrum is the Fourier series F(x) = sum_n rho_n e^{-i n.x} of rho
  // read at the rotated frequencies, sum_r rho(G r) e^{-i k.r} = F(G k), i.e. at
  // x = G (2 pi k / M) (inside [-3pi, 3pi)). The corners of the cube (|k| > M/2) rotate in
  // from outside the lattice's band (aliases), so only the inscribed ball is kept, and only
  // its points are evaluated; of a pair k, -k only the one later in the lattice's order (the
  // spectrum of a real density is Hermitian: F(-x) = conj F(x)). A quarter of the cube.
  const auto fft_index = [M](std::int64_t i, std::int64_t j, std::int64_t k) {
    return (centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M);
  };
  // 0: outside the ball, 1: evaluated, 2: the mirror of an evaluated point (index 2h - i per
  // axis; for even M the index 0 (-h) has none).
  const auto role = [M, h](std::int64_t i, std::int64_t j, std::int64_t k, double r2) {
    if (4 * r2 > double(M * M)) return 0;
    const std::int64_t i2 = 2 * h - i, j2 = 2 * h - j, k2 = 2 * h - k;
    if (i2 >= M || j2 >= M || k2 >= M) return 1;
    return (k * M + j) * M + i >= (k2 * M + j2) * M + i2 ? 1 : 2;
  };
  const std::vector<std::complex<double>> vals =
      rotated_series(M, g, -1, f, [&](std::int64_t i, std::int64_t j, std::int64_t k, double r2) {
        return role(i, j, k, r2) == 1;
      }).values;
  // Back to real space, in the order rotated_series visited the points.
  Fft3d<double> fft(M, M, M);
  std::fill(fft.data(), fft.data() + n, std::complex<double>(0));
  std::size_t next = 0;
  for (int pass = 1; pass <= 2; ++pass)
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i) {
          const double r2 = double((i - h) * (i - h) + (j - h) * (j - h) + (k - h) * (k - h));
          if (role(i, j, k, r2) != pass) continue;
          std::complex<double>& v = fft.data()[fft_index(i, j, k)];
          v = pass == 1 ? vals[next++]
                        : std::conj(fft.data()[fft_index(2 * h - i, 2 * h - j, 2 * h - k)]);
        }
  fft.backward();
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        out[(k * M + j) * M + i] =
            fft.data()[(centred_to_fft(k, M) * M + centred_to_fft(j, M)) * M + centred_to_fft(i, M)]
                .real() / static_cast<double>(n);
  return out;
}

double rotated_intensity_correlation(const std::vector<double>& ac_rec,
                                     const std::vector<double>& ac_ref, std::int64_t M,
                                     const Quaternion& g, bool shell_weighted) {
  check_cube(ac_rec, M, "autocorrelation");
  check_cube(ac_ref, M, "reference autocorrelation");
  const auto ref = intensity_from_ac(ac_ref, M);
  // The inscribed ball only: the cube's corners rotate in from outside the band.
  std::vector<double> wref, w;
  std::vector<std::complex<double>> f(ac_rec.begin(), ac_rec.end());
  const auto r = rotated_series(M, g, +1, f, [&](std::int64_t i, std::int64_t j, std::int64_t k,
                                                   double r2) {
    if (4 * r2 > double(M * M)) return false;
    wref.push_back(ref[(k * M + j) * M + i]);
    w.push_back(shell_weighted ? r2 : 1.0);
    return true;
  });
  const std::vector<std::complex<double>>& vals = r.values;
  const std::int64_t np = static_cast<std::int64_t>(vals.size());
  double sw = 0, ma = 0, mb = 0;
  for (std::int64_t p = 0; p < np; ++p) {
    sw += w[p];
    ma += w[p] * vals[p].real();
    mb += w[p] * wref[p];
  }
  ma /= sw, mb /= sw;
  double sab = 0, saa = 0, sbb = 0;
  for (std::int64_t p = 0; p < np; ++p) {
    const double a = vals[p].real() - ma, b = wref[p] - mb;
    sab += w[p] * a * b;
    saa += w[p] * a * a;
    sbb += w[p] * b * b;
  }
  return (saa > 0 && sbb > 0) ? sab / std::sqrt(saa * sbb) : 0.0;
}

}  // namespace nufftmp::mtip
