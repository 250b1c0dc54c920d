// Phasing on a GPU: the device engine of phasing_schedule.hpp (ER/HIO projections and the
// shrink-wrap blur on cuFFT, the iterate, support and amplitudes resident on the device; per
// step only the Fourier error of the last ER step crosses to the host). No CUDA types here:
// phasing.cpp includes it with the host compiler; builds without CUDA link gpu_absent.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

class GpuPhaser {
 public:
  // device: CUDA device (-1: the current one); stream: a cudaStream_t (nullptr: an own one).
  GpuPhaser(std::int64_t M, const std::vector<double>& amplitude, int device, void* stream);
  ~GpuPhaser();
  GpuPhaser(const GpuPhaser&) = delete;
  GpuPhaser& operator=(const GpuPhaser&) = delete;

  void set(const std::vector<double>& rho, const std::vector<char>& support);
  double er(int steps);
  void hio(int steps, double beta);
  void shrink_wrap(double sigma, double threshold);
  void keep();
  void restore();
  void get(std::vector<double>& rho, std::vector<char>& support) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// phase() on the device of `engine` (see nufftmp/mtip/phasing.hpp).
PhaseResult phase_on_gpu(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                         const std::vector<double>& start, const Options& engine);

}  // namespace nufftmp::mtip::detail
