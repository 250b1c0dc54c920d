// DeviceImages (device_images.hpp): one upload, the images widened to double on the device
// through a bounded staging buffer.
#include "device_images.hpp"

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"
#include "match_kernels.hpp"

namespace nufftmp::mtip::detail {

DeviceImages::DeviceImages(int device, cudaStream_t stream, const float* images,
                           std::int64_t n_images, const std::vector<double>& positions)
    : device_(device),
      n_images_(n_images),
      npix_(static_cast<std::int64_t>(positions.size() / 3)) {
  nufftmp::detail::DeviceGuard guard(device);
  positions_.allocate(3 * npix_, device, stream, "pixel positions");
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(positions_.get(), positions.data(),
                                   sizeof(double) * 3 * npix_, cudaMemcpyHostToDevice, stream));
  const std::int64_t n = n_images_ * npix_;
  images_.allocate(n, device, stream, "this rank's images (double)");
  const std::int64_t chunk = std::min<std::int64_t>(n, std::int64_t(1) << 24);
  nufftmp::detail::DeviceBuffer<float> stage(chunk, device, stream, "image staging");
  for (std::int64_t off = 0; off < n; off += chunk) {
    const std::int64_t cnt = std::min(chunk, n - off);
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(stage.get(), images + off, sizeof(float) * cnt,
                                     cudaMemcpyHostToDevice, stream));
    launch_widen(stage.get(), images_.get() + off, cnt, stream);
  }
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream));  // the staging buffer goes out of scope
}

}  // namespace nufftmp::mtip::detail

