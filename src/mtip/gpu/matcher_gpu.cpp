// GpuMatcher (matcher_gpu.hpp).
#include "matcher_gpu.hpp"

#include <algorithm>
#include <climits>
#include <complex>
#include <string>

#include "cuda/cublas_handle.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "match_kernels.hpp"
#include "stopwatch.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::mtip::detail {

using nufftmp::detail::CublasHandle;
using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

namespace {

int blas_int(std::int64_t n, const char* what) {
  if (n > INT_MAX)
    throw Error(ErrorCode::InvalidArgument, std::string("matching on the GPU: ") + what + " = " +
                                                std::to_string(n) +
                                                " exceeds a cuBLAS dimension (2^31 - 1)");
  return static_cast<int>(n);
}

Options plan_options(Options o, int device, cudaStream_t stream) {
  o.backend = Backend::Cuda;
  o.modeord = 0;  // the model is in centred order (nufftmp/mtip.hpp)
  o.gpu_device = device;
  o.cuda_stream = stream;
  return o;
}
}  // namespace

// Members are destroyed in reverse order: the buffers and the plan free on the stream, which
// the caller keeps alive for the matcher's life.
template <typename T>
struct GpuMatcher<T>::Impl {
  int device;
  cudaStream_t stream;
  std::int64_t M;
  CublasHandle blas;
  Plan<T> plan;
  DeviceBuffer<std::complex<T>> model, values;
  DeviceBuffer<float> weights;
  DeviceBuffer<double> rot;
  DeviceBuffer<T> x, y, z;
  DeviceBuffer<double> slices, norms, cross, top_cost;
  DeviceBuffer<std::int64_t> top_index;
  std::vector<std::complex<T>> model_host;
  std::vector<double> rot_host;

  Impl(std::int64_t M_, double tol, const Options& opts, int dev, cudaStream_t s)
      : device(dev),
        stream(s),
        M(M_),
        blas(s),
        plan(2, {M_, M_, M_}, +1, 1, tol, plan_options(opts, dev, s)) {}
  void sync() const { NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream)); }
};

template <typename T>
GpuMatcher<T>::GpuMatcher(std::int64_t M, double tol, const Options& opts, int device,
                          cudaStream_t stream) {
  DeviceGuard guard(device);
  impl_ = std::make_unique<Impl>(M, tol, opts, device, stream);
}

template <typename T>
GpuMatcher<T>::~GpuMatcher() = default;

