// Orientation matching on the GPU (match_gpu.hpp): the driver. Per reference batch: the
// slice points on the device, one type 2 NUFFT (a CUDA Plan on device pointers, as slicing.cpp
// uses it on host ones), the weighted real slices and their norms, then the cross terms of all
// images with the batch as one DGEMM and a k-best merge per image. On one rank only the
// batch's rotation matrices and reference indices cross PCIe per batch; with several ranks the
// batch's slices go through the host for MPI_Allgatherv (the host path's reference split, see
// matching.cpp).
//
// Why DGEMM and double images: on H100/H200 the FP64 tensor-core GEMM peak (67 TFLOP/s) equals
// the FP32 one, so 2000 images x 1e4 references x 128^2 pixels (6.6e11 flops) should cost
// ~10-15 ms either way (arithmetic from the peak, not a measurement), and double sums remove the question the host path answers with double chunk
// totals (a float sum over 16384 pixels loses ~1e-4 relative, enough to swap near ties). The
// price is memory: 8 bytes per image pixel resident (262 MB for 2000 x 128^2), and a batch
// costs (ni + 8 + ...) x batch x npix doubles, bounded by MatchOptions::batch.
#include "match_gpu.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <complex>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "cuda/cublas_handle.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/cuda_stream.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "dist/partition.hpp"
#include "match_kernels.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::mtip::detail {

using nufftmp::detail::CublasHandle;
using nufftmp::detail::CudaStream;
using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int blas_int(std::int64_t n, const char* what) {
  if (n > INT_MAX)
    throw Error(ErrorCode::InvalidArgument, std::string("matching on the GPU: ") + what + " = " +
                                                std::to_string(n) +
                                                " exceeds a cuBLAS dimension (2^31 - 1)");
  return static_cast<int>(n);
}

Options plan_options(Options o, int device, cudaStream_t stream) {
  o.backend = Backend::Cuda;
  o.modeord = 0;  // the model is in centred order (mtip.hpp)
  o.gpu_device = device;
  o.cuda_stream = stream;
  return o;
}

// Everything one matching call keeps on the device. Members are destroyed in reverse order:
// the plan first, while the stream it frees its buffers on still exists.
template <typename T>
struct GpuMatch {
  int device;
  CudaStream stream;
  CublasHandle blas;
  std::int64_t ni = 0, npix = 0, k = 0;
  bool weighted = false;
  DeviceBuffer<double> images, positions;
  DeviceBuffer<float> weights;
  DeviceBuffer<std::complex<T>> model, values;
  DeviceBuffer<double> rot;
  DeviceBuffer<T> x, y, z;
  DeviceBuffer<double> slices, norms;
  DeviceBuffer<double> all_slices, all_norms;
  DeviceBuffer<double> cross;
  DeviceBuffer<std::int64_t> gidx, top_index;
  DeviceBuffer<double> top_cost;
  std::vector<double> rot_host;
  std::vector<std::int64_t> gidx_host;
  Plan<T> plan;

  GpuMatch(int dev, std::int64_t M, double tol, const Options& opts)
      : device(dev),
        stream(dev, opts.cuda_stream),
        blas(stream.get()),
        plan(2, {M, M, M}, +1, 1, tol, plan_options(opts, dev, stream.get())) {}

  cudaStream_t s() const { return stream.get(); }

