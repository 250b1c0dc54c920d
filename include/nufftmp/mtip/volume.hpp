// Operations on M^3 volumes (volume_ops.cpp): autocorrelation and intensity, correlations,
// alignment over translation and inversion, and the frame rotation of a reconstruction.
#pragma once

#include <cstdint>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"

namespace nufftmp::mtip {

// Exact autocorrelation of a density with no wrap-around (support within half the lattice),
// through zero-padded FFTs: ac_m = sum_n rho_{n+m} rho_n.
std::vector<double> autocorrelation(const std::vector<double>& density, std::int64_t M);
// Intensity on the M^3 reciprocal lattice x = 2 pi k / M (centred order) from the ac.
std::vector<double> intensity_from_ac(const std::vector<double>& ac, std::int64_t M);
// Pearson correlation of two arrays.
double correlation(const std::vector<double>& a, const std::vector<double>& b);
// Best Pearson correlation of rec with ref over circular translations and inversion
// (rec(-r)); the aligned copy of rec in *aligned when given.
double aligned_correlation(const std::vector<double>& rec, const std::vector<double>& ref,
                           std::int64_t M, std::vector<double>* aligned = nullptr);
// A reconstruction from unknown orientations is the truth seen in an arbitrary frame: its
// orientations are q_rec = g q_true for one global rotation g (and its model is the truth
// rotated by R(g)), which translation and inversion alone cannot undo.
// The least-squares mean of q_rec[i] conj(q_true[i]) (the eigenvector of the largest
// eigenvalue of sum_i p_i p_i^T, sign-free): g. *spread, when given: the fraction of the sum
// that eigenvalue holds (1: every image agrees on g; 0.25: no common rotation).
// accumulate_rotation_moments adds this rank's images to m (16 values, row-major 4x4) for an
// all-reduce before mean_rotation_from_moments.
void accumulate_rotation_moments(const std::vector<Quaternion>& rec,
                                 const std::vector<Quaternion>& truth, double* m);
Quaternion mean_rotation_from_moments(const double* m, double* spread = nullptr);
// The score "orientation error" of unknown orientations against the truth (both lattice
// convention): the frame g of rec against truth as above, its agreement (*spread), and the
// median over images of the angle between rec[i] and g truth[i] in degrees (-1 for none).
// It counts an image at a near-symmetry mate of its orientation (a 180-degree turn the
// low-resolution intensity almost has) as wrong: a model can be right while many are.
struct FrameFit {
  Quaternion frame;
  double agreement = 0, median_error_deg = -1;
};
FrameFit fit_frame(const std::vector<Quaternion>& rec, const std::vector<Quaternion>& truth);
// The density seen in the truth's frame: out(r) = rho(R(g) r) about its own circular centre of
// mass (through its Fourier series at the rotated lattice, by a type 2 NUFFT on the CPU).
std::vector<double> rotate_density(const std::vector<double>& rho, std::int64_t M,
                                   const Quaternion& g);
// Pearson correlation of two intensity models (autocorrelations, centred order) over the
// lattice points inside the ball |k| <= M/2, rec read at R(g) k: I_rec(R(g) y) vs I_ref(y).
// shell_weighted: each point weighted by |k|^2 (a radial-shell mean would otherwise be ruled
// by the bright centre, which carries no orientation information).
double rotated_intensity_correlation(const std::vector<double>& ac_rec,
                                     const std::vector<double>& ac_ref, std::int64_t M,
                                     const Quaternion& g, bool shell_weighted = false);

}  // namespace nufftmp::mtip
