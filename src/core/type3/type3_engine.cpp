#include "type3/type3_engine.hpp"

#include <chrono>
#include <cstdio>
#include <new>
#include <sstream>
#include <vector>

#include "common/checks.hpp"
#include "common/kernel_ft.hpp"
#include "common/type3_geometry.hpp"
#include "type3/type3_ops.hpp"

namespace nufftmp::detail {

namespace {

// Staging slots of host data on a device plan.
enum Slot { kSlotX = 0, kSlotS = 3, kSlotC = 6, kSlotF = 7 };

const char kSourceNames[3] = {'x', 'y', 'z'};
const char kTargetNames[3] = {'s', 't', 'u'};

[[noreturn]] void invalid(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, what);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <typename T>
class Type3EngineImpl final : public Type3Engine<T> {
 public:
  Type3EngineImpl(const PlanConfig& cfg, Backend backend)
      : cfg_(cfg),
        backend_(backend),
        ops_(backend == Backend::Cuda ? make_type3_ops_cuda<T>(cfg) : make_type3_ops_cpu<T>(cfg)),
        quad_(kernel_ft_quadrature(cfg.kernel)) {}

  // Types 1/2 entry points: a type 3 plan needs its targets.
  void set_points(std::int64_t, const T*, const T*, const T*) override { no_targets(); }
  void set_points_host(std::int64_t, const T*, const T*, const T*) override { no_targets(); }

  Type3Bounds bounds(std::int64_t M, const T* const* x, std::int64_t N, const T* const* s,
                     bool host) override {
    check_arrays(M, x, N, s);
    Type3Bounds b = empty_bounds();
    for (int d = 0; d < cfg_.dim; ++d) {
      const ValueRange rx = range_of(x[d], M, host), rs = range_of(s[d], N, host);
      if (rx.bad >= 0)
        throw Error(ErrorCode::BadPoints,
                    bad_type3_point_message(kSourceNames[d], rx.bad, rx.bad_value));
      if (rs.bad >= 0)
        throw Error(ErrorCode::BadPoints,
                    bad_type3_point_message(kTargetNames[d], rs.bad, rs.bad_value));
      b.source_lo[d] = rx.lo;
      b.source_hi[d] = rx.hi;
      b.target_lo[d] = rs.lo;
      b.target_hi[d] = rs.hi;
    }
    return b;
  }

  void set_points_type3(std::int64_t M, const T* const* x, std::int64_t N, const T* const* s,
                        const Type3Bounds* given, bool host) override {
    const auto t0 = std::chrono::steady_clock::now();
    double ms[4] = {0, 0, 0, 0};  // ranges, inner plans, factors, inner set_points
    auto lap = [t = t0](double& into) mutable {
      const auto now = std::chrono::steady_clock::now();
      into += std::chrono::duration<double, std::milli>(now - t).count();
      t = now;
    };
    ready_ = false;
    M_ = N_ = 0;
    const Type3Bounds own = bounds(M, x, N, s, host);
    lap(ms[0]);
    if (given != nullptr) check_within(*given, own);
    geom_ = type3_geometry(cfg_.dim, given ? *given : own, cfg_.kernel.upsampfac, cfg_.kernel.w);
    if (M > 0 && N > 0) {  // else execute has nothing to compute (zeros, or no output at all)
      try {
        const T* px[3] = {nullptr, nullptr, nullptr};
        const T* ps[3] = {nullptr, nullptr, nullptr};
        for (int d = 0; d < cfg_.dim; ++d) {
          px[d] = host ? static_cast<const T*>(ops_->stage_in(x[d], M * sizeof(T), kSlotX + d))
                       : x[d];
          ps[d] = host ? static_cast<const T*>(ops_->stage_in(s[d], N * sizeof(T), kSlotS + d))
                       : s[d];
        }
        make_inner_plans();
        lap(ms[1]);
        ops_->prepare(geom_, cfg_.isign, quad_, M, px, N, ps, batch_);
        lap(ms[2]);
        spread_->set_points(M, ops_->source(0), ops_->source(1), ops_->source(2));
        interp_->set_points(N, ops_->target(0), ops_->target(1), ops_->target(2));
        lap(ms[3]);
      } catch (const std::bad_alloc&) {
        ops_->release_staging();
        throw Error(ErrorCode::OutOfMemory,
                    "type 3 set_points: out of host memory for " + std::to_string(M) +
                        " sources and " + std::to_string(N) + " targets on a grid of " +
                        grid_text(geom_.fine_grid()) + " cells");
      } catch (...) {
        ops_->release_staging();
        throw;
      }
      ops_->release_staging();
    }
    if (host) ops_->synchronize();
    M_ = M;
    N_ = N;
    ready_ = true;
    if (cfg_.opts.debug > 0)
      std::fprintf(stderr,
                   "nufftmp type 3: set_points M = %lld, N = %lld: %.2f ms (ranges %.2f, inner "
                   "plans %.2f, factors %.2f, inner set_points %.2f); %s\n",
                   static_cast<long long>(M), static_cast<long long>(N), ms_since(t0), ms[0],
                   ms[1], ms[2], ms[3], describe().c_str());
  }

