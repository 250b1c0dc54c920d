// GpuMerger (merger_gpu.hpp): the CUDA engine's merge. Everything is ordered on the context's
// stream, which the distributed plans and their NCCL/MPI reductions also use.
#include "merger_gpu.hpp"

#include <cuComplex.h>

#include <algorithm>
#include <array>
#include <climits>

#include "conjugate_gradients.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/cufft_plan.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "device_images.hpp"
#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "fault_injection.hpp"
#include "match_kernels.hpp"
#include "stopwatch.hpp"
#include "merge_kernels.hpp"
#include "toeplitz_gpu.hpp"
#include "toeplitz_side.hpp"
#include "volume_kernels.hpp"

namespace nufftmp::mtip::detail {

using dist::detail::agreed;
using nufftmp::detail::CublasHandle;
using nufftmp::detail::CufftPlan;
using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

namespace {

Options with_modeord(Options o, int modeord) {
  o.modeord = modeord;
  return o;
}

// Interleaved views of std::complex<T> device arrays, as the kernels take them.
template <typename T>
T* interleaved(std::complex<T>* p) {
  return reinterpret_cast<T*>(p);
}
std::complex<double>* as_std(cuDoubleComplex* p) {
  return reinterpret_cast<std::complex<double>*>(p);
}
}  // namespace

// Members are destroyed in reverse order: the buffers and plans free on the context's stream,
// which outlives the merger (the context does).
template <typename T>
struct GpuMerger<T>::Impl {
  dist::Context& ctx;
  MPI_Comm comm;
  int device;
  cudaStream_t stream;
  std::int64_t M, L, nm, nl;
  MergeOptions mopts;
  dist::DistPlan<T> adjoint_plan;  // type 1 onto the M^3 model, isign -1 (A^H), all-reduced
  dist::DistPlan<T> kernel_plan;   // type 1 of the weights onto the L^3 lattice (FFT order)
  std::unique_ptr<CublasHandle> blas;
  std::unique_ptr<GpuToeplitz> toeplitz;
  std::unique_ptr<CufftPlan<double>> pfft;  // the preconditioner's M^3 transform
  DeviceBuffer<T> x, y, z, w, data_t;
  DeviceBuffer<std::complex<T>> c, fk, fa;
  DeviceBuffer<double> rot, slice_w, pixel_w, pinv, volume;
  DeviceBuffer<cuDoubleComplex> pgrid;
  DeviceBuffer<cuDoubleComplex> vec[6];  // the CG's vectors, indexed by CgVec
  std::vector<double> rot_host;
  std::int64_t n_points = 0;
  bool weighted = false;
  double weight_sum = 0, lambda_abs = 0, kernel_ms = 0, kernel_nufft_ms = 0;

  // Collective (the plans); allocate() makes the local resources.
  Impl(dist::Context& c_, std::int64_t M_, const MergeOptions& mo, const Options& o, double tol)
      : ctx(c_),
        comm(c_.comm()),
        device(c_.device()),
        stream(static_cast<cudaStream_t>(c_.stream())),
        M(M_),
        L(toeplitz_side(M_)),
        nm(M_ * M_ * M_),
        nl(L * L * L),
        mopts(mo),
        adjoint_plan(c_, 1, {M_, M_, M_}, -1, 1, tol, with_modeord(o, 0)),
        kernel_plan(c_, 1, {L, L, L}, -1, 1, tol, with_modeord(o, 1)) {}

