// Merging: the model ac that best explains every rank's images at their slice points,
//   (A^H D A + lambda W I) ac = A^H D b,     A = type 2 NUFFT (slicing), W = sum of weights.
// A^H D A is a Toeplitz operator: (A^H D A f)_k = sum_k' T_{k-k'} f_k' with
// T_m = sum_j w_j exp(-i m.x_j), m in (-M, M)^3, a type 1 NUFFT of the weights onto an L^3
// lattice, L >= 2M - 1 (toeplitz_side). Embedded in an L-periodic circular convolution it costs
// two FFTs per CG step, and
// T is computed once per orientation set. T and A^H D b are distributed type 1 NUFFTs
// (dist::DistPlan with all-reduce: NCCL or MPI), so every image counts on every rank.
//
// Friedel symmetry: the model is a real, even autocorrelation, so I(x) = I(-x). Counting each
// measurement also at -x with half weight turns T and A^H D b into their real parts (at no
// extra NUFFT cost) and makes the CG solution real and even.
#include <chrono>
#include <algorithm>
#include <cmath>

#include "common/grid.hpp"
#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "fft3d.hpp"
#include "gpu/toeplitz_gpu.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The circulant embedding's side: any L >= 2M - 1 holds the Toeplitz kernel's lags
// -(M-1) .. M-1 apart (L = 2M is the textbook choice), so take the smallest FFT-friendly one:
// at M = 41, 81 instead of 82 = 2 x 41 (the CG's FFTs ~4x faster, measured in FFTW).
std::int64_t toeplitz_side(std::int64_t M) { return nufftmp::detail::next_fft_friendly(2 * M - 1); }

double default_tol(double requested, bool is_float) {
  return requested > 0 ? requested : (is_float ? 1e-5 : 1e-9);
}
}  // namespace

using detail::wrap;

template <typename T>
struct Merger<T>::Impl {
  std::unique_ptr<dist::Context> own_ctx;  // when constructed from a bare communicator
  dist::Context* ctx;
  MPI_Comm comm;
  std::int64_t M, L;
  MergeOptions mopts;
  Options opts;
  double tol;
  dist::DistPlan<T> adjoint_plan;  // type 1 onto the M^3 model, isign -1 (A^H), all-reduced
  std::int64_t n_points = 0;
  std::vector<T> weights;
  std::vector<std::complex<double>> kernel_hat;  // FFT of Re(T) on the 2M lattice, / L^3
  // On the CUDA engine the convolution runs on the context's GPU (gpu/toeplitz_gpu.cu) and
  // kernel_hat stays empty.
  std::unique_ptr<detail::GpuToeplitz> gpu_conv;
  detail::Fft3d<double> conv;
  // T. Chan's optimal circulant approximation of the Toeplitz operator on the M^3 lattice:
  // its eigenvalues (FFT of the Chan-averaged kernel), inverted with lambda, precondition CG.
  std::vector<double> chan_eig;
  detail::Fft3d<double> pconv;
  double weight_sum = 0;
  double kernel_ms = 0;
  double kernel_nufft_ms = 0;  // of kernel_ms: the two plans' set_points and the weights' type 1

  Impl(std::unique_ptr<dist::Context> own, dist::Context& c, std::int64_t M_,
       const MergeOptions& mo, const Options& o)
      : own_ctx(std::move(own)),
        ctx(&c),
        comm(c.comm()),
        M(M_),
        L(toeplitz_side(M_)),
        mopts(mo),
        opts(centred(o)),
        tol(default_tol(mo.nufft_tol, sizeof(T) == 4)),
        adjoint_plan(c, 1, {M_, M_, M_}, -1, 1, tol, opts),
        conv(L, L, L),
        pconv(M_, M_, M_) {}
  static Options centred(Options o) {
    o.modeord = 0;
    return o;
  }
  std::int64_t model_size() const { return M * M * M; }
};

