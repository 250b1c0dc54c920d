// The scores of a generation against the ground truth (reconstruct_run.hpp), rank 0's work
// broadcast to every rank. From unknown orientations the model lives in a frame of its own:
// the global rotation g of the orientations against the true ones (q_rec = g q_true for all
// images when matching has converged) is undone first.
#include <algorithm>

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

template <typename T>
void Run<T>::score_stage(GenerationReport& g, const std::vector<double>& all_orient,
                         std::vector<double>& aligned) {
  const std::int64_t M = in_.M;
  // correlation, intensity correlation, orientation error, frame agreement
  double stats[4] = {-2, -2, -1, 0};
  dist::detail::agreed(comm_, [&] {
    fault_point("score", rank_);
    if (rank_ != 0 || in_.truth.empty()) return;
    Quaternion frame;  // identity
    if (!ro_.known_orientations && in_.all_truth_orient.size() == all_orient.size()) {
      const auto rec = unpack(all_orient), tru = unpack(in_.all_truth_orient);
      double mom[16] = {0};
      accumulate_rotation_moments(rec, tru, mom);
      frame = mean_rotation_from_moments(mom, &stats[3]);
      std::vector<double> err(rec.size());
      for (std::size_t i = 0; i < rec.size(); ++i)
        err[i] = quat_angle(rec[i], quat_multiply(frame, tru[i])) * 57.29577951308232;
      std::nth_element(err.begin(), err.begin() + err.size() / 2, err.end());
      stats[2] = err.empty() ? -1 : err[err.size() / 2];
      stats[0] = aligned_correlation(rotate_density(st_.density, M, frame), in_.truth, M, &aligned);
    } else {
      stats[0] = aligned_correlation(st_.density, in_.truth, M, &aligned);
      if (ro_.known_orientations) stats[2] = 0, stats[3] = 1;
    }
    stats[1] = rotated_intensity_correlation(st_.ac, in_.truth_ac, M, frame, true);
  });
  dist::detail::bcast(comm_, stats, 4, 0);
  g.correlation = stats[0];
  g.intensity_correlation = stats[1];
  g.orientation_error_deg = stats[2];
  g.frame_agreement = stats[3];
}

template void Run<float>::score_stage(GenerationReport&, const std::vector<double>&,
                                      std::vector<double>&);
template void Run<double>::score_stage(GenerationReport&, const std::vector<double>&,
                                       std::vector<double>&);

}  // namespace nufftmp::mtip::detail
