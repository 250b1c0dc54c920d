// The scores of a generation against the ground truth (reconstruct_run.hpp), rank 0's work
// broadcast to every rank. From unknown orientations the model lives in a frame of its own:
// the global rotation g of the orientations against the true ones (q_rec = g q_true for all
// images when matching has converged) is undone first. The truth is a density (density and
// intensity scores) or an intensity only (a complex diffraction field: intensity scores);
// truth.hpp says which and why.
#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

template <typename T>
void Run<T>::score_stage(GenerationReport& g, const std::vector<double>& all_orient,
                         std::vector<double>& aligned) {
  const std::int64_t M = in_.M;
  const TruthModel& truth = in_.truth_model;
  // correlation, intensity correlation, anisotropic one, orientation error, frame agreement,
  // the other convention's frame agreement
  double stats[6] = {-2, -2, -2, -1, 0, 0};
  dist::detail::agreed(comm_, [&] {
    fault_point("score", rank_);
    if (rank_ != 0) return;
    Quaternion frame;  // identity
    const bool have_orient = in_.all_truth_orient.size() == all_orient.size();
    if (!ro_.known_orientations && have_orient && !all_orient.empty()) {
      const auto rec = unpack_orientations(all_orient), tru = unpack_orientations(in_.all_truth_orient);
      const FrameFit fit = fit_frame(rec, tru);
      frame = fit.frame, stats[3] = fit.median_error_deg, stats[4] = fit.agreement;
      // The true orientations read in the other convention: a frame they agree on far better
      // says the file's convention was misread.
      std::vector<Quaternion> other(tru.size());
      for (std::size_t i = 0; i < tru.size(); ++i) other[i] = quat_conjugate(tru[i]);
      stats[5] = fit_frame(rec, other).agreement;
    } else if (ro_.known_orientations) {
      stats[3] = 0, stats[4] = 1;
    }
    if (truth.kind == TruthModel::Kind::None) return;
    if (truth.kind == TruthModel::Kind::Density) {
      const bool rotate = !ro_.known_orientations && have_orient;
      stats[0] = aligned_correlation(rotate ? rotate_density(st_.density, M, frame) : st_.density,
                                     in_.truth, M, &aligned);
    }
    const TruthIntensityScores s =
        truth_intensity_scores(st_.ac, M, in_.scale, frame, truth, in_.q_low);
    stats[1] = s.isotropic;
    stats[2] = s.anisotropic;
  });
  dist::detail::bcast(comm_, stats, 6, 0);
  g.correlation = stats[0];
  g.intensity_correlation = stats[1];
  g.anisotropic_correlation = stats[2];
  g.orientation_error_deg = stats[3];
  g.frame_agreement = stats[4];
  // Judged once matching has had a few rounds (at random orientations both are ~0.25).
  if (!warned_convention_ && g.generation >= 4 && stats[5] > 0.8 && stats[4] < 0.5) {
    warned_convention_ = true;
    warn("the file's true orientations agree with the reconstruction's only when read in the "
         "other quaternion convention (frame agreement %.2f against %.2f): the scores against "
         "them are meaningless; rerun with --quaternion %s\n",
         stats[5], stats[4],
         convention_name(in_.convention == QuaternionConvention::Lattice
                             ? QuaternionConvention::Particle
                             : QuaternionConvention::Lattice));
  }
}

template void Run<float>::score_stage(GenerationReport&, const std::vector<double>&,
                                      std::vector<double>&);
template void Run<double>::score_stage(GenerationReport&, const std::vector<double>&,
                                       std::vector<double>&);

}  // namespace nufftmp::mtip::detail
