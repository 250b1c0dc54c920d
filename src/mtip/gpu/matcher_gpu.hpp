// Orientation matching on a GPU, kept for a whole run: the type 2 plan of the slices, the
// cuBLAS handle and the batch buffers are made once and reused by every match. Per match:
// the model and the references' rotation matrices go to the device; per reference batch the
// slice points (on the device), one type 2 NUFFT, the weighted real slices and their norms,
// one DGEMM of every image against the batch and a k-best merge per image; at the end the
// k best of each image come back. Every rank slices every reference: no communication at all
// (slicing 1e4 x 128^2 points costs ~0.05 s on an H200, the all-gather of the split it
// replaces 0.7 s on two GPUs through the host). CUDA builds only.
//
// Why DGEMM and double images: on H100/H200 the FP64 tensor-core GEMM peak (67 TFLOP/s) equals
// the FP32 one, so 2000 images x 1e4 references x 128^2 pixels (6.6e11 flops) should cost
// ~10-15 ms either way (arithmetic from the peak, not a measurement), and double sums remove
// the question the host path answers with double chunk totals (a float sum over 16384 pixels
// loses ~1e-4 relative, enough to swap near ties).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "device_images.hpp"
#include "nufftmp/mtip.hpp"

namespace nufftmp::mtip::detail {

template <typename T>
class GpuMatcher {
 public:
  // The slices' type 2 plan of M^3 modes at tolerance tol (opts: its other options), on
  // `device`, ordered on `stream`.
  GpuMatcher(std::int64_t M, double tol, const Options& opts, int device, cudaStream_t stream);
  ~GpuMatcher();
  GpuMatcher(const GpuMatcher&) = delete;
  GpuMatcher& operator=(const GpuMatcher&) = delete;

  // The k (<= refs.size()) best references of each image of img, best first, as
  // match_top_k's host path: weights (npix, empty: ones) already resolved, model M^3 in
  // centred order. rep: slicing and product times (exchange 0).
  TopMatches match(const DeviceImages& img, double scale, const std::vector<double>& model,
                   const std::vector<Quaternion>& refs, std::int64_t k,
                   const std::vector<float>& weights, std::int64_t batch, bool fit_scale,
                   MatchReport* rep);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::mtip::detail