  void allocate() {
    DeviceGuard guard(device);
    blas = std::make_unique<CublasHandle>(stream);
    toeplitz = std::make_unique<GpuToeplitz>(M, device, stream);
    fk.allocate(nl, device, stream, "Toeplitz kernel T (type 1 output)");
    fa.allocate(nm, device, stream, "A^H D b (type 1 output)");
    volume.allocate(nm, device, stream, "merged model (real)");
    for (auto& v : vec) v.allocate(nm, device, stream, "a CG vector");
    if (mopts.precondition) {
      pfft = std::make_unique<CufftPlan<double>>(3, std::array<std::int64_t, 3>{M, M, M}, 1,
                                                 device, stream);
      pgrid.allocate(nm, device, stream, "preconditioner grid");
      pinv.allocate(nm, device, stream, "preconditioner inverse eigenvalues");
    }
    sync();
  }
  cuDoubleComplex* v(CgVec i) { return vec[static_cast<int>(i)].get(); }
  void sync() const { NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream)); }

  // After x, y, z (and w when weighted) hold the n_points points: both plans' points, the
  // kernel T, its transform and the preconditioner. wsum_local: this rank's sum of weights.
  void finish_points(double wsum_local);
  // After c holds the right-hand side's strengths: A^H D b, then the CG from ac (or zero).
  MergeReport solve(std::vector<double>& ac);
  // b = Re(A^H D c) into vec[B] (collective).
  void adjoint_into_b();
  // c = w * data for host data (collective).
  void host_data_strengths(const T* data);

  // The vectors and operations of conjugate_gradients.hpp on the device.
  struct CgOps {
    Impl& s;
    double* re(CgVec i) { return reinterpret_cast<double*>(s.v(i)); }
    void apply(CgVec in, CgVec out) {
      s.toeplitz->apply_device(as_std(s.v(in)), as_std(s.v(out)), s.lambda_abs);
    }
    bool preconditioned() const { return s.mopts.precondition; }
    void precondition(CgVec in, CgVec out) {
      launch_centred_to_fft(s.v(in), s.M, s.pgrid.get(), s.stream);
      s.pfft->execute(s.pgrid.get(), -1);
      launch_scale_by(s.pgrid.get(), s.pinv.get(), s.nm, s.stream);
      s.pfft->execute(s.pgrid.get(), +1);
      launch_fft_to_centred(s.pgrid.get(), s.M, s.v(out), s.stream);
    }
    // Re(a^H b) = the real dot product of the interleaved arrays; cuBLAS in int-sized
    // pieces, each returning its scalar to the host (the steps' only synchronisations).
    double dot(CgVec a, CgVec b) {
      const std::int64_t n = 2 * s.nm, piece = std::int64_t(1) << 30;
      double sum = 0;
      for (std::int64_t off = 0; off < n; off += piece) {
        double part = 0;
        NUFFTMP_CUBLAS_TRY(cublasDdot(s.blas->get(), static_cast<int>(std::min(piece, n - off)),
                                      re(a) + off, 1, re(b) + off, 1, &part));
        sum += part;
      }
      return sum;
    }
    void copy(CgVec from, CgVec to) {
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.v(to), s.v(from), sizeof(cuDoubleComplex) * s.nm,
                                       cudaMemcpyDeviceToDevice, s.stream));
    }
    void axpy(double a, CgVec x, CgVec y) { launch_axpy(a, re(x), 2 * s.nm, re(y), s.stream); }
    void xpby(CgVec x, double b, CgVec y) { launch_xpby(re(x), b, 2 * s.nm, re(y), s.stream); }
  };
};

template <typename T>
void GpuMerger<T>::Impl::finish_points(double wsum_local) {
  const auto t0 = Clock::now();
  kernel_plan.set_points(n_points, x.get(), y.get(), z.get());
  adjoint_plan.set_points(n_points, x.get(), y.get(), z.get());
  agreed(comm, [&] {
    DeviceGuard guard(device);
    c.reserve(n_points, device, stream, "type 1 strengths");
    launch_strengths<T, T>(weighted ? w.get() : nullptr, static_cast<const T*>(nullptr),
                           n_points, interleaved(c.get()), stream);
  });
  kernel_plan.execute(c.get(), fk.get());  // T_m = sum_j w_j exp(-i m.x_j), summed over ranks
  kernel_nufft_ms = ms_since(t0);
  double wsum = wsum_local;
  dist::detail::allreduce_sum(comm, &wsum, 1);
  weight_sum = wsum;
  lambda_abs = mopts.lambda * weight_sum;
  agreed(comm, [&] {
    DeviceGuard guard(device);
    // Friedel: the real part of T (see merging.cpp), on the L^3 lattice in FFT order.
    auto* t = reinterpret_cast<cuDoubleComplex*>(toeplitz->kernel_grid());
    launch_real_of<T>(interleaved(fk.get()), nl, t, stream);
    if (mopts.precondition) {
      // Chan's circulant's eigenvalues, inverted with lambda on the host (once per point set).
      launch_chan_circulant(t, M, L, pgrid.get(), stream);
      pfft->execute(pgrid.get(), -1);
      launch_real_part(pgrid.get(), nm, 1.0, volume.get(), stream);
      std::vector<double> eig(static_cast<std::size_t>(nm));
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(eig.data(), volume.get(), sizeof(double) * nm,
                                       cudaMemcpyDeviceToHost, stream));
      sync();
      double emax = 0;
      for (double e : eig) emax = std::max(emax, e);
      const double floor = 1e-8 * emax + lambda_abs, norm = 1.0 / static_cast<double>(nm);
      for (auto& e : eig) e = norm / std::max(e + lambda_abs, floor);
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(pinv.get(), eig.data(), sizeof(double) * nm,
                                       cudaMemcpyHostToDevice, stream));
    }
    toeplitz->transform_kernel();
    sync();  // eig is freed at the end of this scope
  });
  kernel_ms = ms_since(t0);
}