namespace {
void check_merge_args(MPI_Comm comm, std::int64_t M, const MergeOptions& mopts) {
  agreed(comm, [&] {
    if (M < 2) throw Error(ErrorCode::InvalidArgument, "M = " + std::to_string(M) + " (>= 2)");
    if (!(mopts.lambda >= 0))
      throw Error(ErrorCode::InvalidArgument, "lambda = " + std::to_string(mopts.lambda));
  });
}
dist::ContextOptions context_options(const Options& opts) {
  dist::ContextOptions co;
  co.backend = opts.backend;
  co.device = opts.gpu_device;
  return co;
}
}  // namespace

template <typename T>
Merger<T>::Merger(dist::Context& ctx, std::int64_t M, const MergeOptions& mopts,
                  const Options& opts) {
  check_merge_args(ctx.comm(), M, mopts);
  impl_ = std::make_unique<Impl>(nullptr, ctx, M, mopts, opts);
}
template <typename T>
Merger<T>::Merger(MPI_Comm comm, std::int64_t M, const MergeOptions& mopts, const Options& opts) {
  check_merge_args(comm, M, mopts);
  auto own = std::make_unique<dist::Context>(comm, context_options(opts));
  dist::Context& ctx = *own;
  impl_ = std::make_unique<Impl>(std::move(own), ctx, M, mopts, opts);
}
template <typename T>
Merger<T>::~Merger() = default;
template <typename T>
Merger<T>::Merger(Merger&&) noexcept = default;

namespace {
// Chan's circulant: c_m = sum over s in {0,1}^3 of prod_d w(m_d, s_d) T_{m - s M}, with
// w(m, 0) = (M - m) / M and w(m, 1) = m / M (m in [0, M)), the Frobenius-nearest circulant of
// a (multilevel) Toeplitz matrix; it keeps T's positive definiteness. T is read from the 2M
// lattice in FFT order (s.conv, before its FFT).
template <typename Impl>
void chan_eigenvalues(Impl& s) {
  const std::int64_t M = s.M, L = s.L;
  const std::complex<double>* t = s.conv.data();
  std::complex<double>* c = s.pconv.data();
  const double inv = 1.0 / static_cast<double>(M);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        double sum = 0;
        for (int sk = 0; sk < 2; ++sk)
          for (int sj = 0; sj < 2; ++sj)
            for (int si = 0; si < 2; ++si) {
              const double w = (sk ? k : M - k) * inv * (sj ? j : M - j) * inv * (si ? i : M - i) * inv;
              if (w == 0) continue;
              sum += w * t[(wrap(k - sk * M, L) * L + wrap(j - sj * M, L)) * L + wrap(i - si * M, L)]
                             .real();
            }
        c[(k * M + j) * M + i] = sum;
      }
  s.pconv.forward();
  s.chan_eig.resize(static_cast<std::size_t>(M * M * M));
  for (std::int64_t i = 0; i < M * M * M; ++i) s.chan_eig[i] = c[i].real();
}
}  // namespace

template <typename T>
void Merger<T>::set_points(std::int64_t n_points, const T* x, const T* y, const T* z,
                           const T* weights) {
  Impl& s = *impl_;
  const auto t0 = Clock::now();
  agreed(s.comm, [&] {
    if (n_points < 0)
      throw Error(ErrorCode::InvalidArgument, "n_points = " + std::to_string(n_points));
    s.n_points = n_points;
    s.weights.assign(static_cast<std::size_t>(n_points), T(1));
    if (weights) std::copy(weights, weights + n_points, s.weights.begin());
  });
  const auto tn = Clock::now();
  s.adjoint_plan.set_points_host(n_points, x, y, z);
  // The weights' type 1 transform on the 2M lattice, in FFT order so that index = m mod 2M,
  // summed over ranks. The plan lives only here: its fine grid (4M)^3 is the largest buffer
  // of merging.
  const std::int64_t nk = s.L * s.L * s.L;
  std::vector<std::complex<T>> f(static_cast<std::size_t>(nk));
  {
    Options o = s.opts;
    o.modeord = 1;
    dist::DistPlan<T> kplan(*s.ctx, 1, {s.L, s.L, s.L}, -1, 1, s.tol, o);
    kplan.set_points_host(n_points, x, y, z);
    std::vector<std::complex<T>> c(s.weights.begin(), s.weights.end());
    kplan.execute_host(c.data(), f.data());
  }
  s.kernel_nufft_ms = ms_since(tn);
  double wsum = 0;
  for (auto w : s.weights) wsum += w;
  dist::detail::allreduce_sum(s.comm, &wsum, 1);
  s.weight_sum = wsum;
  for (std::int64_t i = 0; i < nk; ++i) s.conv.data()[i] = f[i].real();  // Friedel: Re(T)
  chan_eigenvalues(s);
  if (s.ctx->backend() == Backend::Cuda) {
    // The CG's FFTs on the context's GPU (cuFFT); collective, so a failure stops every rank.
    agreed(s.comm, [&] {
      s.gpu_conv = std::make_unique<detail::GpuToeplitz>(s.M, s.conv.data(), s.ctx->device(),
                                                         s.ctx->stream());
    });
    s.kernel_hat.clear();
  } else {
    s.gpu_conv.reset();
    s.conv.forward();
    s.kernel_hat.resize(static_cast<std::size_t>(nk));
    const double norm = 1.0 / static_cast<double>(nk);  // FFTW's round trip scales by L^3
    for (std::int64_t i = 0; i < nk; ++i) s.kernel_hat[i] = s.conv.data()[i] * norm;
  }
  s.kernel_ms = ms_since(t0);
}

