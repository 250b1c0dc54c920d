// This rank's images and the detector's pixel positions on the device, uploaded once per run
// and shared by matching (the images as the DGEMM operand, in double: see matcher_gpu.cpp) and
// merging (the right-hand side's data) and by the slice points of both. CUDA builds only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cuda/device_buffer.hpp"

namespace nufftmp::mtip::detail {

class DeviceImages {
 public:
  // images: n_images x npix floats (host); positions: [3, npix] (host). Ordered on `stream`;
  // returns when the host arrays may be reused.
  DeviceImages(int device, cudaStream_t stream, const float* images, std::int64_t n_images,
               const std::vector<double>& positions);

  int device() const { return device_; }
  std::int64_t count() const { return n_images_; }
  std::int64_t npix() const { return npix_; }
  const double* images() const { return images_.get(); }        // [count, npix]
  const double* positions() const { return positions_.get(); }  // [3, npix]

 private:
  int device_;
  std::int64_t n_images_ = 0, npix_ = 0;
  nufftmp::detail::DeviceBuffer<double> images_, positions_;
};

}  // namespace nufftmp::mtip::detail
