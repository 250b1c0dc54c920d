#include "direct_ewald.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::ewald::test {

DirectParams reference_parameters(const std::array<double, 3>& L) {
  DirectParams p;
  p.rcut = 0.5 * std::min({L[0], L[1], L[2]});
  p.alpha = 6.0 / p.rcut;               // erfc(6) = 2e-17
  p.kmax = 2.0 * p.alpha * 6.3;         // exp(-6.3^2) = 5e-18
  return p;
}

DirectResult direct_ewald(const std::array<double, 3>& L, const std::vector<double>& x,
                          const std::vector<double>& y, const std::vector<double>& z,
                          const std::vector<double>& q, const DirectParams& p) {
  const long n = static_cast<long>(q.size());
  const double V = L[0] * L[1] * L[2], a = p.alpha;
  DirectResult r;
  r.phi.assign(n, 0.0);
  r.fx.assign(n, 0.0);
  r.fy.assign(n, 0.0);
  r.fz.assign(n, 0.0);
  double Q = 0;
  for (long i = 0; i < n; ++i) Q += q[i];

  // Real space: every j, every image shift m with |r_i - r_j - m L| < rcut.
  int span[3];
  for (int d = 0; d < 3; ++d) span[d] = static_cast<int>(std::ceil(p.rcut / L[d])) + 1;
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < n; ++i) {
    double phi = 0, fx = 0, fy = 0, fz = 0;
    for (long j = 0; j < n; ++j)
      for (int mx = -span[0]; mx <= span[0]; ++mx)
        for (int my = -span[1]; my <= span[1]; ++my)
          for (int mz = -span[2]; mz <= span[2]; ++mz) {
            if (i == j && mx == 0 && my == 0 && mz == 0) continue;
            const double dx = x[i] - x[j] - mx * L[0], dy = y[i] - y[j] - my * L[1],
                         dz = z[i] - z[j] - mz * L[2];
            const double rr = std::sqrt(dx * dx + dy * dy + dz * dz);
            if (rr >= p.rcut) continue;
            const double e = std::erfc(a * rr) / rr;
            phi += q[j] * e;
            const double f = q[j] * (e + 2 * a / std::sqrt(M_PI) * std::exp(-a * a * rr * rr)) /
                             (rr * rr);
            fx += f * dx;
            fy += f * dy;
            fz += f * dz;
          }
    r.phi[i] = phi;
    r.fx[i] = q[i] * fx;
    r.fy[i] = q[i] * fy;
    r.fz[i] = q[i] * fz;
  }

  // Reciprocal space: the half-space of integer vectors (first nonzero component > 0).
  int nmax[3];
  for (int d = 0; d < 3; ++d) nmax[d] = static_cast<int>(std::ceil(p.kmax * L[d] / (2 * M_PI)));
  struct K {
    double kx, ky, kz, w;  // w = 2 * 4 pi / V * exp(-k^2/4a^2) / k^2 (k and -k together)
  };
  std::vector<K> ks;
  for (int i0 = 0; i0 <= nmax[0]; ++i0)
    for (int i1 = -nmax[1]; i1 <= nmax[1]; ++i1)
      for (int i2 = -nmax[2]; i2 <= nmax[2]; ++i2) {
        if (i0 == 0 && (i1 < 0 || (i1 == 0 && i2 <= 0))) continue;
        const double kx = 2 * M_PI * i0 / L[0], ky = 2 * M_PI * i1 / L[1], kz = 2 * M_PI * i2 / L[2];
        const double k2 = kx * kx + ky * ky + kz * kz;
        if (k2 > p.kmax * p.kmax) continue;
        ks.push_back({kx, ky, kz, 2 * 4 * M_PI / V * std::exp(-k2 / (4 * a * a)) / k2});
      }
  std::vector<double> sc(ks.size()), ss(ks.size());  // S(k) = sc + i ss = sum q e^{i k r}
#pragma omp parallel for schedule(static)
  for (long t = 0; t < static_cast<long>(ks.size()); ++t) {
    double c = 0, s = 0;
    for (long j = 0; j < n; ++j) {
      const double ph = ks[t].kx * x[j] + ks[t].ky * y[j] + ks[t].kz * z[j];
      c += q[j] * std::cos(ph);
      s += q[j] * std::sin(ph);
    }
    sc[t] = c;
    ss[t] = s;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    double pot = 0, fx = 0, fy = 0, fz = 0;
    for (std::size_t t = 0; t < ks.size(); ++t) {
      const K& k = ks[t];
      const double ph = k.kx * x[i] + k.ky * y[i] + k.kz * z[i];
      const double c = std::cos(ph), s = std::sin(ph);
      // Re(S e^{-i k r}) = sc c + ss s;  Re(i k S e^{-i k r}) = k (sc s - ss c)
      pot += k.w * (sc[t] * c + ss[t] * s);
      const double g = k.w * (sc[t] * s - ss[t] * c);
      fx += g * k.kx;
      fy += g * k.ky;
      fz += g * k.kz;
    }
    r.phi[i] += pot;
    r.fx[i] += q[i] * fx;
    r.fy[i] += q[i] * fy;
    r.fz[i] += q[i] * fz;
  }
  const double self = -2 * a / std::sqrt(M_PI), bg = -M_PI * Q / (V * a * a);
  r.energy = 0;
  for (long i = 0; i < n; ++i) {
    r.phi[i] += self * q[i] + bg;
    r.energy += 0.5 * q[i] * r.phi[i];
  }
  return r;
}

}  // namespace nufftmp::ewald::test
