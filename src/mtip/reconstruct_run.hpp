// The M-TIP loop of reconstruct() as an object: what a run reads once, the state it carries
// from generation to generation, and one member per stage. Internal to src/mtip; the stages
// live in files named after them:
//   reconstruct_setup.cpp   options check, input, true model, start orientations (or resume)
//   reconstruct_assign.cpp  the resolution ramp, orientation matching rounds, merging
//   reconstruct_phase.cpp   phasing (fresh starts shared out among the ranks, the best kept)
//   reconstruct_halfsets.cpp  the truth-free measures: half-set merges, their shell correlation,
//                           the orientations' change; the quaternion convention's check
//   reconstruct_score.cpp   the comparison with the ground truth
//   reconstruct_output.cpp  result and checkpoint files, the progress line
//   reconstruct.cpp         the generation loop and the public entry point
// The engine-dependent work (matching, merging, phasing on the host or a GPU) is a
// GenerationEngine's (generation_engine.hpp), made once per run.
// Every stage is collective over the run's communicator: an error on one rank stops every
// rank (dist::detail::agreed), so no rank waits in a collective the failed one never enters.
#pragma once

#include <mpi.h>

#include <limits>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "fault_injection.hpp"
#include "checkpoint_identity.hpp"
#include "generation_engine.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/mtip.hpp"
#include "run_outputs.hpp"
#include "stopwatch.hpp"

namespace nufftmp::mtip::detail {

// What a run reads once.
struct RunInputs {
  DataInfo info;
  QuaternionConvention convention = QuaternionConvention::Lattice;  // of the file's quaternions
  std::int64_t M = 0, npix = 0, nloc = 0;  // npix: the pixels kept by the mask
  // local.intensities: the counts as read (kept pixels); local.positions: kept pixels, 1/A.
  LocalImages local;
  PixelCorrections pixels;
  std::vector<double> correction;  // C_p of the kept pixels, mean 1 (empty: none)
  std::vector<float> corrected;    // local.intensities / C_p (empty without a correction)
  TruthModel truth_model;
  std::vector<double> truth;       // the true density on M^3 when the truth is one, else empty
  std::vector<double> all_truth_orient;  // every image's true orientation on rank 0 (w,x,y,z)
  double scale = 0, q_max = 0, voxel = 0;  // voxel: Angstrom, of the M^3 lattice
  double q_low = 0;  // the smallest |q| of the kept pixels (1/Angstrom)
  // Free pixels (ReconstructOptions::free_fraction): left out of the pixel list above; their
  // positions [3, nfree] and data [nloc, nfree] (corrected when there is a correction).
  std::int64_t nfree = 0;
  std::vector<double> free_positions;
  std::vector<float> free_data;
  std::vector<double> free_correction;  // C_p of the free pixels (ones without a correction)
  bool free_counts = false;             // this rank's free data are whole numbers (photons)
  std::string checkpoint, best_output;
  std::vector<double> qfrac;  // |q| of each pixel as a fraction of the largest
  RunIdentity identity;       // rank 0's (the writer's): input and settings (checkpoint_identity)
  RunOutputs outputs;         // rank 0: the result, checkpoint and best files, checked and locked
  // The data the least squares see: corrected when there is a correction, else as read.
  const float* ls_images() const {
    return corrected.empty() ? local.intensities.data() : corrected.data();
  }
};

// Orientations as gathered (w, x, y, z per image) back to quaternions.
inline std::vector<Quaternion> unpack_orientations(const std::vector<double>& v) {
  std::vector<Quaternion> q(v.size() / 4);
  for (std::size_t i = 0; i < q.size(); ++i)
    q[i] = {v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]};
  return q;
}

// Which images a merge takes: all, or one half set (even / odd index in the file).
enum class ImageSet { All, HalfA, HalfB };

// What a generation hands to the next.
template <typename T>
struct RunState {
  int generation = 0;
  std::vector<double> ac, density;
  std::vector<char> support;
  std::vector<Quaternion> orientations;  // this rank's images (the best match of each)
  // Soft assignment (soft_k > 1, after a match): the n_soft references used by this rank's
  // images, each with its weight (sum of the images' weights there) and the weighted mean
  // image. soft = false: merge each image at its one orientation above, weight 1.
  bool soft = false;
  std::int64_t n_soft = 0;
  std::vector<Quaternion> soft_orient;
  // Per half set (0: even file index, 1: odd) and used reference: the sum of the images'
  // weights, and the weighted sum of their (corrected) images [n_soft, npix].
  std::vector<double> soft_weight[2];
  std::vector<double> soft_sum[2];
  // Best generation by the truth-free measure (free correlation, else half-set FSC mean).
  double best_fsc_mean = -3;
  int best_generation = 0;
  std::vector<double> prev_orient;  // rank 0: every image's orientation last generation
};