template <typename T>
double Merger<T>::weight_sum() const {
  return impl_->weight_sum;
}

template <typename T>
void Merger<T>::adjoint(const T* data, std::vector<std::complex<double>>& out) {
  Impl& s = *impl_;
  const std::int64_t n = s.model_size();
  std::vector<std::complex<T>> c(static_cast<std::size_t>(s.n_points));
  for (std::int64_t j = 0; j < s.n_points; ++j) c[j] = s.weights[j] * data[j];
  std::vector<std::complex<T>> f(static_cast<std::size_t>(n));
  s.adjoint_plan.execute_host(c.data(), f.data());  // summed over ranks
  out.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) out[i] = f[i].real();  // Friedel: Re(A^H D b)
}

template <typename T>
void Merger<T>::apply_normal(const std::vector<std::complex<double>>& in,
                             std::vector<std::complex<double>>& out) {
  Impl& s = *impl_;
  if (s.gpu_conv) {
    out.resize(in.size());
    s.gpu_conv->apply(in.data(), out.data());
    return;
  }
  const std::int64_t M = s.M, L = s.L, h = M / 2;
  std::complex<double>* g = s.conv.data();
  std::fill(g, g + s.conv.size(), std::complex<double>(0));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        g[(wrap(k - h, L) * L + wrap(j - h, L)) * L + wrap(i - h, L)] = in[(k * M + j) * M + i];
  s.conv.forward();
  for (std::int64_t i = 0; i < s.conv.size(); ++i) g[i] *= s.kernel_hat[i];
  s.conv.backward();
  out.resize(in.size());
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        out[(k * M + j) * M + i] = g[(wrap(k - h, L) * L + wrap(j - h, L)) * L + wrap(i - h, L)];
}

