// GpuPhaser (phasing_gpu.hpp): the device engine of phasing_schedule.hpp. Per projection: the
// iterate to complex, a forward and a backward cuFFT, the amplitude projection and the ER or
// HIO update, all on the device; the Fourier error is reduced on the device (CUB) and read
// once per er() call, the shrink-wrap maximum never leaves the device.
#include "phasing_gpu.hpp"

#include <cuComplex.h>

#include <cmath>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_stream.hpp"
#include "cuda/cufft_plan.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "phasing_kernels.hpp"
#include "phasing_schedule.hpp"
#include "volume_kernels.hpp"

namespace nufftmp::mtip::detail {

using nufftmp::detail::CudaStream;
using nufftmp::detail::CufftPlan;
using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

// Members are destroyed in reverse order: the buffers and the plan, which free on the stream,
// before an owned stream.
struct GpuPhaser::Impl {
  int device;
  CudaStream stream;
  std::int64_t M, n;
  double amp_norm2 = 0;  // sum of the squared amplitudes (the error's denominator)
  CufftPlan<double> fft;
  DeviceBuffer<double> amp, rho, kept_rho, scratch, scalars;
  DeviceBuffer<cuDoubleComplex> g;
  DeviceBuffer<unsigned char> support, kept_support, temp;
  std::size_t temp_bytes = 0;

  Impl(std::int64_t M_, int dev, void* s)
      : device(dev),
        stream(dev, s),
        M(M_),
        n(M_ * M_ * M_),
        fft(3, {M_, M_, M_}, 1, dev, stream.get()),
        amp(n, dev, stream.get(), "phasing amplitudes"),
        rho(n, dev, stream.get(), "phasing iterate"),
        kept_rho(n, dev, stream.get(), "phasing kept iterate"),
        scratch(n, dev, stream.get(), "phasing scratch (error terms, blurred density)"),
        scalars(2, dev, stream.get(), "phasing scalars"),
        g(n, dev, stream.get(), "phasing Fourier transform"),
        support(n, dev, stream.get(), "phasing support"),
        kept_support(n, dev, stream.get(), "phasing kept support") {
    temp_bytes = reduce_temp_bytes(n);
    temp.allocate(temp_bytes, dev, stream.get(), "phasing reduction storage");
  }
  cudaStream_t s() const { return stream.get(); }

  // g = FFT^-1(P_amp(FFT(rho))) (unnormalised); the error terms into scratch when asked.
  void project(bool error_terms) {
    launch_real_to_complex(rho.get(), n, g.get(), s());
    fft.execute(g.get(), -1);
    launch_project_amplitudes(g.get(), amp.get(), n, error_terms ? scratch.get() : nullptr, s());
    fft.execute(g.get(), +1);
  }
};

GpuPhaser::GpuPhaser(std::int64_t M, const std::vector<double>& amplitude, int device,
                     void* stream) {
  device = nufftmp::detail::resolve_device(device);
  DeviceGuard guard(device);
  impl_ = std::make_unique<Impl>(M, device, stream);
  Impl& s = *impl_;
  for (double a : amplitude) s.amp_norm2 += a * a;
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.amp.get(), amplitude.data(), sizeof(double) * s.n,
                                   cudaMemcpyHostToDevice, s.s()));
  s.stream.synchronize();  // `amplitude` may go when we return
}

GpuPhaser::~GpuPhaser() = default;

void GpuPhaser::set(const std::vector<double>& rho, const std::vector<char>& support) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.rho.get(), rho.data(), sizeof(double) * s.n,
                                   cudaMemcpyHostToDevice, s.s()));
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.support.get(), support.data(), s.n, cudaMemcpyHostToDevice,
                                   s.s()));
  s.stream.synchronize();
}

double GpuPhaser::er(int steps) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const double scale = 1.0 / static_cast<double>(s.n);
  for (int it = 0; it < steps; ++it) {
    const bool last = it + 1 == steps;
    s.project(last);
    launch_er_update(s.g.get(), s.support.get(), s.n, scale, s.rho.get(), s.s());
  }
  if (steps < 1) return 0.0;
  launch_sum(s.temp.get(), s.temp_bytes, s.scratch.get(), s.n, s.scalars.get(), s.s());
  double err = 0;
  NUFFTMP_CUDA_TRY(
      cudaMemcpyAsync(&err, s.scalars.get(), sizeof(double), cudaMemcpyDeviceToHost, s.s()));
  s.stream.synchronize();
  return s.amp_norm2 > 0 ? std::sqrt(err / s.amp_norm2) : 0.0;
}

void GpuPhaser::hio(int steps, double beta) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const double scale = 1.0 / static_cast<double>(s.n);
  for (int it = 0; it < steps; ++it) {
    s.project(false);
    launch_hio_update(s.g.get(), s.support.get(), s.n, scale, beta, s.rho.get(), s.s());
  }
}

void GpuPhaser::shrink_wrap(double sigma, double threshold) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  launch_real_to_complex(s.rho.get(), s.n, s.g.get(), s.s());
  s.fft.execute(s.g.get(), -1);
  launch_gaussian_filter(s.g.get(), s.M, 2.0 * M_PI * M_PI * sigma * sigma, s.s());
  s.fft.execute(s.g.get(), +1);
  // Unnormalised like the host engine's: the threshold is relative to the maximum.
  launch_real_part(s.g.get(), s.n, 1.0, s.scratch.get(), s.s());
  launch_max(s.temp.get(), s.temp_bytes, s.scratch.get(), s.n, s.scalars.get() + 1, s.s());
  launch_threshold(s.scratch.get(), s.n, s.scalars.get() + 1, threshold, s.support.get(), s.s());
}

void GpuPhaser::keep() {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.kept_rho.get(), s.rho.get(), sizeof(double) * s.n,
                                   cudaMemcpyDeviceToDevice, s.s()));
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.kept_support.get(), s.support.get(), s.n,
                                   cudaMemcpyDeviceToDevice, s.s()));
}

void GpuPhaser::restore() {
  Impl& s = *impl_;
  std::swap(s.rho, s.kept_rho);
  std::swap(s.support, s.kept_support);
}

void GpuPhaser::get(std::vector<double>& rho, std::vector<char>& support) const {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  rho.resize(static_cast<std::size_t>(s.n));
  support.resize(static_cast<std::size_t>(s.n));
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(rho.data(), s.rho.get(), sizeof(double) * s.n,
                                   cudaMemcpyDeviceToHost, s.s()));
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(support.data(), s.support.get(), s.n, cudaMemcpyDeviceToHost,
                                   s.s()));
  s.stream.synchronize();
}

PhaseResult phase_on_gpu(const std::vector<double>& ac, std::int64_t M, const PhaseOptions& po,
                         const std::vector<double>& start, const Options& engine) {
  PhaseResult r = phase_with<GpuPhaser>(ac, M, po, start,
                                        nufftmp::detail::resolve_device(engine.gpu_device),
                                        engine.cuda_stream);
  r.engine = Backend::Cuda;
  return r;
}

std::vector<PhaseResult> phase_runs_on_gpu(const std::vector<double>& ac, std::int64_t M,
                                           const PhaseOptions& po,
                                           const std::vector<std::uint64_t>& seeds,
                                           const std::vector<double>& start, int device,
                                           void* stream) {
  std::vector<PhaseResult> runs = phase_runs_with<GpuPhaser>(
      ac, M, po, seeds, start, nufftmp::detail::resolve_device(device), stream);
  for (auto& r : runs) r.engine = Backend::Cuda;
  return runs;
}

}  // namespace nufftmp::mtip::detail