  void execute(std::complex<T>* c, std::complex<T>* f) override {
    check_execute(c, f);
    const int nt = cfg_.ntransf;
    if (N_ == 0) return;
    if (M_ == 0) {
      ops_->zero(f, static_cast<std::size_t>(N_) * nt);
      return;
    }
    std::complex<T>* grid = ops_->grid(static_cast<std::size_t>(batch_) * geom_.fine_total());
    for (int v0 = 0; v0 < nt; v0 += batch_) {
      const std::complex<T>* cp = ops_->prephase(c + std::int64_t(v0) * M_, batch_);
      // The spreading plan only reads its c.
      spread_->execute(const_cast<std::complex<T>*>(cp), grid);
      std::complex<T>* fv = f + std::int64_t(v0) * N_;
      interp_->execute(fv, grid);
      ops_->postphase(fv, batch_);
    }
  }

  void execute_host(std::complex<T>* c, std::complex<T>* f) override {
    if (ops_->memory_space() == MemorySpace::Host) return execute(c, f);
    check_execute(c, f);
    const std::size_t cb = static_cast<std::size_t>(M_) * cfg_.ntransf * sizeof(std::complex<T>);
    const std::size_t fb = static_cast<std::size_t>(N_) * cfg_.ntransf * sizeof(std::complex<T>);
    try {
      auto* dc = static_cast<std::complex<T>*>(const_cast<void*>(ops_->stage_in(c, cb, kSlotC)));
      auto* df = static_cast<std::complex<T>*>(ops_->stage_out(f, fb, kSlotF));
      execute(dc, df);
      ops_->copy_out(f, df, fb);
    } catch (...) {
      ops_->release_staging();
      throw;
    }
    ops_->release_staging();
  }

  void synchronize() override { ops_->synchronize(); }

  std::int64_t num_points() const override { return M_; }
  std::int64_t num_targets() const override { return N_; }
  std::array<std::int64_t, 3> fine_grid() const override {
    return ready_ ? geom_.fine_grid() : std::array<std::int64_t, 3>{1, 1, 1};
  }
  Backend backend() const override { return backend_; }
  Method method() const override { return spread_ ? spread_->method() : Method::Auto; }
  MemorySpace memory_space() const override { return ops_->memory_space(); }
  std::size_t memory_bytes() const override {
    std::size_t b = ops_->memory_bytes();
    if (spread_) b += spread_->memory_bytes() + interp_->memory_bytes();
    return b;
  }

  std::string describe() const override {
    std::ostringstream os;
    os << "type 3, " << cfg_.dim << "D, " << (sizeof(T) == 4 ? "float" : "double");
    if (ready_) {
      os << ", " << M_ << " sources, " << N_ << " targets, grid " << grid_text(geom_.fine_grid());
      if (interp_) os << " (inner type 2 fine grid " << grid_text(interp_->fine_grid()) << ")";
      os << ", " << (geom_.prephase ? "" : "no ") << "pre-phase, "
         << (geom_.postphase ? "" : "no ") << "post-phase";
    } else {
      os << ", points not set";
    }
    os << ", w = " << cfg_.kernel.w << ", beta = " << cfg_.kernel.beta
       << ", sigma = " << cfg_.kernel.upsampfac << ", tol = " << cfg_.tol
       << ", ntransf = " << cfg_.ntransf << " (" << batch_ << " per pass), backend "
       << backend_name(backend_);
    if (spread_)
      os << ", methods " << method_name(spread_->method()) << " / "
         << method_name(interp_->method());
    return os.str();
  }

 private:
  [[noreturn]] void no_targets() const {
    invalid("type 3 plan: set_points needs the targets too: set_points(M, x, y, z, N, s, t, u)");
  }

  ValueRange range_of(const T* a, std::int64_t n, bool host) {
    if (host || ops_->memory_space() == MemorySpace::Host) {
      return host_value_range(a, n, cfg_.opts.nthreads);
    }
    return ops_->range(a, n);
  }

  void check_arrays(std::int64_t M, const T* const* x, std::int64_t N, const T* const* s) const {
    if (M < 0) invalid("type 3: number of sources M = " + std::to_string(M) + " < 0");
    if (N < 0) invalid("type 3: number of targets N = " + std::to_string(N) + " < 0");
    const char* xn[3] = {"x (sources)", "y (sources)", "z (sources)"};
    const char* sn[3] = {"s (targets)", "t (targets)", "u (targets)"};
    for (int d = 0; d < cfg_.dim; ++d) {
      require_pointer(x[d], M, xn[d]);
      require_pointer(s[d], N, sn[d]);
    }
  }