namespace {
// The preconditioned CG of Merger::solve from ac (when it has the model's size) or zero, on
// (A^H D A + lambda I) x = b with apply_normal(in, out) the Toeplitz operator; the real part
// of x goes to ac.
template <typename Impl, typename Apply>
void solve_cg(Impl& s, Apply&& apply_normal, const std::vector<std::complex<double>>& b,
              std::vector<double>& ac, MergeReport& rep) {
  const std::int64_t n = s.model_size();
  const double lam = s.mopts.lambda * s.weight_sum;
  std::vector<std::complex<double>> x(static_cast<std::size_t>(n), 0.0), r(b), p, Ap;
  if (static_cast<std::int64_t>(ac.size()) == n) {
    for (std::int64_t i = 0; i < n; ++i) x[i] = ac[i];
    apply_normal(x, Ap);
    for (std::int64_t i = 0; i < n; ++i) r[i] = b[i] - Ap[i] - lam * x[i];
  }
  auto dot = [&](const std::vector<std::complex<double>>& a,
                 const std::vector<std::complex<double>>& c) {
    double sum = 0;  // real part suffices: the operator is Hermitian positive definite
    for (std::int64_t i = 0; i < n; ++i) sum += (std::conj(a[i]) * c[i]).real();
    return sum;
  };
  // z = C^{-1} r with C = Chan's circulant + lambda I, by FFTs on the M^3 lattice (vectors
  // indexed by k mod M). Eigenvalues are clamped to a small positive floor, so C stays
  // positive definite even where lambda = 0 and the data leave a direction unmeasured.
  double emax = 0;
  for (double e : s.chan_eig) emax = std::max(emax, e);
  const double floor = 1e-8 * emax + lam;
  const std::int64_t M = s.M, h = M / 2;
  std::vector<std::complex<double>> z(static_cast<std::size_t>(n));
  auto precondition = [&](const std::vector<std::complex<double>>& in,
                          std::vector<std::complex<double>>& out) {
    if (!s.mopts.precondition) {
      out = in;
      return;
    }
    std::complex<double>* g = s.pconv.data();
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i)
          g[(wrap(k - h, M) * M + wrap(j - h, M)) * M + wrap(i - h, M)] = in[(k * M + j) * M + i];
    s.pconv.forward();
    const double norm = 1.0 / static_cast<double>(n);
    for (std::int64_t i = 0; i < n; ++i) g[i] *= norm / std::max(s.chan_eig[i] + lam, floor);
    s.pconv.backward();
    for (std::int64_t k = 0; k < M; ++k)
      for (std::int64_t j = 0; j < M; ++j)
        for (std::int64_t i = 0; i < M; ++i)
          out[(k * M + j) * M + i] = g[(wrap(k - h, M) * M + wrap(j - h, M)) * M + wrap(i - h, M)];
  };
  const double bnorm = std::sqrt(dot(b, b));
  double rr = dot(r, r);
  int it = 0;
  if (bnorm > 0) {
    precondition(r, z);
    p = z;
    double rz = dot(r, z);
    while (it < s.mopts.max_iter && std::sqrt(rr) > s.mopts.tol * bnorm) {
      apply_normal(p, Ap);
      for (std::int64_t i = 0; i < n; ++i) Ap[i] += lam * p[i];
      const double pAp = dot(p, Ap);
      if (!(pAp > 0)) break;  // breakdown: p is (numerically) in the null space
      const double alpha = rz / pAp;
      for (std::int64_t i = 0; i < n; ++i) {
        x[i] += alpha * p[i];
        r[i] -= alpha * Ap[i];
      }
      rr = dot(r, r);
      ++it;
      if (std::sqrt(rr) <= s.mopts.tol * bnorm) break;
      precondition(r, z);
      const double rz_new = dot(r, z);
      const double beta = rz_new / rz;
      rz = rz_new;
      for (std::int64_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
    }
  }
  rep.iterations = it;
  rep.residual = bnorm > 0 ? std::sqrt(rr) / bnorm : 0.0;
  ac.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ac[i] = x[i].real();
}
}  // namespace

template <typename T>
MergeReport Merger<T>::solve(const T* data, std::vector<double>& ac) {
  Impl& s = *impl_;
  MergeReport rep;
  rep.kernel_ms = s.kernel_ms;
  auto t0 = Clock::now();
  std::vector<std::complex<double>> b;
  adjoint(data, b);
  rep.rhs_ms = ms_since(t0);
  rep.nufft_ms = s.kernel_nufft_ms + rep.rhs_ms;  // adjoint() is the type 1 and its scaling
  t0 = Clock::now();
  // Every rank runs the same preconditioned CG on the same (reduced) arrays: no communication
  // inside. It runs as one collective step (a status agreement at its end): a failure on one
  // rank (the GPU convolution out of memory, say) then stops every rank here, instead of the
  // others going on to the next collective and waiting there for the failed one.
  agreed(s.comm, [&] {
    solve_cg(s, [&](const auto& in, auto& out) { apply_normal(in, out); }, b, ac, rep);
  });
  rep.cg_ms = ms_since(t0);
  return rep;
}

template class Merger<float>;
template class Merger<double>;

}  // namespace nufftmp::mtip