template <typename T>
void GpuMerger<T>::Impl::adjoint_into_b() {
  adjoint_plan.execute(c.get(), fa.get());  // summed over ranks
  agreed(comm, [&] {
    DeviceGuard guard(device);
    launch_real_of<T>(interleaved(fa.get()), nm, v(CgVec::B), stream);  // Friedel: Re(A^H D b)
    sync();
  });
}

template <typename T>
MergeReport GpuMerger<T>::Impl::solve(std::vector<double>& ac) {
  MergeReport rep;
  rep.engine = Backend::Cuda;
  rep.kernel_ms = kernel_ms;
  auto t0 = Clock::now();
  adjoint_into_b();
  rep.rhs_ms = ms_since(t0);
  rep.nufft_ms = kernel_nufft_ms + rep.rhs_ms;
  t0 = Clock::now();
  // One collective step, as the host path: a failure on one rank stops every rank here.
  agreed(comm, [&] {
    fault_point("merge", ctx.rank());
    DeviceGuard guard(device);
    const bool warm = static_cast<std::int64_t>(ac.size()) == nm;
    if (warm) {
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(volume.get(), ac.data(), sizeof(double) * nm,
                                       cudaMemcpyHostToDevice, stream));
      launch_real_to_complex(volume.get(), nm, v(CgVec::X), stream);
    } else {
      NUFFTMP_CUDA_TRY(
          cudaMemsetAsync(v(CgVec::X), 0, sizeof(cuDoubleComplex) * nm, stream));
    }
    CgOps ops{*this};
    const CgOutcome out = conjugate_gradients(ops, warm, mopts.max_iter, mopts.tol);
    rep.iterations = out.iterations;
    rep.residual = out.residual;
    launch_real_part(v(CgVec::X), nm, 1.0, volume.get(), stream);
    ac.resize(static_cast<std::size_t>(nm));
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(ac.data(), volume.get(), sizeof(double) * nm,
                                     cudaMemcpyDeviceToHost, stream));
    sync();
  });
  rep.cg_ms = ms_since(t0);
  return rep;
}

template <typename T>
GpuMerger<T>::GpuMerger(dist::Context& ctx, std::int64_t M, const MergeOptions& mopts,
                        const Options& opts, double tol) {
  agreed(ctx.comm(), [&] {
    if (ctx.backend() != Backend::Cuda)
      throw Error(ErrorCode::InvalidArgument,
                  "GpuMerger: the context does not run the CUDA engine");
  });
  // The plans' constructors are collective and agree on their own; the device resources
  // after them are local, agreed here.
  DeviceGuard guard(ctx.device());
  impl_ = std::make_unique<Impl>(ctx, M, mopts, opts, tol);
  agreed(ctx.comm(), [&] { impl_->allocate(); });
}

template <typename T>
GpuMerger<T>::~GpuMerger() = default;

template <typename T>
void GpuMerger<T>::set_points_host(std::int64_t n, const T* x, const T* y, const T* z,
                                   const T* w) {
  Impl& s = *impl_;
  double wsum = 0;
  agreed(s.comm, [&] {
    if (n < 0) throw Error(ErrorCode::InvalidArgument, "n_points = " + std::to_string(n));
    DeviceGuard guard(s.device);
    s.n_points = n;
    s.weighted = w != nullptr;
    const T* src[4] = {x, y, z, w};
    DeviceBuffer<T>* dst[4] = {&s.x, &s.y, &s.z, &s.w};
    for (int d = 0; d < (s.weighted ? 4 : 3); ++d) {
      dst[d]->reserve(n, s.device, s.stream, "merge points");
      if (n > 0)
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dst[d]->get(), src[d], sizeof(T) * n,
                                         cudaMemcpyHostToDevice, s.stream));
    }
    if (s.weighted)
      for (std::int64_t j = 0; j < n; ++j) wsum += w[j];
    else
      wsum = static_cast<double>(n);
    s.sync();
  });
  s.finish_points(wsum);
}

