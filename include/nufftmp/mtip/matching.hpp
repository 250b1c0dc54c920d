// Orientation matching (matching.cpp; on the CUDA engine src/mtip/gpu): for each image the
// reference orientations whose model slices are nearest in (weighted) least squares.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "nufftmp/mtip/geometry.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

struct MatchOptions {
  std::int64_t batch = 256;  // reference slices computed at a time
  // Fit a scale per image and reference (min_a ||b - a s||^2, i.e. max (b.s)^2/||s||^2 with
  // b.s > 0): robust to a model whose overall scale is off, as early in the loop.
  bool fit_scale = false;
  double nufft_tol = 0;      // 0: 1e-5 (float) / 1e-9 (double)
  // Per-pixel weights w_p >= 0 (npix values, pixel order of the images; empty: all ones):
  // the cost becomes sum_p w_p (b_p - s_p)^2, so 0 masks a pixel (beam stop, dead pixels).
  std::vector<float> pixel_weights;
  // Also weight each pixel by 1 / (mean intensity of the images at that pixel, all ranks):
  // the Poisson variance. Unweighted least squares is ruled by the bright centre of the
  // pattern, which is nearly isotropic and says little about the orientation.
  bool poisson_weights = false;
  // The cost: least squares as above, or the Poisson negative log-likelihood of photon counts
  // (EMC's). Poisson: the images are photon counts b_p and pixel_weights the exposure e_p, the
  // photons expected per unit of model intensity (the detector correction C_p; 0 masks a
  // pixel); reference r costs
  //   -log L_r = sum_p e_p s_p - b_p log s_p    (+ terms that do not depend on r),
  // or with fit_scale, the image's scale fitted (fluence jitter): (sum b) log(sum e s) -
  // sum b log s. Cost differences are log-likelihood ratios: soft assignment at temperature 1
  // is the posterior over the references. s is clamped below at poisson_floor times the mean
  // intensity of the data (all ranks): a photon where the model has none is then expensive
  // but finite (it is model error as often as evidence). poisson_weights does not apply.
  // Poisson matching runs on the host path (its GEMM takes log s); its slices use opts'
  // engine, a GPU when opts says so.
  enum class Likelihood { LeastSquares, Poisson };
  Likelihood likelihood = Likelihood::LeastSquares;
  double poisson_floor = 1e-3;
};
struct MatchReport {
  double slicing_ms = 0, gemm_ms = 0;
  // All-gather of the ranks' reference slices (host path, collective version; on the GPU every
  // rank slices every reference and nothing is exchanged).
  double exchange_ms = 0;
  Backend engine = Backend::Cpu;  // the engine that ran: Cpu or Cuda
};
// For each local image (n_images x npix, row-major), the index of the reference orientation
// whose model slice is nearest in least squares (min ||s_r||^2 - 2 b.s_r, or with a fitted
// scale, see MatchOptions). Local work only.
template <typename T>
std::vector<std::int64_t> match_orientations(const std::vector<double>& model, std::int64_t M,
                                             const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report = nullptr);
// Collective: the same answer for this rank's images, with the references split across the
// ranks of comm (each slices its share; the slices are all-gathered a batch at a time, so
// slicing is not repeated on every rank). refs, positions and options must agree on all ranks.
template <typename T>
std::vector<std::int64_t> match_orientations(MPI_Comm comm, const std::vector<double>& model,
                                             std::int64_t M, const std::vector<Quaternion>& refs,
                                             const std::vector<double>& positions, double scale,
                                             const float* images, std::int64_t n_images,
                                             const MatchOptions& mopts, const Options& opts,
                                             MatchReport* report = nullptr);

// Collective: the k best references of each local image (k <= refs.size(), else clamped),
// best first, with their costs (the quantity minimised above; lower is better, differences
// are what count): index[i * k + j], cost[i * k + j]. k = 1 is match_orientations.
struct TopMatches {
  std::int64_t k = 0;
  std::vector<std::int64_t> index;
  std::vector<double> cost;
};
template <typename T>
TopMatches match_top_k(MPI_Comm comm, const std::vector<double>& model, std::int64_t M,
                       const std::vector<Quaternion>& refs, const std::vector<double>& positions,
                       double scale, const float* images, std::int64_t n_images, std::int64_t k,
                       const MatchOptions& mopts, const Options& opts,
                       MatchReport* report = nullptr);
// Soft-assignment weights of TopMatches: per image, w_j = exp(-(cost_j - cost_0) / temperature)
// normalised to sum 1 (temperature in cost units, > 0).
std::vector<double> soft_weights(const TopMatches& m, double temperature);

}  // namespace nufftmp::mtip
