// The reciprocal part in the mode array, from the structure factor S(k) (type 1 output) to the
// type 2 input. The potential's coefficients
//   f0(k) = 4 pi/V exp(-k^2/(4 alpha^2))/k^2 S(k)       (f0(0) = 0)
// and the gradient's, f_d(k) = i k_d f0(k), are each Hermitian (f(-k) = conj f(k): S is the
// transform of real charges and the weights are even), so each one's type 2 (isign -1) is
// real at every ion: phi_recip = T f0, F_recip,d = q T f_d. Two such real results share one
// complex transform, T(f_a + i f_b) = T f_a + i T f_b (T maps Hermitian arrays to real
// values: real kernel, even deconvolution factors, a symmetric mode set), the NUFFT error of
// each part being that of its own transform. So with forces the type 2 has 2 vectors, not 4:
//   block 0: fA = f0 + i s f1 = (1 - s k_x) f0       ->  phi = Re cA, F_x = q Im cA / s
//   block 1: fB = s (f2 + i f3) = s (i k_y - k_z) f0  ->  F_y = q Re cB / s, F_z = q Im cB / s
// (recip_values below): half the memory of the type 2's vectors, values and fine grids. The
// length s = ModeGrid::grad_scale (1 / k_max) keeps the two parts of fA alike in size, so
// that the rounding of the larger does not swamp the smaller in boxes of any unit.
// Without forces one vector, f0. Block 0 may hold S itself: each mode is read before it is
// written, so the type 1 writes S into the array the type 2 then reads.
// Modes in increasing order (modeord 0), N_d odd so that the set is symmetric (-k with every
// k), x fastest; k_d = 2 pi n_d / L_d, n_d = i_d - (N_d - 1)/2. The reciprocal energy is
// 2 pi/V sum_k exp(..)/k^2 |S(k)|^2. One source for the host loop (reciprocal_host.cpp) and
// the CUDA kernels (gpu/mode_kernels.cu, gpu/ion_kernels.cu).
#pragma once

#include <cstdint>

#include "host_device.hpp"

namespace nufftmp::ewald::detail {

struct ModeGrid {
  std::int64_t N[3] = {1, 1, 1};
  double kscale[3] = {1, 1, 1};  // 2 pi / L_d
  double inv4a2 = 1;             // 1 / (4 alpha^2)
  double prefactor = 1;          // 4 pi / V
  double grad_scale = 1;         // s of the packed gradient (above); 1 / k_max
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

// Vectors of the type 2: 2 with forces (fA, fB above), 1 without.
EWALD_HD constexpr int type2_vectors(bool forces) { return forces ? 2 : 1; }

// One mode: S = (sr, si) -> f0 or, with forces, fA and fB (each as re, im; block `block`
// complex values apart in f: f[2 * (v * block + idx)] ...). S may be f (block 0). Returns
// g |S|^2.
template <bool Forces>
EWALD_HD inline double apply_green(std::int64_t idx, const ModeGrid& m, const double* S, double* f,
                                   std::int64_t block) {
  const std::int64_t i0 = idx % m.N[0], i1 = (idx / m.N[0]) % m.N[1], i2 = idx / (m.N[0] * m.N[1]);
  double k[3];
  const double g = green_weight(i0, i1, i2, m, k);
  const double sr = S[2 * idx], si = S[2 * idx + 1];
  const double fr = m.prefactor * g * sr, fi = m.prefactor * g * si;
  if (Forces) {
    const double s = m.grad_scale, a = 1 - s * k[0], ky = s * k[1], kz = s * k[2];
    f[2 * idx] = a * fr;  // fA = (1 - s k_x) f0
    f[2 * idx + 1] = a * fi;
    f[2 * (block + idx)] = -kz * fr - ky * fi;  // fB = s (i k_y - k_z) f0
    f[2 * (block + idx) + 1] = ky * fr - kz * fi;
  } else {
    f[2 * idx] = fr;
    f[2 * idx + 1] = fi;
  }
  return g * (sr * sr + si * si);
}

// The reciprocal potential and force / q of ion i from the type 2 values (complex as re, im;
// type2_vectors blocks of n), inv_s = 1 / grad_scale: out[0] = phi, out[1..3] = F_d / q (only
// with Forces).
template <bool Forces>
EWALD_HD inline void recip_values(const double* v, std::int64_t n, std::int64_t i, double inv_s,
                                  double out[4]) {
  out[0] = v[2 * i];
  if (Forces) {
    out[1] = inv_s * v[2 * i + 1];
    out[2] = inv_s * v[2 * (n + i)];
    out[3] = inv_s * v[2 * (n + i) + 1];
  }
}

}  // namespace nufftmp::ewald::detail
