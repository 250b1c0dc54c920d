// The set-up stages of a reconstruction (reconstruct_run.hpp): the options checked on every
// rank, the input read (each rank its share of the images), the true model when the file has
// one, and the start: a checkpoint (resume), the file's orientations, or random ones.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "input_warnings.hpp"
#include "reconstruct_run.hpp"

namespace nufftmp::mtip::detail {

using dist::detail::agreed;

template <typename T>
void Run<T>::check_options() const {
  const ReconstructOptions& ro = ro_;
  const std::int64_t M = in_.M;
  agreed(comm_, [&] {
    if (ro.generations < 1)
      throw Error(ErrorCode::InvalidArgument, "generations = " + std::to_string(ro.generations));
    if (M < 5) throw Error(ErrorCode::InvalidArgument, "M = " + std::to_string(M) + " (>= 5)");
    if (!ro.known_orientations && ro.soft_k > 1 &&
        !(ro.soft_temp_start > 0 && ro.soft_temp_end > 0))
      throw Error(ErrorCode::InvalidArgument, "soft assignment temperatures must be > 0");
    if (!ro.known_orientations && ro.n_ref < 1)
      throw Error(ErrorCode::InvalidArgument, "n-ref = " + std::to_string(ro.n_ref));
    if (!ro.known_orientations && ro.n_ref_min < 1)
      throw Error(ErrorCode::InvalidArgument, "n-ref-min = " + std::to_string(ro.n_ref_min));
    if (!(ro.q_ramp_start > 0 && ro.q_ramp_start <= 1) || ro.q_ramp_generations < -1)
      throw Error(ErrorCode::InvalidArgument,
                  "q ramp start = " + std::to_string(ro.q_ramp_start) + " (in (0, 1]), over " +
                      std::to_string(ro.q_ramp_generations) + " generations (>= 0, -1: auto)");
    if (ro.phase_starts < 1)
      throw Error(ErrorCode::InvalidArgument,
                  "phase starts = " + std::to_string(ro.phase_starts) + " (>= 1)");
    if (ro.match_iterations < 1)
      throw Error(ErrorCode::InvalidArgument,
                  "match iterations = " + std::to_string(ro.match_iterations) + " (>= 1)");
    if (ro.resume && ro.overwrite)
      throw Error(ErrorCode::InvalidArgument, "--resume and --overwrite exclude each other");
  });
}

template <typename T>
void Run<T>::read_inputs() {
  in_.info = probe_data(comm_, ro_.input);
  const DataInfo& info = in_.info;
  in_.M = ro_.M > 0 ? ro_.M : (info.has_volume ? info.volume_M : 33);
  check_options();
  const std::int64_t M = in_.M;
  // Output and checkpoint checked and locked before any work (see run_outputs.hpp).
  in_.checkpoint = ro_.checkpoint.empty() ? ro_.output + ".ckpt.h5" : ro_.checkpoint;
  agreed(comm_, [&] {
    if (rank_ == 0) in_.outputs = RunOutputs(ro_, in_.checkpoint);
  });
  // True orientations, when the file has them, also serve to judge a reconstruction from
  // unknown ones (its frame is arbitrary: see the scores).
  in_.local =
      read_local_images(comm_, ro_.input, info, ro_.known_orientations || info.has_orientations);
  if (info.has_volume && info.volume_M == M) {
    in_.truth = read_volume(comm_, ro_.input);
    if (rank_ == 0) in_.truth_ac = autocorrelation(in_.truth, M);  // the scores are rank 0's
  }
  std::vector<double> mine;
  for (const auto& q : in_.local.orientations) mine.insert(mine.end(), {q.w, q.x, q.y, q.z});
  in_.all_truth_orient =
      dist::gather_to_root(*ctx_, mine.data(), static_cast<std::int64_t>(mine.size()));
  in_.scale = reciprocal_scale(in_.local.positions);
  in_.npix = info.nx * info.ny;
  in_.nloc = in_.local.share.count;
  warn_negative_intensities(comm_, ro_.input, in_.local, in_.npix);
  if (rank_ == 0) in_.identity = run_identity(ro_, M, info, in_.local);
  say("mtip: %lld images of %lld x %lld on %d ranks, M = %lld, %s orientations, %s precision\n",
      (long long)info.n_images, (long long)info.ny, (long long)info.nx, size_, (long long)M,
      ro_.known_orientations ? "known" : "unknown", sizeof(T) == 4 ? "float" : "double");
  // |q| of each pixel, as a fraction of the largest: the resolution ramp's mask.
  const std::int64_t npix = in_.npix;
  in_.qfrac.assign(static_cast<std::size_t>(npix), 0.0);
  double qmax = 0;
  const double* q = in_.local.positions.data();
  for (std::int64_t p = 0; p < npix; ++p) {
    in_.qfrac[p] = std::sqrt(q[p] * q[p] + q[npix + p] * q[npix + p] +
                             q[2 * npix + p] * q[2 * npix + p]);
    qmax = std::max(qmax, in_.qfrac[p]);
  }
  if (qmax > 0)  // (all pixels at q = 0 is a degenerate detector: every cut keeps them)
    for (auto& v : in_.qfrac) v /= qmax;
}

template <typename T>
bool Run<T>::start_state() {
  const DataInfo& info = in_.info;
  const std::int64_t M = in_.M, nloc = in_.nloc, first = in_.local.share.first;
  const std::string& ckpt = in_.checkpoint;
  if (ro_.resume) {
    // The checkpoint's identity first (rank 0, which wrote it): another data set's or other
    // settings' checkpoint is refused for what it is, before any rank reads its contents.
    agreed(comm_, [&] {
      if (!std::ifstream(ckpt).good())
        throw Error(ErrorCode::IoFailure, "--resume: no checkpoint '" + ckpt + "'");
      if (rank_ == 0) check_identity(ckpt, in_.identity);
    });
    agreed(comm_, [&] {
      st_.generation = static_cast<int>(read_attribute(ckpt, "generation"));
      // Fewer generations than the checkpoint holds is a mistake (a typo, or the wrong
      // checkpoint); as many is a finished run resubmitted: nothing to do, said so.
      if (ro_.generations < st_.generation)
        throw Error(ErrorCode::InvalidArgument,
                    "--resume: checkpoint '" + ckpt + "' already holds generation " +
                        std::to_string(st_.generation) + ", more than --generations " +
                        std::to_string(ro_.generations) + " asks for (pass --generations " +
                        std::to_string(st_.generation + 1) + " or more to continue)");
      std::vector<std::int64_t> d;
      st_.ac = read_dataset(ckpt, "autocorrelation", &d);
      if (d != std::vector<std::int64_t>{M, M, M})
        throw Error(ErrorCode::IoFailure, "checkpoint '" + ckpt + "' is for another M");
      st_.density = read_dataset(ckpt, "density");
      const auto sup = read_dataset(ckpt, "support");
      st_.support.assign(sup.begin(), sup.end());
      const auto q = read_dataset(ckpt, "orientations", &d);
      if (d != std::vector<std::int64_t>{info.n_images, 4})
        throw Error(ErrorCode::IoFailure, "checkpoint '" + ckpt + "' is for another data set");
      for (std::int64_t i = 0; i < nloc; ++i) {
        const double* p = &q[4 * (first + i)];
        st_.orientations.push_back({p[0], p[1], p[2], p[3]});
      }
    });
    if (st_.generation == ro_.generations) {
      if (rank_ == 0)
        std::printf("mtip: nothing to do: checkpoint %s already holds generation %d of %d\n",
                    ckpt.c_str(), st_.generation, ro_.generations);
      return false;
    }
    say("mtip: resuming after generation %d from %s\n", st_.generation, ckpt.c_str());
  } else if (ro_.known_orientations) {
    st_.orientations = in_.local.orientations;
  } else {
    // One global sequence, so the start does not depend on the number of ranks.
    std::mt19937_64 rng(ro_.seed);
    for (std::int64_t i = 0; i < info.n_images; ++i) {
      const Quaternion q = random_quaternion(rng);
      if (i >= first && i < first + nloc) st_.orientations.push_back(q);
    }
  }
  return true;
}

#define NUFFTMP_RUN_SETUP(T)                   \
  template void Run<T>::check_options() const; \
  template void Run<T>::read_inputs();         \
  template bool Run<T>::start_state();
NUFFTMP_RUN_SETUP(float)
NUFFTMP_RUN_SETUP(double)
#undef NUFFTMP_RUN_SETUP

}  // namespace nufftmp::mtip::detail
