// The M-TIP loop of reconstruct() as an object: what a run reads once, the state it carries
// from generation to generation, and one member per stage. Internal to src/mtip; the stages
// live in files named after them:
//   reconstruct_setup.cpp   options check, input, true model, start orientations (or resume)
//   reconstruct_assign.cpp  the resolution ramp, orientation matching rounds, merging
// The engine-dependent work (host or GPU) is a GenerationEngine's (generation_engine.hpp).
//   reconstruct_phase.cpp   phasing (every rank's own start when fresh, averaged)
//   reconstruct_score.cpp   the comparison with the ground truth
//   reconstruct_output.cpp  result and checkpoint files, the progress line
//   reconstruct.cpp         the generation loop and the public entry point
// Every stage is collective over the run's communicator: an error on one rank stops every
// rank (dist::detail::agreed), so no rank waits in a collective the failed one never enters.
#pragma once

#include <mpi.h>

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
  std::int64_t M = 0, npix = 0, nloc = 0;
  LocalImages local;
  std::vector<double> truth, truth_ac;  // truth_ac on rank 0 only (it computes the scores)
  std::vector<double> all_truth_orient;  // every image's true orientation on rank 0 (w,x,y,z)
  double scale = 0;
  std::string checkpoint;
  std::vector<double> qfrac;  // |q| of each pixel as a fraction of the largest
  RunIdentity identity;       // rank 0's (the writer's): input and settings (checkpoint_identity)
  RunOutputs outputs;         // rank 0: the result and checkpoint files, checked and locked
};

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
  std::vector<double> soft_weight;
  std::vector<T> soft_data;  // [n_soft, npix]
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
  // reconstruct_assign.cpp
  void match_stage(int gen, GenerationReport& g);
  void match_once(const std::vector<double>& model, const MatchOptions& mopts, MatchReport& mr,
                  int gen);
  void soft_assignment(const TopMatches& top, int gen);
  void merge_stage(GenerationReport& g);
  void merge_now();
  // reconstruct_phase.cpp
  void phase_stage(GenerationReport& g);
  // reconstruct_score.cpp: the scores of g against the truth (rank 0's work, then broadcast);
  // all_orient: every image's orientation on rank 0; aligned: the density in the truth's frame.
  void score_stage(GenerationReport& g, const std::vector<double>& all_orient,
                   std::vector<double>& aligned);
  // reconstruct_output.cpp
  void write_stage(const GenerationReport& g, const std::vector<double>& all_orient,
                   const std::vector<double>& aligned) const;
  void report_line(const GenerationReport& g) const;
  template <typename... A>
  void say(const char* fmt, A... args) const;

  MPI_Comm comm_;
  const ReconstructOptions& ro_;
  int rank_ = 0, size_ = 1;
  RunInputs in_;
  RunState<T> st_;
  std::unique_ptr<dist::Context> ctx_;  // one distributed-NUFFT context for the run
  // Matching, merging and phasing on the context's engine, kept for the run (the GPU one
  // holds this rank's images on the device).
  std::unique_ptr<GenerationEngine<T>> engine_;
  std::vector<Quaternion> refs_;  // of the current generation's size (see the ramp)
  bool merged_known_ = false;
  MergeReport last_merge_;
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

}  // namespace nufftmp::mtip::detail