  void upload(const std::vector<double>& model_in, const std::vector<double>& pos,
              const float* imgs, std::int64_t n_images, const std::vector<float>& w,
              std::int64_t k_) {
    ni = n_images;
    npix = static_cast<std::int64_t>(pos.size() / 3);
    k = k_;
    blas_int(ni, "images");
    blas_int(npix, "pixels");
    const std::int64_t nm = static_cast<std::int64_t>(model_in.size());
    std::vector<std::complex<T>> m(model_in.begin(), model_in.end());
    model.reserve(nm, device, s(), "model modes");
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(model.get(), m.data(), sizeof(std::complex<T>) * nm,
                                  cudaMemcpyHostToDevice, s()));
    positions.reserve(3 * npix, device, s(), "pixel positions");
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(positions.get(), pos.data(), sizeof(double) * 3 * npix,
                                  cudaMemcpyHostToDevice, s()));
    weighted = !w.empty();
    if (weighted) {
      weights.reserve(npix, device, s(), "pixel weights");
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(weights.get(), w.data(), sizeof(float) * npix,
                                    cudaMemcpyHostToDevice, s()));
    }
    // Images arrive as float and are widened on the device, through a bounded staging buffer.
    const std::int64_t n = ni * npix, chunk = std::min<std::int64_t>(n, std::int64_t(1) << 24);
    images.reserve(n, device, s(), "matching images (double)");
    DeviceBuffer<float> stage(chunk, device, s(), "image staging");
    for (std::int64_t off = 0; off < n; off += chunk) {
      const std::int64_t cnt = std::min(chunk, n - off);
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(stage.get(), imgs + off, sizeof(float) * cnt,
                                    cudaMemcpyHostToDevice, s()));
      launch_widen(stage.get(), images.get() + off, cnt, s());
    }
    top_index.reserve(ni * k, device, s(), "k best indices");
    top_cost.reserve(ni * k, device, s(), "k best costs");
    launch_topk_reset(top_index.get(), top_cost.get(), ni * k, s());
    stream.synchronize();  // the staging buffer and m go out of scope
  }

  // Weighted slices and norms of references [refs, refs + nb) into `slices` / `norms`.
  void slice(const Quaternion* refs, std::int64_t nb, double scale) {
    if (nb == 0) return;
    rot_host.resize(static_cast<std::size_t>(9 * nb));
    for (std::int64_t r = 0; r < nb; ++r) {
      const auto m = quat_to_matrix(refs[r]);
      std::copy(m.begin(), m.end(), rot_host.begin() + 9 * r);
    }
    const std::int64_t n = nb * npix;
    rot.reserve(9 * nb, device, s(), "rotation matrices");
    x.reserve(n, device, s(), "slice x");
    y.reserve(n, device, s(), "slice y");
    z.reserve(n, device, s(), "slice z");
    values.reserve(n, device, s(), "slice values");
    slices.reserve(n, device, s(), "weighted slices");
    norms.reserve(nb, device, s(), "slice norms");
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(rot.get(), rot_host.data(), sizeof(double) * 9 * nb,
                                  cudaMemcpyHostToDevice, s()));
    launch_slice_points<T>(positions.get(), rot.get(), nb, npix, scale, x.get(), y.get(),
                           z.get(), s());
    plan.set_points(n, x.get(), y.get(), z.get());
    plan.execute(values.get(), model.get());
    launch_weighted_slices<T>(reinterpret_cast<const T*>(values.get()),
                              weighted ? weights.get() : nullptr, nb, npix, slices.get(),
                              norms.get(), s());
  }

  // Merges nall slices (device: S [nall, npix], N [nall]; gidx_host their global indices) into
  // every image's k best.
  void update(const double* S, const double* N, std::int64_t nall, bool fit_scale) {
    if (ni == 0 || nall == 0) return;
    gidx.reserve(nall, device, s(), "reference indices");
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(gidx.get(), gidx_host.data(), sizeof(std::int64_t) * nall,
                                  cudaMemcpyHostToDevice, s()));
    cross.reserve(ni * nall, device, s(), "image x reference products");
    // Column-major view: images are npix x ni, slices npix x nall; cross = images^T slices,
    // ni x nall, so neighbouring images of one reference are neighbours in memory.
    const double one = 1.0, zero = 0.0;
    NUFFTMP_CUBLAS_TRY(cublasDgemm(blas.get(), CUBLAS_OP_T, CUBLAS_OP_N, blas_int(ni, "images"),
                                blas_int(nall, "references per batch"), blas_int(npix, "pixels"),
                                &one, images.get(), static_cast<int>(npix), S,
                                static_cast<int>(npix), &zero, cross.get(),
                                static_cast<int>(ni)));
    launch_topk_update(cross.get(), ni, nall, N, gidx.get(), fit_scale, k, top_index.get(),
                       top_cost.get(), s());
  }

  TopMatches result() {
    std::vector<std::int64_t> idx(static_cast<std::size_t>(ni * k));
    std::vector<double> cost(idx.size());
    if (!idx.empty()) {
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(idx.data(), top_index.get(), sizeof(std::int64_t) * ni * k,
                                    cudaMemcpyDeviceToHost, s()));
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(cost.data(), top_cost.get(), sizeof(double) * ni * k,
                                    cudaMemcpyDeviceToHost, s()));
      stream.synchronize();
    }
    TopMatches top;  // device layout [j * ni + i], host layout [i * k + j]
    top.k = k;
    top.index.resize(idx.size());
    top.cost.resize(idx.size());
    for (std::int64_t i = 0; i < ni; ++i)
      for (std::int64_t j = 0; j < k; ++j) {
        top.index[i * k + j] = idx[j * ni + i];
        top.cost[i * k + j] = cost[j * ni + i];
      }
    return top;
  }
};

}  // namespace

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
  const int size = comm ? dist::detail::comm_size(*comm) : 1;
  const int rank = comm ? dist::detail::comm_rank(*comm) : 0;
  // A failure on one rank must stop every rank before the next collective (an all-gather of
  // slices, or the caller's next step): local device work runs under an agreement on status.
  const auto local = [&](const std::function<void()>& fn) {
    if (comm) dist::detail::agreed(*comm, fn);
    else fn();
  };
  const std::int64_t npix = static_cast<std::int64_t>(positions.size() / 3);
  const std::int64_t nref = static_cast<std::int64_t>(refs.size());
  const double tol = mopts.nufft_tol > 0 ? mopts.nufft_tol : (sizeof(T) == 4 ? 1e-5 : 1e-9);
  std::unique_ptr<DeviceGuard> guard;  // declared first: restores the caller's device last
  std::unique_ptr<GpuMatch<T>> g;
  local([&] {
    if (cuda_device_count() == 0)
      throw Error(ErrorCode::NotAvailable, "matching on the GPU: no CUDA device is visible");
    if (static_cast<std::int64_t>(model.size()) != M * M * M)
      throw Error(ErrorCode::InvalidArgument, "matching: model has " +
                                                  std::to_string(model.size()) +
                                                  " values, expected M^3 = " +
                                                  std::to_string(M * M * M));
    const int device = nufftmp::detail::resolve_device(opts.gpu_device);
    guard = std::make_unique<DeviceGuard>(device);
    g = std::make_unique<GpuMatch<T>>(device, M, tol, opts);
    g->upload(model, positions, images, n_images, weights, k);
  });
  const std::int64_t mine_first = dist::detail::share_offset(nref, size, rank);
  const std::int64_t mine_count = dist::detail::share_count(nref, size, rank);
  const std::int64_t steps =
      (dist::detail::share_count(nref, size, 0) + mopts.batch - 1) / mopts.batch;
  std::vector<double> sw, sall, nw, norms_all;
  std::vector<std::int64_t> slice_bytes(size), norm_bytes(size);
  MatchReport rep;
  for (std::int64_t step = 0; step < steps; ++step) {
    const std::int64_t r0 = mine_first + step * mopts.batch;
    const std::int64_t nb =
        std::max<std::int64_t>(0, std::min(mopts.batch, mine_first + mine_count - r0));
    auto t0 = Clock::now();
    local([&] {
      g->slice(refs.data() + r0, nb, scale);
      g->stream.synchronize();
    });
    rep.slicing_ms += ms_since(t0);
    const double* S = g->slices.get();
    const double* N = g->norms.get();
    std::int64_t nall = nb;
    g->gidx_host.resize(static_cast<std::size_t>(nb));
    for (std::int64_t r = 0; r < nb; ++r) g->gidx_host[r] = r0 + r;
    if (size > 1) {
      // The same shares and order as the host path, so indices and ties agree with it.
      t0 = Clock::now();
      nall = 0;
      g->gidx_host.clear();
      for (int q = 0; q < size; ++q) {
        const std::int64_t first = dist::detail::share_offset(nref, size, q);
        const std::int64_t q0 = first + step * mopts.batch;
        const std::int64_t nq = std::max<std::int64_t>(
            0, std::min(mopts.batch, first + dist::detail::share_count(nref, size, q) - q0));
        slice_bytes[q] = nq * npix * static_cast<std::int64_t>(sizeof(double));
        norm_bytes[q] = nq * static_cast<std::int64_t>(sizeof(double));
        for (std::int64_t r = 0; r < nq; ++r) g->gidx_host.push_back(q0 + r);
        nall += nq;
      }
      sw.resize(static_cast<std::size_t>(nb * npix));
      nw.resize(static_cast<std::size_t>(nb));
      sall.resize(static_cast<std::size_t>(nall * npix));
      norms_all.resize(static_cast<std::size_t>(nall));
      local([&] {
        if (nb == 0) return;
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(sw.data(), g->slices.get(), sizeof(double) * nb * npix,
                                      cudaMemcpyDeviceToHost, g->s()));
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(nw.data(), g->norms.get(), sizeof(double) * nb,
                                      cudaMemcpyDeviceToHost, g->s()));
        g->stream.synchronize();
      });
      dist::detail::allgather_bytes(*comm, sw.data(), slice_bytes, sall.data());
      dist::detail::allgather_bytes(*comm, nw.data(), norm_bytes, norms_all.data());
      local([&] {
        g->all_slices.reserve(nall * npix, g->device, g->s(), "gathered slices");
        g->all_norms.reserve(nall, g->device, g->s(), "gathered norms");
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(g->all_slices.get(), sall.data(),
                                      sizeof(double) * nall * npix, cudaMemcpyHostToDevice,
                                      g->s()));
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(g->all_norms.get(), norms_all.data(),
                                      sizeof(double) * nall, cudaMemcpyHostToDevice, g->s()));
      });
      S = g->all_slices.get();
      N = g->all_norms.get();
      rep.exchange_ms += ms_since(t0);
    }
    t0 = Clock::now();
    local([&] {
      g->update(S, N, nall, mopts.fit_scale);
      g->stream.synchronize();
    });
    rep.gemm_ms += ms_since(t0);
  }
  TopMatches top;
  local([&] { top = g->result(); });
  if (report) *report = rep;
  return top;
}

template TopMatches match_top_k_gpu<float>(const MPI_Comm*, const std::vector<double>&,
                                           std::int64_t, const std::vector<Quaternion>&,
                                           const std::vector<double>&, double, const float*,
                                           std::int64_t, std::int64_t, const std::vector<float>&,
                                           const MatchOptions&, const Options&, MatchReport*);
template TopMatches match_top_k_gpu<double>(const MPI_Comm*, const std::vector<double>&,
                                            std::int64_t, const std::vector<Quaternion>&,
                                            const std::vector<double>&, double, const float*,
                                            std::int64_t, std::int64_t,
                                            const std::vector<float>&, const MatchOptions&,
                                            const Options&, MatchReport*);

}  // namespace nufftmp::mtip::detail
