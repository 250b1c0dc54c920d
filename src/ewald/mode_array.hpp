// The reciprocal part in the mode array, from the structure factor S(k) (type 1 output) to the
// type 2 input: block 0 holds the potential's coefficients
//   f0(k) = 4 pi/V exp(-k^2/(4 alpha^2))/k^2 S(k)       (f0(0) = 0),
// blocks 1..3 (with forces) the gradient's, f_d(k) = i k_d f0(k), so that at ion j
//   phi_recip = Re c0_j  and  F_recip,d = q_j Re c_d_j
// with c = type 2 of f at isign -1. Modes in increasing order (modeord 0), N_d odd so that the
// set is symmetric (-k with every k), x fastest; k_d = 2 pi n_d / L_d, n_d = i_d - (N_d - 1)/2.
// The reciprocal energy is 2 pi/V sum_k exp(..)/k^2 |S(k)|^2. One source for the host loop
// (reciprocal_host.cpp) and the CUDA kernel (gpu/mode_kernels.cu).
#pragma once

#include <cstdint>

#include "host_device.hpp"

namespace nufftmp::ewald::detail {

struct ModeGrid {
  std::int64_t N[3] = {1, 1, 1};
  double kscale[3] = {1, 1, 1};  // 2 pi / L_d
  double inv4a2 = 1;             // 1 / (4 alpha^2)
  double prefactor = 1;          // 4 pi / V
  EWALD_HD std::int64_t count() const { return N[0] * N[1] * N[2]; }
};

// Green's function weight exp(-k^2/(4 alpha^2))/k^2 of mode (i0, i1, i2), 0 at k = 0; k out.
EWALD_HD inline double green_weight(std::int64_t i0, std::int64_t i1, std::int64_t i2,
                                    const ModeGrid& m, double k[3]) {
  k[0] = static_cast<double>(i0 - (m.N[0] - 1) / 2) * m.kscale[0];
  k[1] = static_cast<double>(i1 - (m.N[1] - 1) / 2) * m.kscale[1];
  k[2] = static_cast<double>(i2 - (m.N[2] - 1) / 2) * m.kscale[2];
  const double k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
  return k2 > 0 ? exp(-k2 * m.inv4a2) / k2 : 0.0;
}

// One mode: S = (sr, si) -> f0 and, with forces, f1..f3 (each as re, im) at stride `block`
// doubles-pairs apart in f (f[2 * (v * block + idx)] ...). Returns g |S|^2.
template <bool Forces>
EWALD_HD inline double apply_green(std::int64_t idx, const ModeGrid& m, const double* S, double* f,
                                   std::int64_t block) {
  const std::int64_t i0 = idx % m.N[0], i1 = (idx / m.N[0]) % m.N[1], i2 = idx / (m.N[0] * m.N[1]);
  double k[3];
  const double g = green_weight(i0, i1, i2, m, k);
  const double sr = S[2 * idx], si = S[2 * idx + 1];
  const double fr = m.prefactor * g * sr, fi = m.prefactor * g * si;
  f[2 * idx] = fr;
  f[2 * idx + 1] = fi;
  if (Forces) {
    for (int d = 0; d < 3; ++d) {  // i k_d (fr + i fi) = -k_d fi + i k_d fr
      f[2 * ((d + 1) * block + idx)] = -k[d] * fi;
      f[2 * ((d + 1) * block + idx) + 1] = k[d] * fr;
    }
  }
  return g * (sr * sr + si * si);
}

}  // namespace nufftmp::ewald::detail
