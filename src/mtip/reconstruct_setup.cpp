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
    if (!(ro.free_fraction >= 0 && ro.free_fraction < 0.5))
      throw Error(ErrorCode::InvalidArgument,
                  "free fraction = " + std::to_string(ro.free_fraction) + " (in [0, 0.5))");
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
  // A complex volume is a diffraction field on a mesh of its own: it does not give M.
  in_.M = ro_.M > 0 ? ro_.M : (info.has_volume && !info.volume_complex ? info.volume_M : 33);
  check_options();
  const std::int64_t M = in_.M;
  // Output, checkpoint and best generation's file checked and locked before any work (see
  // run_outputs.hpp).
  in_.checkpoint = ro_.checkpoint.empty() ? ro_.output + ".ckpt.h5" : ro_.checkpoint;
  if (!ro_.best_output.empty()) {
    in_.best_output = ro_.best_output;
  } else {
    const std::string& o = ro_.output;
    const bool h5 = o.size() > 3 && o.compare(o.size() - 3, 3, ".h5") == 0;
    in_.best_output = (h5 ? o.substr(0, o.size() - 3) : o) + ".best.h5";
  }
  agreed(comm_, [&] {
    if (rank_ == 0) in_.outputs = RunOutputs(ro_, in_.checkpoint, in_.best_output);
  });
  in_.convention = ro_.quaternion.value_or(info.file_convention);
  say("mtip: %s\n", info.summary.c_str());
  // True orientations, when the file has them, also serve to judge a reconstruction from
  // unknown ones (its frame is arbitrary: see the scores).
  in_.local = read_local_images(comm_, ro_.input, info,
                                ro_.known_orientations || info.has_orientations, in_.convention);
  in_.nloc = in_.local.share.count;
  warn_negative_intensities(comm_, ro_.input, in_.local, info.npix());
  if (rank_ == 0) in_.identity = run_identity(ro_, M, info, in_.local);
  // The lattice's scale and voxel come from the whole detector (masked pixels included): they
  // are facts of its geometry, as skopi's mesh of the truth is.
  in_.scale = reciprocal_scale(in_.local.positions);
  in_.q_max = 3.14159265358979323846 * (1 - 1e-6) / in_.scale;
  in_.voxel = in_.scale / (2 * 3.14159265358979323846);
  in_.truth_model = read_truth(comm_, ro_.input, info, M, in_.scale, in_.q_max);
  if (in_.truth_model.kind == TruthModel::Kind::Density) in_.truth = in_.truth_model.density;
  if (!in_.truth_model.note.empty()) say("mtip: %s\n", in_.truth_model.note.c_str());
  // Mask and correction: the masked pixels leave the pixel list here, for every stage.
  in_.pixels = read_pixel_corrections(comm_, ro_.input, info, in_.local.positions, ro_.corrections);
  say("mtip: detector: %s\n", in_.pixels.summary.c_str());
  remove_masked_pixels(in_.pixels, in_.local.positions, in_.local.intensities, in_.nloc);
  in_.npix = in_.pixels.kept;
  in_.correction = kept_correction(in_.pixels);
  split_free_pixels();
  if (!in_.correction.empty()) {
    const std::int64_t npix = in_.npix;
    in_.corrected.resize(in_.local.intensities.size());
    for (std::int64_t i = 0; i < in_.nloc; ++i)
      for (std::int64_t p = 0; p < npix; ++p)
        in_.corrected[i * npix + p] =
            static_cast<float>(in_.local.intensities[i * npix + p] / in_.correction[p]);
  }
  std::vector<double> mine;
  for (const auto& q : in_.local.orientations) mine.insert(mine.end(), {q.w, q.x, q.y, q.z});
  in_.all_truth_orient =
      dist::gather_to_root(*ctx_, mine.data(), static_cast<std::int64_t>(mine.size()));
  // The half sets: parity of the image's index in the file (independent of the ranks).
  for (std::int64_t i = 0; i < in_.nloc; ++i)
    half_[(in_.local.share.first + i) % 2].push_back(i);
  say("mtip: %lld images of %lld pixels on %d ranks, M = %lld (voxel %.4g A), %s orientations "
      "(%s convention), %s precision\n",
      (long long)info.n_images, (long long)in_.npix, size_, (long long)M, in_.voxel,
      ro_.known_orientations ? "known" : "unknown", convention_name(in_.convention),
      sizeof(T) == 4 ? "float" : "double");
  // |q| of each pixel, as a fraction of the largest: the resolution ramp's mask.
  const std::int64_t npix = in_.npix;
  in_.qfrac.assign(static_cast<std::size_t>(npix), 0.0);
  const double* q = in_.local.positions.data();
  in_.q_low = in_.q_max;
  for (std::int64_t p = 0; p < npix; ++p) {
    const double r = std::sqrt(q[p] * q[p] + q[npix + p] * q[npix + p] +
                               q[2 * npix + p] * q[2 * npix + p]);
    in_.qfrac[p] = r / in_.q_max;
    in_.q_low = std::min(in_.q_low, r);
  }
  // The preconditioner where it pays: the kept pixels must reach the centre (within 1.5
  // lattice shells); behind a beam stop the circulant misjudges the unmeasured centre.
  merge_opts_ = ro_.merge;
  const double hole = in_.q_low * in_.scale * static_cast<double>(M) / (2 * 3.14159265358979323846);
  merge_opts_.precondition = ro_.cg_precondition.value_or(hole < 1.5);
}

