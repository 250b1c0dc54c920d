// The truth-free measures of a generation (reconstruct_run.hpp): the free correlation (pixels
// held out of everything predicted by the model), the two half data sets (even and odd index in
// the file) merged separately at the current orientations and the shell correlation of their
// intensities, the orientations' change since the last generation; and the check of the
// quaternion convention, which uses the same half merges.
//
// The half-set orientations come from matching every image against the whole model, so the two
// halves agree once the assignment is self-consistent, right or wrong: near 0 for random
// orientations (their halves share only the radial profile it removes), but high for a
// noise-fitted assignment at low signal (0.89 at 300 photons per image on the study's data).
// Matching each half against its own half's model from a common start does not cure that
// (measured 0.70 there): the common start's template biases both. The free pixels do.
#include <cmath>
#include <fstream>
#include <limits>

#include "reconstruct_run.hpp"
#include "nufft_tolerance.hpp"

namespace nufftmp::mtip::detail {

// The half-set curve of the current orientations: merges both halves (collective).
template <typename T>
ShellCurve Run<T>::half_set_curve() {
  std::vector<double> a, b;
  merge_images(ImageSet::HalfA, a);
  merge_images(ImageSet::HalfB, b);
  return shell_correlation(intensity_from_ac(a, in_.M), intensity_from_ac(b, in_.M), in_.M);
}

// The free correlation (ReconstructOptions::free_fraction): the model's slices at every image's
// orientation, at the free pixels only, against their data; each free pixel's mean over all
// images (all ranks) is removed from both, which takes out the radial profile exactly (a
// pixel's |q| is the same in every orientation). The noise level is 1 / sqrt(samples).
template <typename T>
void Run<T>::free_correlation(GenerationReport& g) {
  const std::int64_t nf = in_.nfree, nloc = in_.nloc, n = nf * nloc;
  if (nf == 0) return;
  std::vector<T> x(n), y(n), z(n), s;
  slice_points(in_.free_positions, st_.orientations.data(), nloc, in_.scale, x.data(), y.data(),
               z.data());
  dist::detail::agreed(comm_, [&] {
    if (!free_slicer_)
      free_slicer_ = std::make_unique<Slicer<T>>(in_.M, nufft_tolerance(0, sizeof(T) == 4),
                                                 ro_.nufft);
    free_slicer_->set_points(n, x.data(), y.data(), z.data());
    free_slicer_->slice_real(st_.ac, s);
  });
  // Per free pixel the sums of data and model over this rank's images; then the images and
  // whether every rank's free data are photon counts.
  std::vector<double> sums(static_cast<std::size_t>(2 * nf + 2), 0.0);
  for (std::int64_t i = 0; i < nloc; ++i)
    for (std::int64_t p = 0; p < nf; ++p) {
      sums[p] += in_.free_data[i * nf + p];
      sums[nf + p] += s[i * nf + p];
    }
  sums[2 * nf] = static_cast<double>(nloc);
  sums[2 * nf + 1] = in_.free_counts ? 0.0 : 1.0;
  dist::detail::allreduce_sum(comm_, sums.data(), 2 * nf + 2);
  const double images = std::max(sums[2 * nf], 1.0);
  double acc[3] = {0, 0, 0};  // sum db ds, db^2, ds^2
  for (std::int64_t i = 0; i < nloc; ++i)
    for (std::int64_t p = 0; p < nf; ++p) {
      const double db = in_.free_data[i * nf + p] - sums[p] / images;
      const double ds = s[i * nf + p] - sums[nf + p] / images;
      acc[0] += db * ds, acc[1] += db * db, acc[2] += ds * ds;
    }
  dist::detail::allreduce_sum(comm_, acc, 3);
  g.free_correlation = acc[1] > 0 && acc[2] > 0 ? acc[0] / std::sqrt(acc[1] * acc[2]) : 0.0;
  g.free_sigma = 1.0 / std::sqrt(images * static_cast<double>(nf));
  // Photon counts: what a perfect model would reach, sqrt(signal / total variance), the
  // Poisson variance of b / C_p being mean(b / C_p) / C_p (CC* of crystallography's idea).
  // Around the per-pixel mean of n images the noise adds (n - 1) variances, not n: with n of
  // them the noise was over-counted by the mean's own share, which at low counts (signal
  // variance below 1/n of the noise's) is all of the signal: the ceiling read 0 at 10 photons
  // per image over 400 images, and runs exceeded it at 100-300.
  if (sums[2 * nf + 1] == 0 && acc[1] > 0) {
    double noise = 0;
    for (std::int64_t p = 0; p < nf; ++p) noise += sums[p] / in_.free_correction[p];
    noise *= (images - 1) / images;
    g.free_ceiling = std::sqrt(std::max(0.0, acc[1] - noise) / acc[1]);
  }
}

template <typename T>
void Run<T>::convergence_stage(GenerationReport& g, const std::vector<double>& all_orient) {
  const auto t0 = Clock::now();
  free_correlation(g);
  if (ro_.half_sets) {
    // Known, fixed orientations give the same halves every generation: merged once.
    if (!(ro_.known_orientations && known_curve_valid_)) {
      known_curve_ = half_set_curve();
      known_curve_valid_ = true;
    }
    const ShellCurve& c = known_curve_;
    g.fsc = c.fsc;
    g.fsc_mean = shell_mean(c);
    const double lattice = static_cast<double>(in_.M) * in_.voxel;  // Angstrom
    const double s05 = shell_crossing(c, 0.5), s0143 = shell_crossing(c, 0.143);
    const double inf = std::numeric_limits<double>::infinity();
    g.resolution_fsc05 = s05 > 0 ? lattice / s05 : inf;
    g.resolution_fsc0143 = s0143 > 0 ? lattice / s0143 : inf;
  }
  g.halfset_ms = ms_since(t0);
  double change = -1;
  if (!ro_.known_orientations && rank_ == 0) {
    if (st_.prev_orient.size() == all_orient.size() && !all_orient.empty())
      change = median_orientation_change(unpack_orientations(st_.prev_orient), unpack_orientations(all_orient));
    st_.prev_orient = all_orient;
  }
  dist::detail::bcast(comm_, &change, 1, 0);
  g.orientation_change_deg = change;
}

// Known orientations: are the file's quaternions in the convention the run reads them in?
// Two half merges each at the orientations as read and at their conjugates (the other
// convention); the one whose halves agree is the one that describes the data.
template <typename T>
void Run<T>::check_convention() {
  const std::vector<Quaternion> saved = st_.orientations;
  const bool soft = st_.soft;
  st_.soft = false;
  double score[2];
  for (int other = 0; other < 2; ++other) {
    st_.orientations = in_.local.orientations;
    if (other)
      for (auto& q : st_.orientations) q = quat_conjugate(q);
    const ShellCurve c = half_set_curve();
    score[other] = shell_mean(c);
    if (!other) known_curve_ = c, known_curve_valid_ = true;  // generation 1's, as read
  }
  st_.orientations = saved;
  st_.soft = soft;
  capped_ = merges_ = 0;
  capped_residual_ = 0;
  const QuaternionConvention as_read = in_.convention;
  const QuaternionConvention flipped = as_read == QuaternionConvention::Lattice
                                           ? QuaternionConvention::Particle
                                           : QuaternionConvention::Lattice;
  say("mtip: quaternion convention check: half-set agreement %.3f as %s, %.3f as %s\n", score[0],
      convention_name(as_read), score[1], convention_name(flipped));
  // A clear win only. The wrong convention does not score 0: it puts image j's data at
  // R_j^T p, where the truth is I(R_j^2 y), and R^2 of a uniform R clusters near the identity
  // (angle 2 theta, theta mostly near pi), so its halves share a blurred model (0.33 against
  // 0.76 on the demo's data, where random orientations give 0.02). With data too noisy for either, both stay low and nothing is said.
  if (score[1] > score[0] + 0.1 && score[1] > 1.25 * score[0]) {
    const std::string msg =
        std::string("the file's orientations are not in the ") + convention_name(as_read) +
        " convention: two half data sets merged at them agree " + std::to_string(score[0]) +
        " (half-set shell correlation), at their conjugates " + std::to_string(score[1]) +
        "; rerun with --quaternion " + convention_name(flipped) +
        " (skopi's and spinifel's quaternions rotate the particle: 'particle')";
    if (ro_.check_convention) {
      dist::detail::agreed(comm_, [&] { throw Error(ErrorCode::InvalidArgument, msg); });
    }
    warn("%s\n", msg.c_str());
  }
}

#define NUFFTMP_RUN_HALFSETS(T)                                                           \
  template ShellCurve Run<T>::half_set_curve();                                          \
  template void Run<T>::free_correlation(GenerationReport&);                             \
  template void Run<T>::convergence_stage(GenerationReport&, const std::vector<double>&); \
  template void Run<T>::check_convention();
NUFFTMP_RUN_HALFSETS(float)
NUFFTMP_RUN_HALFSETS(double)
#undef NUFFTMP_RUN_HALFSETS

}  // namespace nufftmp::mtip::detail
