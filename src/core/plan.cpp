// Plan<T>: validates through common/, picks the engine, forwards the life cycle.
#include "nufftmp/plan.hpp"

#include <iostream>
#include <sstream>

#include "common/plan_config.hpp"
#include "engine.hpp"

namespace nufftmp {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::InvalidArgument: return "invalid argument";
    case ErrorCode::BadPoints: return "bad nonuniform points";
    case ErrorCode::ToleranceTooSmall: return "tolerance too small";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::NotAvailable: return "not available";
    case ErrorCode::CudaFailure: return "CUDA failure";
    case ErrorCode::CufftFailure: return "cuFFT failure";
    case ErrorCode::FftwFailure: return "FFTW failure";
    case ErrorCode::MpiFailure: return "MPI failure";
    case ErrorCode::NcclFailure: return "NCCL failure";
    case ErrorCode::RemoteFailure: return "failure on another rank";
    case ErrorCode::IoFailure: return "I/O failure";
    case ErrorCode::Internal: return "internal error";
  }
  return "unknown";
}

const char* backend_name(Backend b) noexcept {
  switch (b) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "unknown";
}

const char* kernel_name(Kernel k) noexcept { return detail::kernel_name(k); }

const char* method_name(Method m) noexcept {
  switch (m) {
    case Method::Auto: return "auto";
    case Method::GM: return "gm";
    case Method::GMSort: return "gm-sort";
    case Method::SM: return "sm";
    case Method::Output: return "output";
  }
  return "unknown";
}

int cuda_device_count() noexcept { return detail::cuda_device_count_impl(); }
bool cuda_available() noexcept { return cuda_device_count() > 0; }

namespace {

// The engine is known before the configuration: the choice of upsampfac depends on it.
Options with_resolved_backend(Options o) {
  if (o.backend == Backend::Auto) o.backend = cuda_available() ? Backend::Cuda : Backend::Cpu;
  return o;
}

}  // namespace

template <typename T>
Plan<T>::Plan(int type, const std::vector<std::int64_t>& modes, int isign, int ntransf,
              double tol, const Options& opts)
    : config_(std::make_unique<detail::PlanConfig>(detail::make_plan_config<T>(
          type, modes, isign, ntransf, tol, with_resolved_backend(opts)))) {
  if (!config_->warning.empty()) std::cerr << "nufftmp warning: " << config_->warning << "\n";
  const Backend b = config_->opts.backend;
  engine_ = (b == Backend::Cuda) ? detail::make_cuda_engine<T>(*config_)
                                 : detail::make_cpu_engine<T>(*config_);
  if (opts.debug > 0) std::cerr << "nufftmp: " << describe() << "\n";
}

template <typename T> Plan<T>::~Plan() = default;
template <typename T> Plan<T>::Plan(Plan&&) noexcept = default;
template <typename T> Plan<T>& Plan<T>::operator=(Plan&&) noexcept = default;

template <typename T>
void Plan<T>::set_points(std::int64_t M, const T* x, const T* y, const T* z) {
  engine_->set_points(M, x, y, z);
}
template <typename T>
void Plan<T>::execute(complex_type* c, complex_type* f) {
  engine_->execute(c, f);
}
template <typename T>
void Plan<T>::set_points_host(std::int64_t M, const T* x, const T* y, const T* z) {
  engine_->set_points_host(M, x, y, z);
}
template <typename T>
void Plan<T>::execute_host(complex_type* c, complex_type* f) {
  engine_->execute_host(c, f);
}
template <typename T> void Plan<T>::synchronize() { engine_->synchronize(); }

template <typename T> int Plan<T>::type() const { return config_->type; }
template <typename T> int Plan<T>::dim() const { return config_->dim; }
template <typename T> int Plan<T>::isign() const { return config_->isign; }
template <typename T> int Plan<T>::ntransf() const { return config_->ntransf; }
template <typename T> std::array<std::int64_t, 3> Plan<T>::modes() const { return config_->N; }
template <typename T> std::int64_t Plan<T>::num_modes() const { return config_->num_modes(); }
template <typename T> std::int64_t Plan<T>::num_points() const { return engine_->num_points(); }
template <typename T> std::array<std::int64_t, 3> Plan<T>::fine_grid() const { return config_->nf; }
template <typename T> int Plan<T>::kernel_width() const { return config_->kernel.w; }
template <typename T> Kernel Plan<T>::kernel() const { return config_->kernel.kind; }
template <typename T> double Plan<T>::kernel_beta() const { return config_->kernel.shape; }
template <typename T> double Plan<T>::upsampfac() const { return config_->kernel.upsampfac; }
template <typename T> double Plan<T>::tolerance() const { return config_->tol; }
template <typename T> Backend Plan<T>::backend() const { return engine_->backend(); }
template <typename T> Method Plan<T>::method() const { return engine_->method(); }
template <typename T> MemorySpace Plan<T>::memory_space() const { return engine_->memory_space(); }
template <typename T> std::size_t Plan<T>::memory_bytes() const { return engine_->memory_bytes(); }

template <typename T>
std::string Plan<T>::describe() const {
  const auto& c = *config_;
  std::ostringstream os;
  os << "type " << c.type << ", " << c.dim << "D, " << (sizeof(T) == 4 ? "float" : "double")
     << ", modes";
  for (int d = 0; d < c.dim; ++d) os << (d ? "x" : " ") << c.N[d];
  os << ", fine grid";
  for (int d = 0; d < c.dim; ++d) os << (d ? "x" : " ") << c.nf[d];
  os << ", kernel " << kernel_name(c.kernel.kind) << " w = " << c.kernel.w
     << (c.kernel.kind == Kernel::ES ? ", beta = " : ", c = ") << c.kernel.shape << ", sigma = "
     << c.kernel.upsampfac << ", tol = " << c.tol << ", ntransf = " << c.ntransf
     << ", backend " << backend_name(backend()) << ", method " << method_name(method());
  return os.str();
}

template class Plan<float>;
template class Plan<double>;

}  // namespace nufftmp
