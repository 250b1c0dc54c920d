// Phasing (phasing.cpp): from the autocorrelation to a real, positive density by HIO/ER with
// a shrink-wrap support.
#pragma once

#include <cstdint>
#include <vector>

#include "nufftmp/options.hpp"

namespace nufftmp::mtip {

struct PhaseOptions {
  int cycles = 10;             // each: hio_iter HIO steps, er_iter ER steps, shrink-wrap
  int hio_iter = 40;
  int er_iter = 10;
  double beta = 0.9;
  double shrink_sigma_start = 2.0;  // Gaussian blur of shrink-wrap (voxels), decays to end
  double shrink_sigma_end = 0.7;
  double shrink_threshold = 0.12;   // support = blurred > threshold * max
  std::uint64_t seed = 1;
  int attempts = 1;  // independent random starts (fresh phasing only); lowest error wins
};
struct PhaseResult {
  std::vector<double> density;  // real, >= 0, centred order
  std::vector<char> support;
  double fourier_error = 0;     // || |F| - A || / ||A||
  int iterations = 0;
  Backend engine = Backend::Cpu;  // the engine that ran: Cpu or Cuda
};
// From the autocorrelation (centred order) to a real, positive density. start: a previous
// density to continue from (empty: random inside the autocorrelation's support, best of
// popts.attempts starts).
PhaseResult phase(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& popts,
                  const std::vector<double>& start = {});
// The same on the engine of `engine`: the CUDA engine (backend Cuda, or Auto with a visible
// device) runs the iterations on cuFFT on engine.gpu_device, ordered on engine.cuda_stream
// (nullptr: an own stream); the CPU engine is the call above. The same schedule and starts:
// the two differ by the FFTs' rounding only (HIO is chaotic, so long runs drift apart).
PhaseResult phase(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& popts,
                  const std::vector<double>& start, const Options& engine);

}  // namespace nufftmp::mtip
