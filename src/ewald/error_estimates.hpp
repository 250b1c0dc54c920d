// Kolafa-Perram-style RMS error estimates of the Ewald sum's parts (pure, no MPI).
//
// For N charges spread at random in a volume V (mean spacing d = (V/N)^(1/3), Q = sum q^2),
// the error of a truncated part at one ion is a sum of many independent terms, and its RMS
// follows from integrating the squared kernel over the truncated region (J. Kolafa and
// J. W. Perram, Mol. Simul. 9, 351 (1992); the same steps as there, per ion rather than
// summed). Each estimate is relative: potentials to q_rms/d, forces to q_rms^2/d^2.
//   real space, cut at rcut:   dphi = (d/rc)^(3/2) exp(-a^2 rc^2) / (a d)^2
//                              dF   = 2 (d/rc)^(1/2) exp(-a^2 rc^2)
//   reciprocal, all |k| > kc:  dphi = [2 sqrt(2) a / (d^(1/2) kc^(3/2)) + 4 a^2 d / (pi kc)]
//                                     * exp(-kc^2 / (4 a^2))
//                              (the second term is the systematic share: the ion's own
//                              Gaussian truncated in k, q_i * 4 a^2/(pi kc) exp(..))
//                              dF   = 2 a d^(1/2) / kc^(1/2) * exp(-kc^2 / (4 a^2))
//   NUFFT at tolerance tol: if the relative l2 error tol of S(k) and of the type 2 input were
//   spread evenly over the modes, the Green's function (whose lowest modes dominate:
//   sum_n |n|^-4 = 16.53 over the integer lattice) would give
//                              dphi = sqrt(2) * 1.29 * tol * N^(1/6)
//                              dF   = sqrt(2) * 4 sqrt(pi nc) * tol * N^(-1/6),
//   nc = the mode radius in lattice units. Measured against the direct sum (N = 400 and 3000
//   random ions, accuracy 1e-4 .. 1e-10, tol scaled 1 .. 1000 x: tests/ewald) the NUFFT part
//   is 15-40 x smaller (its error is smallest at the low modes that dominate): dphi ~ 0.11
//   tol N^(1/6), dF ~ 0.16 sqrt(pi nc) tol N^(-1/6). The forms are kept with those fitted
//   constants times 3 (0.35 and 0.5).
// The mode box kept, |n_i| <= K_i, contains the ball |k| < kc with kc = min_i 2 pi (K_i+1)/L_i,
// so the sphere estimates over-count the truncated modes (they are upper estimates).
#pragma once

#include <cmath>

namespace nufftmp::ewald::detail {

inline double est_real_potential(double a, double rc, double d) {
  return std::pow(d / rc, 1.5) * std::exp(-a * a * rc * rc) / ((a * d) * (a * d));
}
inline double est_real_force(double a, double rc, double d) {
  return 2.0 * std::sqrt(d / rc) * std::exp(-a * a * rc * rc);
}
inline double est_recip_potential(double a, double kc, double d) {
  return (2.0 * std::sqrt(2.0) * a / (std::sqrt(d) * std::pow(kc, 1.5)) +
          4.0 * a * a * d / (M_PI * kc)) *
         std::exp(-kc * kc / (4.0 * a * a));
}
inline double est_recip_force(double a, double kc, double d) {
  return 2.0 * a * std::sqrt(d / kc) * std::exp(-kc * kc / (4.0 * a * a));
}
inline double est_nufft_potential(double tol, double n_total) {
  return 0.35 * tol * std::pow(n_total, 1.0 / 6.0);
}
inline double est_nufft_force(double tol, double n_total, double nc) {
  return 0.5 * std::sqrt(M_PI * nc) * tol * std::pow(n_total, -1.0 / 6.0);
}

}  // namespace nufftmp::ewald::detail
