// The M-TIP loop (reconstruct.cpp): generations of orientation matching, merging and
// phasing over the images of every rank, with results and a checkpoint written each generation.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nufftmp/mtip/corrections.hpp"
#include "nufftmp/mtip/io.hpp"
#include "nufftmp/mtip/matching.hpp"
#include "nufftmp/mtip/merging.hpp"
#include "nufftmp/mtip/phasing.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

struct ReconstructOptions {
  std::string input, output, checkpoint;  // checkpoint "" = <output>.ckpt.h5
  bool known_orientations = false;
  // What the file's quaternions rotate (io.hpp): empty = the file's convention (its layout's, or
  // its attribute quaternion_convention). With orientations in use (known ones, or true ones
  // for the scores) the choice is checked: two half data sets merged at the orientations as
  // read and as their conjugates give the half-set shell correlation of each; a clear win of
  // the other convention stops a known-orientation run with an error naming both numbers
  // (check_convention = false: warn only), and a frame agreement of the true orientations
  // that only the other convention reaches is reported as a warning.
  std::optional<QuaternionConvention> quaternion;
  bool check_convention = true;
  // Detector mask and correction (corrections.hpp): masked pixels leave the pixel list before
  // anything runs; the correction C_p enters as corrected data b / C_p with weights C_p in
  // least squares, as the exposure in the Poisson likelihood.
  CorrectionOptions corrections;
  // The half-set convergence measure each generation: the images split by parity of their
  // index in the file, each half merged at its orientations, and the shell correlation of the
  // two intensities (convergence.hpp; two extra merges of half the points). The halves share
  // the orientations' source - matching against the model of all images - so they agree
  // whenever the assignment is self-consistent, right or not (measured: 0.89 at orientations
  // no better than random; docs/performance.md): read it with the free correlation below. The
  // best generation (by the free correlation, else by this mean over shells) is written to
  // best_output ("" = <output without .h5>.best.h5) beside the last one in output.
  bool half_sets = true;
  std::string best_output;
  // The half merges' CG tolerance: the shell correlation needs no 1e-6. They start from zero,
  // so a direction the CG has not converged is missing from both halves, never copied into
  // both from a common start (which would inflate their agreement).
  double half_set_tol = 1e-4;
  // Free pixels (crystallography's R_free): this fraction of the detector's pixels (a fixed
  // pseudo-random choice) never enters matching or merging; each generation the model's slices
  // at the images' orientations predict them, and the correlation with their data (each pixel's
  // mean over the images removed: the radial profile) is the free correlation. It needs no
  // truth and, unlike the half-set FSC, cannot be raised by fitting noise: nothing the model
  // was built from saw those pixels. It picks the best generation. 0: off.
  double free_fraction = 0.05;
  // The merge's circulant preconditioner (MergeOptions::precondition): empty = where it pays,
  // i.e. unless the kept pixels leave a hole at the centre of reciprocal space (a beam stop):
  // measured there (see docs/performance.md) it slows the CG instead. Set, it overrides
  // merge.precondition.
  std::optional<bool> cg_precondition;
  int generations = 5;
  std::int64_t M = 0;  // 0: volume size of the input if present, else 33
  // Reference orientations at full resolution. Hard matching snaps each image to its nearest
  // reference, so the set's spacing should approach the speckle's angular size at the edge of
  // the detector (about 2 / M radians): on the CPU demo (M = 33), 2000 references (covering
  // angle 16 deg) phase at best to 0.92 even with the true orientations snapped to them and
  // confuse a fifth of the images with their Friedel twin (rotated 180 deg about the beam);
  // 20000 (7 deg) reach 0.97, as the true orientations do.
  std::int64_t n_ref = 20000;
  // Soft assignment: each image is merged at its soft_k best orientations, weighted by
  // soft_weights with a temperature going geometrically from soft_temp_start (generation 2,
  // the first match) to soft_temp_end (last generation), in units of the mean over all images
  // of the spread cost_{k-1} - cost_0 (scale-free). soft_k = 1: hard best match.
  // Off by default: the numbers once recorded against it (0.63-0.81 on the CPU demo, as hard
  // matching) were taken matching against the phased model with 2000 references, and measured
  // without undoing the frame rotation; hard matching against the merged model converges (see
  // n_ref, match_iterations, match_phased). Kept for experiments: the merge takes it at any k
  // for the cost of one slice per used reference.
  // With the Poisson likelihood (match.likelihood) the temperatures are absolute, in nats:
  // 1 = the posterior of EMC (cost differences are log-likelihood ratios), > 1 broader.
  std::int64_t soft_k = 1;
  double soft_temp_start = 1.0, soft_temp_end = 0.2;
  // Resolution ramp: generation 2 (the first match) matches only the pixels with
  // |q| <= q_ramp_start * q_max, and the cut rises linearly to q_max over q_ramp_generations
  // matching generations (-1: the first two thirds of them; 1.0 or 0: every pixel from the
  // start). Low q first: few, wide minima that a coarse reference set resolves, so the early
  // rounds are cheap and the model's envelope settles before its detail is asked for.
  double q_ramp_start = 0.3;
  int q_ramp_generations = -1;
  // The orientations an image's cut can tell apart scale as 1 / q: with the ramp the reference
  // set grows as (cut / q_max)^3 up to n_ref, from at least n_ref_min.
  std::int64_t n_ref_min = 500;
  // Match and merge this many times per generation before phasing. From a random start the
  // assignment needs tens of match/merge rounds to lock in (hard assignment is an EM-like
  // fixed-point iteration); phasing between each would only cost time.
  int match_iterations = 3;
  // Model the images are matched against: the merged autocorrelation (false, default) or the
  // phased density's autocorrelation (true). Early on the merge is inconsistent and phasing
  // it fails (Fourier error 0.3-0.4): its autocorrelation is then further from the data than
  // the merge, and matching against it never left random orientations on the CPU demo.
  bool match_phased = false;
  // A fresh run refuses to replace an existing output or checkpoint unless overwrite is set;
  // resume continues both (see README, "Outputs and checkpoints").
  bool resume = false;
  bool overwrite = false;
  bool use_double = false;
  MergeOptions merge;
  PhaseOptions phase;
  // Phasing of each generation: phase_starts independent fresh starts from the generation's
  // merged model (start s seeded phase.seed + 104729 s) and, after the first generation, one
  // continuation from the previous density, all shared out among the ranks (the outcome does
  // not depend on their number); the lowest Fourier error wins, or with phase_average the
  // mean of all of them aligned to the winner (translation, inversion). phase_continue: the
  // earlier scheme instead - fresh starts in the first generation only, then each generation
  // continues from the previous density alone. It stays in the basin of an early, poor model:
  // on the CPU demo (scripts/mtip_demo.sh, data seeds 11-14) its final densities were
  // 0.82-0.89 where fresh starts from the same final model reach 0.94-0.98
  // (docs/performance.md, M-TIP section).
  // (phase.attempts is not used by the loop: phase_starts counts its starts.)
  int phase_starts = 4;
  bool phase_average = false;
  bool phase_continue = false;
  MatchOptions match;
  Options nufft;
  std::uint64_t seed = 7;
  bool verbose = true;  // progress lines on rank 0
};
struct GenerationReport {
  int generation = 0;
  Backend engine = Backend::Cpu;  // the engine of matching, merging and phasing
  // slicing_ms: the reference slices of matching (type 2 NUFFTs); matching_ms: the rest of
  // matching (products, selection, and the intermediate merges of several match rounds).
  double slicing_ms = 0, matching_ms = 0, merging_ms = 0, phasing_ms = 0;
  double halfset_ms = 0;  // the two half-set merges and their shell correlation
  // Time in NUFFTs (set_points and execute) within the three stages above: the reference
  // slices and every merge's two type 1 transforms.
  double nufft_ms = 0;
  // The truth-free measures and the scores against the truth (rank 0), and the result,
  // checkpoint and best-generation files (rank 0, durable writes).
  double scoring_ms = 0, files_ms = 0;
  // The whole generation: the stages above, the scores and the files.
  double total_ms = 0;
  int cg_iterations = 0;
  double cg_residual = 0, fourier_error = 0;
  // Density correlation with the ground truth when present, else -2: aligned over translation
  // and inversion and, from unknown orientations, over the frame (the global rotation of the
  // reconstructed orientations against the file's true ones, when the file has them).
  double correlation = -2;
  // Intensity (|k|^2-weighted Pearson over the ball |k| <= M/2) in the same frame, -2 if no truth.
  // It is ruled by the radial profile (a spherical average scores 0.82); the anisotropic one
  // removes each shell's mean first, so only orientations that agree with the truth score.
  double intensity_correlation = -2, anisotropic_correlation = -2;
  // Truth-free (half_sets): the half-set shell correlation (convergence.hpp) per shell of
  // |k| = 0 .. M/2, its mean over shells 1.., and the resolution (Angstrom, M voxel / shell)
  // where it falls below 0.5 and 0.143 (-1: no half sets).
  std::vector<double> fsc;
  double fsc_mean = -2, resolution_fsc05 = -1, resolution_fsc0143 = -1;
  // Median angle (degrees) between each image's orientation in this and the previous
  // generation, the global rotation between the two removed (the frame is arbitrary; -1: none
  // before, or known orientations).
  double orientation_change_deg = -1;
  // Free correlation (see free_fraction; -2: off), its noise level 1 / sqrt(samples), and, for
  // photon counts, the ceiling a perfect model would reach given the Poisson noise (-1: data
  // not counts).
  double free_correlation = -2, free_sigma = 0, free_ceiling = -1;
  // Merges of this generation whose CG stopped at merge.max_iter above merge.tol (each one
  // also printed as a warning on rank 0).
  int cg_capped = 0;
  // Median angle (degrees) between each image's orientation and its truth after removing the
  // global rotation (-1 without true orientations), and the frame agreement (1: one common
  // rotation for every image; 0.25: none).
  double orientation_error_deg = -1, frame_agreement = 0;
  std::int64_t n_ref = 0;   // references matched against this generation (0: none)
  double q_cut = 0;         // matched pixels' |q| limit, fraction of q_max
};
// Collective. Runs the generations, writes output (and the checkpoint) every generation.
std::vector<GenerationReport> reconstruct(MPI_Comm comm, const ReconstructOptions& ropts);

}  // namespace nufftmp::mtip