// The free pixels: a fixed pseudo-random free_fraction of the kept ones (splitmix64 of the pixel
// index, so every rank and every run picks the same), moved out of the pixel list with their
// data (corrected by C_p when there is a correction).
template <typename T>
void Run<T>::split_free_pixels() {
  const std::int64_t npix = in_.npix, nloc = in_.nloc;
  if (!(ro_.free_fraction > 0) || npix < 2) return;
  PixelCorrections split;
  split.keep.assign(static_cast<std::size_t>(npix), 1);
  std::int64_t nfree = 0;
  for (std::int64_t p = 0; p < npix; ++p) {
    std::uint64_t z = static_cast<std::uint64_t>(p) + 0x9e3779b97f4a7c15ull * (ro_.seed + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    if (static_cast<double>(z >> 11) * 0x1.0p-53 < ro_.free_fraction) split.keep[p] = 0, ++nfree;
  }
  if (nfree == 0 || nfree == npix) return;
  split.kept = npix - nfree;
  in_.nfree = nfree;
  in_.free_positions.reserve(static_cast<std::size_t>(3 * nfree));
  for (int c = 0; c < 3; ++c)
    for (std::int64_t p = 0; p < npix; ++p)
      if (!split.keep[p]) in_.free_positions.push_back(in_.local.positions[c * npix + p]);
  in_.free_data.resize(static_cast<std::size_t>(nloc * nfree));
  in_.free_counts = true;
  for (std::int64_t p = 0; p < npix; ++p)
    if (!split.keep[p]) in_.free_correction.push_back(in_.correction.empty() ? 1.0 : in_.correction[p]);
  for (std::int64_t i = 0; i < nloc; ++i)
    for (std::int64_t p = 0, j = 0; p < npix; ++p)
      if (!split.keep[p]) {
        const float b = in_.local.intensities[i * npix + p];
        in_.free_counts = in_.free_counts && b >= 0 && b == std::floor(b);
        in_.free_data[i * nfree + j] = static_cast<float>(b / in_.free_correction[j]);
        ++j;
      }
  remove_masked_pixels(split, in_.local.positions, in_.local.intensities, nloc);
  if (!in_.correction.empty()) {
    std::vector<double> c;
    for (std::int64_t p = 0; p < npix; ++p)
      if (split.keep[p]) c.push_back(in_.correction[p]);
    in_.correction = std::move(c);
  }
  in_.npix = split.kept;
  say("mtip: %lld free pixels (%.0f%%) held out of matching and merging for the free "
      "correlation\n",
      (long long)nfree, 100.0 * static_cast<double>(nfree) / static_cast<double>(npix));
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
    // The best generation so far, so that a worse one after the restart does not replace it.
    agreed(comm_, [&] {
      if (!std::ifstream(in_.best_output).good()) return;
      const double free = read_attribute(in_.best_output, "free_correlation");
      st_.best_fsc_mean = free > -2 ? free : read_attribute(in_.best_output, "fsc_mean");
      st_.best_generation = static_cast<int>(read_attribute(in_.best_output, "generation"));
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
  template void Run<T>::split_free_pixels();   \
  template void Run<T>::read_inputs();         \
  template bool Run<T>::start_state();
NUFFTMP_RUN_SETUP(float)
NUFFTMP_RUN_SETUP(double)
#undef NUFFTMP_RUN_SETUP

}  // namespace nufftmp::mtip::detail