  void check_within(const Type3Bounds& given, const Type3Bounds& own) const {
    if (bounds_contain(cfg_.dim, given, own)) return;
    for (int d = 0; d < cfg_.dim; ++d) {
      auto report = [&](const char* what, char name, double lo, double hi, double glo,
                        double ghi) {
        if (lo > hi || (glo <= lo && hi <= ghi)) return;
        std::ostringstream os;
        os.precision(17);
        os << "type 3: the " << what << " " << name << " span [" << lo << ", " << hi
           << "], outside the bounds [" << glo << ", " << ghi << "] passed to set_points";
        throw Error(ErrorCode::BadPoints, os.str());
      };
      report("sources", kSourceNames[d], own.source_lo[d], own.source_hi[d], given.source_lo[d],
             given.source_hi[d]);
      report("targets", kTargetNames[d], own.target_lo[d], own.target_hi[d], given.target_lo[d],
             given.target_hi[d]);
    }
  }

  void check_execute(const std::complex<T>* c, const std::complex<T>* f) const {
    if (!ready_) invalid("execute called before set_points");
    require_pointer(c, M_ * cfg_.ntransf, "c (strengths at the sources)");
    require_pointer(f, N_ * cfg_.ntransf, "f (values at the targets)");
  }

  static std::string grid_text(const std::array<std::int64_t, 3>& n) {
    return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
  }

  // The spread-only type 1 and the type 2 of the current grid (kept when it has not changed),
  // and the grids of one pass. Their kernel must be the plan's, whose phihat set_points uses.
  void make_inner_plans() {
    const std::array<std::int64_t, 3> nf = geom_.fine_grid();
    const double bytes_per_vector =
        static_cast<double>(geom_.fine_total()) * sizeof(std::complex<T>);
    if (spread_ && nf == inner_grid_) return;
    spread_.reset();
    interp_.reset();
    const std::vector<std::int64_t> modes(nf.begin(), nf.begin() + cfg_.dim);
    batch_ = type3_batch(cfg_.ntransf, cfg_.opts.maxbatchsize, bytes_per_vector);
    Options o = cfg_.opts;
    o.backend = backend_;
    if (ops_->device() >= 0) o.gpu_device = ops_->device();
    Options so = o, io = o;
    so.spread_interp_only = true;
    so.upsampfac = cfg_.kernel.upsampfac;
    // Grid cell g holds the sources near x' = g h, that is mode g (g < nf/2) or g - nf: the
    // FFT order.
    io.modeord = 1;
    try {
      spread_ = std::make_unique<Plan<T>>(1, modes, cfg_.isign, batch_, cfg_.tol, so);
      interp_ = std::make_unique<Plan<T>>(2, modes, cfg_.isign, batch_, cfg_.tol, io);
      ops_->grid(static_cast<std::size_t>(batch_) * geom_.fine_total());
    } catch (const std::exception& e) {
      spread_.reset();
      interp_.reset();
      const auto* err = dynamic_cast<const Error*>(&e);
      const bool oom = dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
                       (err != nullptr && err->code() == ErrorCode::OutOfMemory);
      if (!oom) throw;
      std::ostringstream os;
      os << "type 3: the space-bandwidth product of these sources and targets needs a grid of "
         << grid_text(nf) << " cells (" << batch_ << " vector(s) per pass, "
         << bytes_per_vector * batch_ / (1 << 20) << " MiB, and an inner type 2 that upsamples "
         << "it again): " << e.what();
      throw Error(ErrorCode::OutOfMemory, os.str());
    }
    if (spread_->kernel_width() != cfg_.kernel.w || spread_->kernel_beta() != cfg_.kernel.beta)
      throw Error(ErrorCode::Internal, "type 3: the spreading plan chose another kernel");
    inner_grid_ = nf;
  }

  const PlanConfig& cfg_;
  Backend backend_;
  std::unique_ptr<Type3Ops<T>> ops_;
  KernelFtQuadrature quad_;
  Type3Geometry geom_;
  std::int64_t M_ = 0, N_ = 0;
  bool ready_ = false;
  int batch_ = 1;
  std::unique_ptr<Plan<T>> spread_, interp_;
  std::array<std::int64_t, 3> inner_grid_{0, 0, 0};
};

}  // namespace

template <typename T>
std::unique_ptr<Type3Engine<T>> make_type3_engine(const PlanConfig& cfg, Backend backend) {
  return std::make_unique<Type3EngineImpl<T>>(cfg, backend);
}

template std::unique_ptr<Type3Engine<float>> make_type3_engine<float>(const PlanConfig&, Backend);
template std::unique_ptr<Type3Engine<double>> make_type3_engine<double>(const PlanConfig&,
                                                                        Backend);

}  // namespace nufftmp::detail