template <typename T>
class Run {
 public:
  Run(MPI_Comm comm, const ReconstructOptions& ro);
  std::vector<GenerationReport> generations();

 private:
  // reconstruct_setup.cpp
  void check_options() const;
  void read_inputs();
  // False when a resumed run has nothing left to do.
  bool start_state();
  void split_free_pixels();
  // reconstruct_assign.cpp
  void match_stage(int gen, GenerationReport& g);
  void match_once(const std::vector<double>& model, const MatchOptions& mopts, MatchReport& mr,
                  int gen);
  void soft_assignment(const TopMatches& top, int gen);
  void merge_stage(GenerationReport& g);
  void merge_now();
  // One merge of `which` images at their current orientations (or soft assignment) into ac;
  // counts a CG stopped at its cap (with a warning) into capped_.
  MergeReport merge_images(ImageSet which, std::vector<double>& ac);
  // reconstruct_halfsets.cpp
  void convergence_stage(GenerationReport& g, const std::vector<double>& all_orient);
  ShellCurve half_set_curve();
  void free_correlation(GenerationReport& g);
  void check_convention();
  // reconstruct_phase.cpp
  void phase_stage(GenerationReport& g);
  // reconstruct_score.cpp: the scores of g against the truth (rank 0's work, then broadcast);
  // all_orient: every image's orientation on rank 0; aligned: the density in the truth's frame.
  void score_stage(GenerationReport& g, const std::vector<double>& all_orient,
                   std::vector<double>& aligned);
  // reconstruct_output.cpp
  void write_stage(const GenerationReport& g, const std::vector<double>& all_orient,
                   const std::vector<double>& aligned);
  void report_line(const GenerationReport& g) const;
  template <typename... A>
  void say(const char* fmt, A... args) const;
  template <typename... A>
  void warn(const char* fmt, A... args) const;

  MPI_Comm comm_;
  const ReconstructOptions& ro_;
  int rank_ = 0, size_ = 1;
  RunInputs in_;
  RunState<T> st_;
  std::unique_ptr<dist::Context> ctx_;  // one distributed-NUFFT context for the run
  // Matching, merging and phasing on the context's engine, kept for the run (the GPU one
  // holds this rank's images on the device).
  std::unique_ptr<GenerationEngine<T>> engine_;
  std::vector<Quaternion> refs_;        // of the current generation's size (see the ramp)
  std::vector<std::int64_t> half_[2];   // this rank's images of each half set (local index)
  int capped_ = 0, merges_ = 0;         // merges of this generation: stopped at the CG's cap, all
  double capped_residual_ = 0;          // the largest residual of those stopped at the cap
  // The free correlation's slicer, made once for the run (its plan, on GPUs a cuFFT plan and
  // the fine grid, was made every generation); its points change every generation.
  std::unique_ptr<Slicer<T>> free_slicer_;
  ShellCurve known_curve_;              // the half-set curve (merged once with known orientations)
  bool known_curve_valid_ = false;
  bool warned_convention_ = false;
  std::vector<double> history_;         // the generations' rows of the output's history table
  bool merged_known_ = false;
  MergeReport last_merge_;
  MergeOptions merge_opts_;             // ro_.merge with the preconditioner decided (setup)
  double merge_nufft_ms_ = 0;  // NUFFT time of the merges since the generation began
};

// Progress lines: rank 0 only, when verbose.
template <typename T>
template <typename... A>
void Run<T>::say(const char* fmt, A... args) const {
  if (!ro_.verbose || rank_ != 0) return;
  std::printf(fmt, args...);
  std::fflush(stdout);
}

// Warnings: rank 0 only, on stderr, quiet or not.
template <typename T>
template <typename... A>
void Run<T>::warn(const char* fmt, A... args) const {
  if (rank_ != 0) return;
  std::fprintf(stderr, "mtip: warning: ");
  std::fprintf(stderr, fmt, args...);
  std::fflush(stderr);
}

}  // namespace nufftmp::mtip::detail
