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

template <typename T>
Plan<T>::Plan(int type, const std::vector<std::int64_t>& modes, int isign, int ntransf,
              double tol, const Options& opts)
    : config_(std::make_unique<detail::PlanConfig>(
          detail::make_plan_config<T>(type, modes, isign, ntransf, tol, opts))) {
  if (!config_->warning.empty() && opts.warnings)
    std::cerr << "nufftmp warning: " << config_->warning << "\n";
  Backend b = opts.backend;
  if (b == Backend::Auto) b = cuda_available() ? Backend::Cuda : Backend::Cpu;
  engine_ = (b == Backend::Cuda) ? detail::make_cuda_engine<T>(*config_)
                                 : detail::make_cpu_engine<T>(*config_);
  if (opts.debug > 0) std::cerr << "nufftmp: " << describe() << "\n";
}

template <typename T> Plan<T>::~Plan() = default;
template <typename T> Plan<T>::Plan(Plan&&) noexcept = default;
template <typename T> Plan<T>& Plan<T>::operator=(Plan&&) noexcept = default;

// A moved-from plan has neither: say so instead of dereferencing null.
template <typename T>
const detail::PlanConfig& Plan<T>::config() const {
  if (!config_) throw Error(ErrorCode::InvalidArgument, "Plan used after it was moved from");
  return *config_;
}
template <typename T>
detail::Engine<T>& Plan<T>::engine() const {
  if (!engine_) throw Error(ErrorCode::InvalidArgument, "Plan used after it was moved from");
  return *engine_;
}
// One rule for every engine (the CPU engine would compute zeros, the CUDA engine refuse).
template <typename T>
void Plan<T>::require_points() const {
  if (!points_set_)
    throw Error(ErrorCode::InvalidArgument,
                "Plan::execute before set_points: set the points first");
}

template <typename T>
void Plan<T>::set_points(std::int64_t M, const T* x, const T* y, const T* z) {
  engine().set_points(M, x, y, z);
  points_set_ = true;
}
template <typename T>
void Plan<T>::execute(complex_type* c, complex_type* f) {
  auto& e = engine();
  require_points();
  e.execute(c, f);
}
template <typename T>
void Plan<T>::set_points_host(std::int64_t M, const T* x, const T* y, const T* z) {
  engine().set_points_host(M, x, y, z);
  points_set_ = true;
}
template <typename T>
void Plan<T>::execute_host(complex_type* c, complex_type* f) {
  auto& e = engine();
  require_points();
  e.execute_host(c, f);
}
template <typename T> void Plan<T>::synchronize() { engine().synchronize(); }

template <typename T> int Plan<T>::type() const { return config().type; }
template <typename T> int Plan<T>::dim() const { return config().dim; }
template <typename T> int Plan<T>::isign() const { return config().isign; }
template <typename T> int Plan<T>::ntransf() const { return config().ntransf; }
template <typename T> std::array<std::int64_t, 3> Plan<T>::modes() const { return config().N; }
template <typename T> std::int64_t Plan<T>::num_modes() const { return config().num_modes(); }
template <typename T> std::int64_t Plan<T>::num_points() const { return engine().num_points(); }
template <typename T> std::array<std::int64_t, 3> Plan<T>::fine_grid() const { return config().nf; }
template <typename T> int Plan<T>::kernel_width() const { return config().kernel.w; }
template <typename T> double Plan<T>::kernel_beta() const { return config().kernel.beta; }
template <typename T> double Plan<T>::upsampfac() const { return config().kernel.upsampfac; }
template <typename T> double Plan<T>::tolerance() const { return config().tol; }
template <typename T> Backend Plan<T>::backend() const { return engine().backend(); }
template <typename T> Method Plan<T>::method() const { return engine().method(); }
template <typename T> MemorySpace Plan<T>::memory_space() const { return engine().memory_space(); }
template <typename T> std::size_t Plan<T>::memory_bytes() const { return engine().memory_bytes(); }

template <typename T>
std::string Plan<T>::describe() const {
  const auto& c = config();
  std::ostringstream os;
  os << "type " << c.type << ", " << c.dim << "D, " << (sizeof(T) == 4 ? "float" : "double")
     << ", modes";
  for (int d = 0; d < c.dim; ++d) os << (d ? "x" : " ") << c.N[d];
  os << ", fine grid";
  for (int d = 0; d < c.dim; ++d) os << (d ? "x" : " ") << c.nf[d];
  os << ", w = " << c.kernel.w << ", beta = " << c.kernel.beta << ", sigma = "
     << c.kernel.upsampfac << ", tol = " << c.tol << ", ntransf = " << c.ntransf
     << ", backend " << backend_name(backend()) << ", method " << method_name(method());
  return os.str();
}

template class Plan<float>;
template class Plan<double>;

}  // namespace nufftmp
