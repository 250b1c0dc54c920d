// Type 3 array operations of a host plan: OpenMP loops, phases in double.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

#include "cpu/threads.hpp"
#include "nufftmp/errors.hpp"
#include "type3/type3_ops.hpp"

namespace nufftmp::detail {

template <typename T>
ValueRange host_value_range(const T* a, std::int64_t n, int nthreads) {
  if (nthreads <= 0) nthreads = omp_get_max_threads();
  nthreads = cpu::threads_for(static_cast<double>(n), nthreads);
  constexpr double inf = std::numeric_limits<double>::infinity();
  double lo = inf, hi = -inf;
  std::int64_t nbad = 0;
  // A count rather than an early exit keeps the loop vectorisable; the index is looked for only
  // when something is wrong.
#pragma omp parallel for num_threads(nthreads) reduction(min : lo) reduction(max : hi) \
    reduction(+ : nbad) schedule(static)
  for (std::int64_t j = 0; j < n; ++j) {
    const double v = static_cast<double>(a[j]);
    const bool ok = std::abs(v) <= std::numeric_limits<double>::max();  // false for NaN, Inf
    nbad += !ok;
    lo = std::min(lo, ok ? v : inf);
    hi = std::max(hi, ok ? v : -inf);
  }
  ValueRange r{lo, hi, -1, 0};
  if (nbad > 0)
    for (std::int64_t j = 0; j < n; ++j)
      if (!std::isfinite(static_cast<double>(a[j]))) {
        r.bad = j;
        r.bad_value = static_cast<double>(a[j]);
        break;
      }
  return r;
}

namespace {

template <typename T>
class Type3OpsCpu final : public Type3Ops<T> {
 public:
  explicit Type3OpsCpu(const PlanConfig& cfg)
      : nthreads_(cfg.opts.nthreads > 0 ? cfg.opts.nthreads : omp_get_max_threads()) {}

  MemorySpace memory_space() const override { return MemorySpace::Host; }

  ValueRange range(const T* a, std::int64_t n) override {
    return host_value_range(a, n, nthreads_);
  }

  void prepare(const Type3Geometry& g, int isign, const KernelFtQuadrature& q, std::int64_t M,
               const T* const* x, std::int64_t N, const T* const* s, int nvec) override {
    M_ = M;
    N_ = N;
    const int dim = g.dim;
    // Small sets on one thread: a team costs more than it saves (cpu/threads.hpp).
    const int tm = cpu::threads_for(static_cast<double>(M) * dim, nthreads_);
    const int tn = cpu::threads_for(static_cast<double>(N) * dim * q.node.size(), nthreads_);
    for (int d = 0; d < dim; ++d) {
      src_[d].resize(static_cast<std::size_t>(M));
      tgt_[d].resize(static_cast<std::size_t>(N));
      const double C = g.axis[d].C, a = g.axis[d].source_scale();
      const double D = g.axis[d].D, b = g.axis[d].target_scale();
      const T* xd = x[d];
      const T* sd = s[d];
      T* xo = src_[d].data();
      T* so = tgt_[d].data();
#pragma omp parallel for num_threads(tm) schedule(static)
      for (std::int64_t j = 0; j < M; ++j) xo[j] = static_cast<T>((double(xd[j]) - C) * a);
#pragma omp parallel for num_threads(cpu::threads_for(static_cast<double>(N), nthreads_)) \
    schedule(static)
      for (std::int64_t k = 0; k < N; ++k) so[k] = static_cast<T>((double(sd[k]) - D) * b);
    }
    pre_.clear();
    if (g.prephase) {
      pre_.resize(static_cast<std::size_t>(M));
      cbuf_.resize(static_cast<std::size_t>(M) * nvec);
#pragma omp parallel for num_threads(tm) schedule(static)
      for (std::int64_t j = 0; j < M; ++j) {
        double ph = 0;
        for (int d = 0; d < dim; ++d) ph += g.axis[d].D * double(x[d][j]);
        ph *= isign;
        pre_[j] = std::complex<T>(static_cast<T>(std::cos(ph)), static_cast<T>(std::sin(ph)));
      }
    }
    post_.resize(static_cast<std::size_t>(N));
#pragma omp parallel for num_threads(tn) schedule(static)
    for (std::int64_t k = 0; k < N; ++k) {
      double ph = 0, phihat = 1;
      for (int d = 0; d < dim; ++d) {
        const double sk = double(s[d][k]) - g.axis[d].D;
        ph += sk * g.axis[d].C;
        phihat *= kernel_ft(q, sk * g.axis[d].target_scale());
      }
      ph *= isign;
      post_[k] = std::complex<T>(static_cast<T>(std::cos(ph) / phihat),
                                 static_cast<T>(std::sin(ph) / phihat));
    }
  }

  const T* source(int d) const override { return src_[d].data(); }
  const T* target(int d) const override { return tgt_[d].data(); }

  const std::complex<T>* prephase(const std::complex<T>* c, int nvec) override {
    if (pre_.empty()) return c;
    const std::int64_t M = M_;
    std::complex<T>* out = cbuf_.data();
    const std::complex<T>* pre = pre_.data();
#pragma omp parallel for num_threads(cpu::threads_for(double(M) * nvec, nthreads_)) \
    schedule(static) collapse(2)
    for (int v = 0; v < nvec; ++v)
      for (std::int64_t j = 0; j < M; ++j) out[v * M + j] = c[v * M + j] * pre[j];
    return out;
  }

  void postphase(std::complex<T>* f, int nvec) override {
    const std::int64_t N = N_;
    const std::complex<T>* post = post_.data();
#pragma omp parallel for num_threads(cpu::threads_for(double(N) * nvec, nthreads_)) \
    schedule(static) collapse(2)
    for (int v = 0; v < nvec; ++v)
      for (std::int64_t k = 0; k < N; ++k) f[v * N + k] *= post[k];
  }

  std::complex<T>* grid(std::size_t cells) override {
    if (grid_.size() < cells) grid_.resize(cells);
    return grid_.data();
  }

  void zero(std::complex<T>* f, std::size_t count) override {
    std::memset(static_cast<void*>(f), 0, count * sizeof(std::complex<T>));
  }

  const void* stage_in(const void* host, std::size_t, int) override { return host; }
  void* stage_out(void* host, std::size_t, int) override { return host; }
  void copy_out(void*, const void*, std::size_t) override {}
  void release_staging() override {}
  void synchronize() override {}

  std::size_t memory_bytes() const override {
    std::size_t b = (pre_.capacity() + post_.capacity() + cbuf_.capacity() + grid_.capacity()) *
                    sizeof(std::complex<T>);
    for (int d = 0; d < 3; ++d) b += (src_[d].capacity() + tgt_[d].capacity()) * sizeof(T);
    return b;
  }

 private:
  int nthreads_;
  std::int64_t M_ = 0, N_ = 0;
  std::vector<T> src_[3], tgt_[3];
  std::vector<std::complex<T>> pre_, post_, cbuf_, grid_;
};

}  // namespace

template <typename T>
std::unique_ptr<Type3Ops<T>> make_type3_ops_cpu(const PlanConfig& cfg) {
  return std::make_unique<Type3OpsCpu<T>>(cfg);
}

template ValueRange host_value_range<float>(const float*, std::int64_t, int);
template ValueRange host_value_range<double>(const double*, std::int64_t, int);
template std::unique_ptr<Type3Ops<float>> make_type3_ops_cpu<float>(const PlanConfig&);
template std::unique_ptr<Type3Ops<double>> make_type3_ops_cpu<double>(const PlanConfig&);

}  // namespace nufftmp::detail
