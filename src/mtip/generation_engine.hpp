// The engine-dependent half of a reconstruction's generation (matching, merging, phasing),
// behind one interface so that the loop (reconstruct_*.cpp) is written once:
//   host engine (generation_host.cpp): matching.cpp's host path (references split across the
//     ranks), a Merger on the CPU engine, phase() on FFTW;
//   GPU engine (gpu/generation_gpu.cpp): this rank's images uploaded once for the run, one
//     GpuMatcher and one GpuMerger kept for the run (plans, cuBLAS handle, buffers), slice
//     points computed on the device, the CG and phasing on the device.
// An engine lives for the whole run. Internal to src/mtip; no CUDA types.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "nufftmp/dist.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

// What an engine works on: this rank's images (host, read during construction only by the GPU
// engine, kept by reference by the host one) and the run's options. With a detector correction
// C_p (corrections.hpp) `images` are the corrected data b / C_p that least squares see,
// `counts` the data as read (the Poisson likelihood's photons), and every merge weighs pixel p
// by C_p (pixel_weights; empty: ones). Without one both point to the same data.
struct GenerationInputs {
  std::int64_t M = 0;
  const float* images = nullptr;  // n_images x npix
  const float* counts = nullptr;  // n_images x npix
  std::int64_t n_images = 0;
  const std::vector<double>* positions = nullptr;      // [3, npix]
  const std::vector<double>* pixel_weights = nullptr;  // npix, or empty
  double scale = 0;
  const ReconstructOptions* ro = nullptr;
  const MergeOptions* merge = nullptr;  // ro->merge with the run's decisions (preconditioner)
};

template <typename T>
class GenerationEngine {
 public:
  virtual ~GenerationEngine() = default;
  virtual Backend backend() const = 0;
  // Collective: the k best references of each of this rank's images against `model` (least
  // squares: the images; the Poisson likelihood: the counts, on the host path of matching.cpp
  // with either engine's slices).
  virtual TopMatches match(const std::vector<double>& model, const std::vector<Quaternion>& refs,
                           std::int64_t k, const MatchOptions& mopts, MatchReport& rep) = 0;
  // Collective: the model of n_orient slices at `orient`, pixel p of slice o weighted by
  // slice_weight[o] (empty: ones) times the pixel weight, with their data (null: this rank's
  // images, one slice each; else n_orient x npix values), the CG to relative residual cg_tol.
  // ac: in = start (empty: zero), out = solution.
  virtual MergeReport merge(const Quaternion* orient, std::int64_t n_orient,
                            const std::vector<double>& slice_weight, const T* data,
                            double cg_tol, std::vector<double>& ac) = 0;
  // Local: phasings of ac on this engine's device, one per seed from fresh starts, then one
  // continuation from `start` when it is given (phasing_schedule.hpp's phase_runs_with).
  virtual std::vector<PhaseResult> phase(const std::vector<double>& ac, const PhaseOptions& po,
                                         const std::vector<std::uint64_t>& seeds,
                                         const std::vector<double>& start) = 0;
};

// Collective. The host engine keeps references to in's images and positions.
template <typename T>
std::unique_ptr<GenerationEngine<T>> make_host_generation_engine(dist::Context& ctx,
                                                                 const GenerationInputs& in);
// Collective; ctx runs the CUDA engine. Builds without CUDA throw NotAvailable.
template <typename T>
std::unique_ptr<GenerationEngine<T>> make_gpu_generation_engine(dist::Context& ctx,
                                                                const GenerationInputs& in);

}  // namespace nufftmp::mtip::detail
