// The truth-free measures of a generation (reconstruct_run.hpp): the two half data sets (even
// and odd index in the file) merged separately at the current orientations and the shell
// correlation of their intensities, the orientations' change since the last generation; and
// the check of the quaternion convention, which uses the same half merges.
//
// The orientations come from matching every image against the whole model, so the two
// halves are not fully independent (a "gold standard" would match each half against its own
// model): the measure tells whether the assignment has become self-consistent, and stays near
// 0 for random orientations, whose halves share only the radial profile it removes.
#include <cmath>
#include <fstream>
#include <limits>

#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

namespace {
std::vector<Quaternion> unpack(const std::vector<double>& v) {
  std::vector<Quaternion> q(v.size() / 4);
  for (std::size_t i = 0; i < q.size(); ++i)
    q[i] = {v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
  return q;
}
}  // namespace

// The half-set curve of the current orientations: merges both halves (collective).
template <typename T>
ShellCurve Run<T>::half_set_curve() {
  std::vector<double> a, b;
  merge_images(ImageSet::HalfA, a);
  merge_images(ImageSet::HalfB, b);
  return shell_correlation(intensity_from_ac(a, in_.M), intensity_from_ac(b, in_.M), in_.M);
}

template <typename T>
void Run<T>::convergence_stage(GenerationReport& g, const std::vector<double>& all_orient) {
  const auto t0 = Clock::now();
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
      change = median_orientation_change(unpack(st_.prev_orient), unpack(all_orient));
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
  const std::size_t n = static_cast<std::size_t>(in_.nloc * in_.npix);
  x_.resize(n), y_.resize(n), z_.resize(n);
  data_.assign(in_.ls_images(), in_.ls_images() + n);
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
  template void Run<T>::convergence_stage(GenerationReport&, const std::vector<double>&); \
  template void Run<T>::check_convention();
NUFFTMP_RUN_HALFSETS(float)
NUFFTMP_RUN_HALFSETS(double)
#undef NUFFTMP_RUN_HALFSETS

}  // namespace nufftmp::mtip::detail
