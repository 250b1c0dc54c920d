// Plan<T>: validates through common/, picks the engine, forwards the life cycle.
#include "nufftmp/plan.hpp"

#include <iostream>
#include <sstream>

#include "common/plan_config.hpp"
#include "engine.hpp"
#include "type3/type3_engine.hpp"

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

namespace {

// The engine of a validated configuration: its backend resolved, type 3 on top of it.
template <typename T>
std::unique_ptr<detail::Engine<T>> make_engine(const detail::PlanConfig& cfg) {
  if (!cfg.warning.empty() && cfg.opts.warnings)
    std::cerr << "nufftmp warning: " << cfg.warning << "\n";
  Backend b = cfg.opts.backend;
  if (b == Backend::Auto) b = cuda_available() ? Backend::Cuda : Backend::Cpu;
  if (cfg.type == 3) return detail::make_type3_engine<T>(cfg, b);
  return (b == Backend::Cuda) ? detail::make_cuda_engine<T>(cfg) : detail::make_cpu_engine<T>(cfg);
}

// The type 3 engine behind a type 3 plan; a clear error for the type 3 calls on types 1/2.
template <typename T>
detail::Type3Engine<T>& type3_engine(const detail::PlanConfig& cfg, detail::Engine<T>& e,
                                     const char* call) {
  if (cfg.type != 3)
    throw Error(ErrorCode::InvalidArgument,
                std::string(call) + " with targets is for type 3 plans; this plan is type " +
                    std::to_string(cfg.type) + " (set_points(M, x, y, z))");
  return static_cast<detail::Type3Engine<T>&>(e);
}

}  // namespace

template <typename T>
Plan<T>::Plan(int type, const std::vector<std::int64_t>& modes, int isign, int ntransf,
              double tol, const Options& opts)
    : config_(std::make_unique<detail::PlanConfig>(
          detail::make_plan_config<T>(type, modes, isign, ntransf, tol, opts))),
      engine_(make_engine<T>(*config_)) {
  if (opts.debug > 0) std::cerr << "nufftmp: " << describe() << "\n";
}

template <typename T>
Plan<T>::Plan(Type3Tag, int type, long long dim, int isign, int ntransf, double tol,
              const Options& opts) {
  if (type != 3)
    throw Error(ErrorCode::InvalidArgument,
                "type = " + std::to_string(type) +
                    " with a dimension: types 1 and 2 take the modes, Plan(type, {N1, ...}, ...)");
  if (dim < 1 || dim > 3)
    throw Error(ErrorCode::InvalidArgument,
                "dim = " + std::to_string(dim) + " (must be 1, 2 or 3)");
  config_ = std::make_unique<detail::PlanConfig>(
      detail::make_type3_plan_config<T>(static_cast<int>(dim), isign, ntransf, tol, opts));
  engine_ = make_engine<T>(*config_);
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
template <typename T>
void Plan<T>::set_points(std::int64_t M, const T* x, const T* y, const T* z, std::int64_t N,
                         const T* s, const T* t, const T* u, const Type3Bounds* bounds) {
  const T* xs[3] = {x, y, z};
  const T* ss[3] = {s, t, u};
  type3_engine(config(), engine(), "set_points").set_points_type3(M, xs, N, ss, bounds, false);
  points_set_ = true;
}
template <typename T>
void Plan<T>::set_points_host(std::int64_t M, const T* x, const T* y, const T* z, std::int64_t N,
                              const T* s, const T* t, const T* u, const Type3Bounds* bounds) {
  const T* xs[3] = {x, y, z};
  const T* ss[3] = {s, t, u};
  type3_engine(config(), engine(), "set_points_host")
      .set_points_type3(M, xs, N, ss, bounds, true);
  points_set_ = true;
}
template <typename T>
Type3Bounds Plan<T>::type3_bounds(std::int64_t M, const T* x, const T* y, const T* z,
                                  std::int64_t N, const T* s, const T* t, const T* u) const {
  const T* xs[3] = {x, y, z};
  const T* ss[3] = {s, t, u};
  return type3_engine(config(), engine(), "type3_bounds").bounds(M, xs, N, ss, false);
}
template <typename T>
Type3Bounds Plan<T>::type3_bounds_host(std::int64_t M, const T* x, const T* y, const T* z,
                                       std::int64_t N, const T* s, const T* t,
                                       const T* u) const {
  const T* xs[3] = {x, y, z};
  const T* ss[3] = {s, t, u};
  return type3_engine(config(), engine(), "type3_bounds_host").bounds(M, xs, N, ss, true);
}
template <typename T> void Plan<T>::synchronize() { engine().synchronize(); }

template <typename T> int Plan<T>::type() const { return config().type; }
template <typename T> int Plan<T>::dim() const { return config().dim; }
template <typename T> int Plan<T>::isign() const { return config().isign; }
template <typename T> int Plan<T>::ntransf() const { return config().ntransf; }
template <typename T> std::array<std::int64_t, 3> Plan<T>::modes() const {
  if (config().type == 3) return {num_modes(), 1, 1};
  return config().N;
}
template <typename T> std::int64_t Plan<T>::num_modes() const {
  if (config().type == 3) return type3_engine(config(), engine(), "").num_targets();
  return config().num_modes();
}
template <typename T> std::int64_t Plan<T>::num_points() const { return engine().num_points(); }
template <typename T> std::array<std::int64_t, 3> Plan<T>::fine_grid() const {
  if (config().type == 3) return type3_engine(config(), engine(), "").fine_grid();
  return config().nf;
}
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
  if (config().type == 3) return type3_engine(config(), engine(), "").describe();
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