template <typename T>
void GpuMerger<T>::set_orientations(const DeviceImages& img, double scale,
                                    const Quaternion* orient, std::int64_t n_orient,
                                    const std::vector<double>& slice_weight,
                                    const std::vector<double>& pixel_weight) {
  Impl& s = *impl_;
  double wsum = 0;
  agreed(s.comm, [&] {
    DeviceGuard guard(s.device);
    const std::int64_t npix = img.npix(), n = n_orient * npix;
    s.rot_host.resize(static_cast<std::size_t>(9 * n_orient));
    for (std::int64_t o = 0; o < n_orient; ++o) {
      const auto m = quat_to_matrix(orient[o]);
      std::copy(m.begin(), m.end(), s.rot_host.begin() + 9 * o);
    }
    s.rot.reserve(9 * n_orient, s.device, s.stream, "merge rotation matrices");
    if (n_orient > 0)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.rot.get(), s.rot_host.data(),
                                       sizeof(double) * 9 * n_orient, cudaMemcpyHostToDevice,
                                       s.stream));
    s.x.reserve(n, s.device, s.stream, "merge points x");
    s.y.reserve(n, s.device, s.stream, "merge points y");
    s.z.reserve(n, s.device, s.stream, "merge points z");
    launch_slice_points<T>(img.positions(), s.rot.get(), n_orient, npix, scale, s.x.get(),
                           s.y.get(), s.z.get(), s.stream);
    const bool by_slice = !slice_weight.empty(), by_pixel = !pixel_weight.empty();
    if (by_pixel && static_cast<std::int64_t>(pixel_weight.size()) != npix)
      throw Error(ErrorCode::InvalidArgument,
                  "GpuMerger: " + std::to_string(pixel_weight.size()) + " pixel weights for " +
                      std::to_string(npix) + " pixels");
    s.weighted = by_slice || by_pixel;
    wsum = static_cast<double>(n);
    if (s.weighted) {
      const auto upload = [&](DeviceBuffer<double>& buf, const std::vector<double>& v,
                              const char* what) {
        buf.reserve(static_cast<std::int64_t>(v.size()), s.device, s.stream, what);
        NUFFTMP_CUDA_TRY(cudaMemcpyAsync(buf.get(), v.data(), sizeof(double) * v.size(),
                                         cudaMemcpyHostToDevice, s.stream));
      };
      if (by_slice) upload(s.slice_w, slice_weight, "slice weights");
      if (by_pixel) upload(s.pixel_w, pixel_weight, "pixel weights");
      s.w.reserve(n, s.device, s.stream, "merge weights");
      launch_slice_weights<T>(by_slice ? s.slice_w.get() : nullptr,
                              by_pixel ? s.pixel_w.get() : nullptr, n_orient, npix, s.w.get(),
                              s.stream);
      wsum = 0;  // the sum of the weights as the points carry them (in T, as the kernel forms)
      for (std::int64_t o = 0; o < n_orient; ++o) {
        const double so = by_slice ? slice_weight[o] : 1.0;
        if (!by_pixel) {
          wsum += static_cast<double>(npix) * static_cast<T>(so);
          continue;
        }
        for (std::int64_t p = 0; p < npix; ++p) wsum += static_cast<T>(so * pixel_weight[p]);
      }
    }
    s.n_points = n;
    s.sync();  // rot_host is rewritten by the next call
  });
  s.finish_points(wsum);
}

template <typename T>
void GpuMerger<T>::set_cg_tol(double tol) {
  impl_->mopts.tol = tol;
}

template <typename T>
void GpuMerger<T>::Impl::host_data_strengths(const T* data) {
  agreed(comm, [&] {
    DeviceGuard guard(device);
    data_t.reserve(n_points, device, stream, "merge data");
    if (n_points > 0)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(data_t.get(), data, sizeof(T) * n_points,
                                       cudaMemcpyHostToDevice, stream));
    launch_strengths<T, T>(weighted ? w.get() : nullptr, data_t.get(), n_points,
                           interleaved(c.get()), stream);
    sync();
  });
}

template <typename T>
MergeReport GpuMerger<T>::solve_host(const T* data, std::vector<double>& ac) {
  impl_->host_data_strengths(data);
  return impl_->solve(ac);
}

template <typename T>
MergeReport GpuMerger<T>::solve_device(const double* data, std::vector<double>& ac) {
  Impl& s = *impl_;
  agreed(s.comm, [&] {
    DeviceGuard guard(s.device);
    launch_strengths<T, double>(s.weighted ? s.w.get() : nullptr, data, s.n_points,
                                interleaved(s.c.get()), s.stream);
  });
  return s.solve(ac);
}

template <typename T>
void GpuMerger<T>::adjoint_host(const T* data, std::vector<std::complex<double>>& out) {
  Impl& s = *impl_;
  s.host_data_strengths(data);
  s.adjoint_into_b();
  out.resize(static_cast<std::size_t>(s.nm));
  DeviceGuard guard(s.device);
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(out.data(), s.v(CgVec::B), sizeof(cuDoubleComplex) * s.nm,
                                   cudaMemcpyDeviceToHost, s.stream));
  s.sync();
}

template <typename T>
void GpuMerger<T>::apply_normal_host(const std::vector<std::complex<double>>& in,
                                     std::vector<std::complex<double>>& out) {
  out.resize(in.size());
  impl_->toeplitz->apply(in.data(), out.data());
}

template <typename T>
double GpuMerger<T>::weight_sum() const {
  return impl_->weight_sum;
}

template <typename T>
std::int64_t GpuMerger<T>::num_points() const {
  return impl_->n_points;
}

template class GpuMerger<float>;
template class GpuMerger<double>;

}  // namespace nufftmp::mtip::detail