template <typename T>
TopMatches GpuMatcher<T>::match(const DeviceImages& img, double scale,
                                const std::vector<double>& model,
                                const std::vector<Quaternion>& refs, std::int64_t k,
                                const std::vector<float>& w, std::int64_t batch, bool fit_scale,
                                MatchReport* report) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const cudaStream_t st = s.stream;
  const std::int64_t ni = img.count(), npix = img.npix(), M = s.M;
  const std::int64_t nref = static_cast<std::int64_t>(refs.size());
  if (static_cast<std::int64_t>(model.size()) != M * M * M)
    throw Error(ErrorCode::InvalidArgument, "matching: model has " + std::to_string(model.size()) +
                                                " values, expected M^3 = " +
                                                std::to_string(M * M * M));
  if (nref < 1 || batch < 1 || k < 1 || k > nref)
    throw Error(ErrorCode::InvalidArgument,
                "matching on the GPU: " + std::to_string(nref) + " references, batch " +
                    std::to_string(batch) + ", k " + std::to_string(k));
  MatchReport rep;
  rep.engine = Backend::Cuda;
  TopMatches top;
  top.k = k;
  if (ni == 0) {  // a rank without images has nothing to match
    if (report) *report = rep;
    return top;
  }
  blas_int(ni, "images");
  blas_int(npix, "pixels");
  const std::int64_t nb_max = std::min(batch, nref);
  blas_int(nb_max, "references per batch");

  // The model (real, even) as the plan's complex modes; the rotations of every reference.
  auto t0 = Clock::now();
  s.model_host.assign(model.begin(), model.end());
  s.model.reserve(M * M * M, s.device, st, "model modes");
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.model.get(), s.model_host.data(),
                                   sizeof(std::complex<T>) * M * M * M, cudaMemcpyHostToDevice,
                                   st));
  s.rot_host.resize(static_cast<std::size_t>(9 * nref));
  for (std::int64_t r = 0; r < nref; ++r) {
    const auto m = quat_to_matrix(refs[r]);
    std::copy(m.begin(), m.end(), s.rot_host.begin() + 9 * r);
  }
  s.rot.reserve(9 * nref, s.device, st, "rotation matrices");
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.rot.get(), s.rot_host.data(), sizeof(double) * 9 * nref,
                                   cudaMemcpyHostToDevice, st));
  const bool weighted = !w.empty();
  if (weighted) {
    s.weights.reserve(npix, s.device, st, "pixel weights");
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.weights.get(), w.data(), sizeof(float) * npix,
                                     cudaMemcpyHostToDevice, st));
  }
  s.top_index.reserve(ni * k, s.device, st, "k best indices");
  s.top_cost.reserve(ni * k, s.device, st, "k best costs");
  launch_topk_reset(s.top_index.get(), s.top_cost.get(), ni * k, st);
  const std::int64_t nmax = nb_max * npix;
  s.x.reserve(nmax, s.device, st, "slice x");
  s.y.reserve(nmax, s.device, st, "slice y");
  s.z.reserve(nmax, s.device, st, "slice z");
  s.values.reserve(nmax, s.device, st, "slice values");
  s.slices.reserve(nmax, s.device, st, "weighted slices");
  s.norms.reserve(nb_max, s.device, st, "slice norms");
  s.cross.reserve(ni * nb_max, s.device, st, "image x reference products");
  s.sync();  // the host copies of the model and rotations are reused next time
  rep.gemm_ms += ms_since(t0);

  for (std::int64_t r0 = 0; r0 < nref; r0 += nb_max) {
    const std::int64_t nb = std::min(nb_max, nref - r0), n = nb * npix;
    t0 = Clock::now();
    launch_slice_points<T>(img.positions(), s.rot.get() + 9 * r0, nb, npix, scale, s.x.get(),
                           s.y.get(), s.z.get(), st);
    s.plan.set_points(n, s.x.get(), s.y.get(), s.z.get());
    s.plan.execute(s.values.get(), s.model.get());
    launch_weighted_slices<T>(reinterpret_cast<const T*>(s.values.get()),
                              weighted ? s.weights.get() : nullptr, nb, npix, s.slices.get(),
                              s.norms.get(), st);
    s.sync();
    rep.slicing_ms += ms_since(t0);
    t0 = Clock::now();
    {
      // Column-major view: images are npix x ni, slices npix x nb; cross = images^T slices,
      // ni x nb, so neighbouring images of one reference are neighbours in memory.
      const double one = 1.0, zero = 0.0;
      NUFFTMP_CUBLAS_TRY(cublasDgemm(s.blas.get(), CUBLAS_OP_T, CUBLAS_OP_N,
                                     static_cast<int>(ni), static_cast<int>(nb),
                                     static_cast<int>(npix), &one, img.images(),
                                     static_cast<int>(npix), s.slices.get(),
                                     static_cast<int>(npix), &zero, s.cross.get(),
                                     static_cast<int>(ni)));
      launch_topk_update(s.cross.get(), ni, nb, s.norms.get(), r0, fit_scale, k,
                         s.top_index.get(), s.top_cost.get(), st);
      s.sync();
    }
    rep.gemm_ms += ms_since(t0);
  }

  t0 = Clock::now();
  std::vector<std::int64_t> idx(static_cast<std::size_t>(ni * k));
  std::vector<double> cost(idx.size());
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(idx.data(), s.top_index.get(), sizeof(std::int64_t) * ni * k,
                                   cudaMemcpyDeviceToHost, st));
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(cost.data(), s.top_cost.get(), sizeof(double) * ni * k,
                                   cudaMemcpyDeviceToHost, st));
  s.sync();
  // Device layout [j * ni + i], host layout [i * k + j].
  top.index.resize(idx.size());
  top.cost.resize(idx.size());
  for (std::int64_t i = 0; i < ni; ++i)
    for (std::int64_t j = 0; j < k; ++j) {
      top.index[i * k + j] = idx[j * ni + i];
      top.cost[i * k + j] = cost[j * ni + i];
    }
  rep.gemm_ms += ms_since(t0);
  if (report) *report = rep;
  return top;
}

template class GpuMatcher<float>;
template class GpuMatcher<double>;

}  // namespace nufftmp::mtip::detail
