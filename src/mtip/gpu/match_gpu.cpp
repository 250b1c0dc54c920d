// Orientation matching on the GPU for the public entry points of matching.cpp (match_gpu.hpp):
// one GpuMatcher and one upload of the images per call (the reconstruction loop keeps both for
// the run instead: generation_gpu.cpp). Every rank slices every reference, so the only
// collective is the agreement on status.
#include "match_gpu.hpp"

#include <memory>

#include "cuda/cuda_stream.hpp"
#include "cuda/device_guard.hpp"
#include "device_images.hpp"
#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "matcher_gpu.hpp"
#include "nufft_tolerance.hpp"

namespace nufftmp::mtip::detail {

bool match_on_gpu(const MPI_Comm* comm, const Options& opts) {
  const bool gpu =
      opts.backend == Backend::Cuda || (opts.backend == Backend::Auto && cuda_available());
  return comm ? dist::detail::all_true(*comm, gpu) : gpu;
}

template <typename T>
TopMatches match_top_k_gpu(const MPI_Comm* comm, const std::vector<double>& model,
                           std::int64_t M, const std::vector<Quaternion>& refs,
                           const std::vector<double>& positions, double scale,
                           const float* images, std::int64_t n_images, std::int64_t k,
                           const std::vector<float>& weights, const MatchOptions& mopts,
                           const Options& opts, MatchReport* report) {
  // A failure on one rank (no device, out of memory, a bad model) must stop every rank: the
  // whole local computation runs under one agreement on status.
  TopMatches top;
  const auto local = [&] {
    if (cuda_device_count() == 0)
      throw Error(ErrorCode::NotAvailable, "matching on the GPU: no CUDA device is visible");
    const int device = nufftmp::detail::resolve_device(opts.gpu_device);
    nufftmp::detail::DeviceGuard guard(device);
    nufftmp::detail::CudaStream stream(device, opts.cuda_stream);
    const double tol = nufft_tolerance(mopts.nufft_tol, sizeof(T) == 4);
    {
      GpuMatcher<T> matcher(M, tol, opts, device, stream.get());
      const DeviceImages img(device, stream.get(), images, n_images, positions);
      top = matcher.match(img, scale, model, refs, k, weights, mopts.batch, mopts.fit_scale,
                          report);
    }
    stream.synchronize();  // the buffers' stream-ordered frees are done before the stream goes
  };
  if (comm)
    dist::detail::agreed(*comm, local);
  else
    local();
  return top;
}

#define NUFFTMP_MATCH_GPU(T)                                                                   \
  template TopMatches match_top_k_gpu<T>(const MPI_Comm*, const std::vector<double>&,         \
                                         std::int64_t, const std::vector<Quaternion>&,         \
                                         const std::vector<double>&, double, const float*,     \
                                         std::int64_t, std::int64_t, const std::vector<float>&, \
                                         const MatchOptions&, const Options&, MatchReport*);
NUFFTMP_MATCH_GPU(float)
NUFFTMP_MATCH_GPU(double)
#undef NUFFTMP_MATCH_GPU

}  // namespace nufftmp::mtip::detail
