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
//
// This file: the public Merger and its host path (FFTW). On a context of the CUDA engine the
// whole merge runs on the GPU instead (gpu/merger_gpu.hpp); both run the CG of
// conjugate_gradients.hpp.
#include <algorithm>
#include <cmath>

#include "chan_circulant.hpp"
#include "conjugate_gradients.hpp"
#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "fault_injection.hpp"
#include "fft3d.hpp"
#include "gpu/merger_gpu.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/mtip.hpp"
#include "nufft_tolerance.hpp"
#include "stopwatch.hpp"
#include "toeplitz_side.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::mtip {

using dist::detail::agreed;
using detail::ms_since;
using detail::toeplitz_side;
using detail::wrap;
using Clock = detail::Clock;

namespace {

Options with_modeord(Options o, int modeord) {
  o.modeord = modeord;
  return o;
}

using cvec = std::vector<std::complex<double>>;

// The host path's state: both type 1 plans (made once), the weights, the transformed kernel and
// Chan's preconditioner.
template <typename T>
struct HostMerge {
  dist::Context& ctx;
  MPI_Comm comm;
  std::int64_t M, L;
  MergeOptions mopts;
  dist::DistPlan<T> adjoint_plan;  // type 1 onto the M^3 model, isign -1 (A^H), all-reduced
  dist::DistPlan<T> kernel_plan;   // type 1 of the weights onto the L^3 lattice (FFT order)
  std::int64_t n_points = 0;
  std::vector<T> weights;
  std::vector<std::complex<double>> kernel_hat;  // FFT of Re(T) on the L^3 lattice, / L^3
  detail::Fft3d<double> conv;
  // T. Chan's optimal circulant approximation of the Toeplitz operator on the M^3 lattice:
  // its eigenvalues (FFT of the Chan-averaged kernel), inverted with lambda, precondition CG.
  std::vector<double> chan_eig;
  detail::Fft3d<double> pconv;
  double weight_sum = 0, kernel_ms = 0;
  double kernel_nufft_ms = 0;  // of kernel_ms: the two plans' set_points and the weights' type 1

  HostMerge(dist::Context& c, std::int64_t M_, const MergeOptions& mo, const Options& o, double tol)
      : ctx(c),
        comm(c.comm()),
        M(M_),
        L(toeplitz_side(M_)),
        mopts(mo),
        adjoint_plan(c, 1, {M_, M_, M_}, -1, 1, tol, with_modeord(o, 0)),
        kernel_plan(c, 1, {L, L, L}, -1, 1, tol, with_modeord(o, 1)),
        conv(L, L, L),
        pconv(M_, M_, M_) {}
  std::int64_t model_size() const { return M * M * M; }

  void set_points(std::int64_t n, const T* x, const T* y, const T* z, const T* w);
  void adjoint(const T* data, cvec& out);
  void apply_normal(const cvec& in, cvec& out);
  MergeReport solve(const T* data, std::vector<double>& ac);
  void chan_eigenvalues();
};

// Chan's circulant (chan_circulant.hpp) from Re T on the L^3 lattice (conv, before its FFT),
// and its eigenvalues.
template <typename T>
void HostMerge<T>::chan_eigenvalues() {
  const std::complex<double>* t = conv.data();
  std::complex<double>* c = pconv.data();
  const auto re_t = [t](std::int64_t idx) { return t[idx].real(); };
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        c[(k * M + j) * M + i] = detail::chan_coefficient(i, j, k, M, L, re_t);
  pconv.forward();
  chan_eig.resize(static_cast<std::size_t>(M * M * M));
  for (std::int64_t i = 0; i < M * M * M; ++i) chan_eig[i] = c[i].real();
}

template <typename T>
void HostMerge<T>::set_points(std::int64_t n, const T* x, const T* y, const T* z, const T* w) {
  const auto t0 = Clock::now();
  agreed(comm, [&] {
    if (n < 0) throw Error(ErrorCode::InvalidArgument, "n_points = " + std::to_string(n));
    n_points = n;
    weights.assign(static_cast<std::size_t>(n), T(1));
    if (w) std::copy(w, w + n, weights.begin());
  });
  const auto tn = Clock::now();
  adjoint_plan.set_points_host(n, x, y, z);
  // The weights' type 1 transform on the L^3 lattice, in FFT order so that index = m mod L,
  // summed over ranks.
  const std::int64_t nk = L * L * L;
  std::vector<std::complex<T>> f(static_cast<std::size_t>(nk));
  kernel_plan.set_points_host(n, x, y, z);
  {
    std::vector<std::complex<T>> c(weights.begin(), weights.end());
    kernel_plan.execute_host(c.data(), f.data());
  }
  kernel_nufft_ms = ms_since(tn);
  double wsum = 0;
  for (auto v : weights) wsum += v;
  dist::detail::allreduce_sum(comm, &wsum, 1);
  weight_sum = wsum;
  for (std::int64_t i = 0; i < nk; ++i) conv.data()[i] = f[i].real();  // Friedel: Re(T)
  if (mopts.precondition) chan_eigenvalues();
  conv.forward();
  kernel_hat.resize(static_cast<std::size_t>(nk));
  const double norm = 1.0 / static_cast<double>(nk);  // FFTW's round trip scales by L^3
  for (std::int64_t i = 0; i < nk; ++i) kernel_hat[i] = conv.data()[i] * norm;
  kernel_ms = ms_since(t0);
}

template <typename T>
void HostMerge<T>::adjoint(const T* data, cvec& out) {
  const std::int64_t n = model_size();
  std::vector<std::complex<T>> c(static_cast<std::size_t>(n_points));
  for (std::int64_t j = 0; j < n_points; ++j) c[j] = weights[j] * data[j];
  std::vector<std::complex<T>> f(static_cast<std::size_t>(n));
  adjoint_plan.execute_host(c.data(), f.data());  // summed over ranks
  out.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) out[i] = f[i].real();  // Friedel: Re(A^H D b)
}

template <typename T>
void HostMerge<T>::apply_normal(const cvec& in, cvec& out) {
  const std::int64_t h = M / 2;
  std::complex<double>* g = conv.data();
  std::fill(g, g + conv.size(), std::complex<double>(0));
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        g[(wrap(k - h, L) * L + wrap(j - h, L)) * L + wrap(i - h, L)] = in[(k * M + j) * M + i];
  conv.forward();
  for (std::int64_t i = 0; i < conv.size(); ++i) g[i] *= kernel_hat[i];
  conv.backward();
  out.resize(in.size());
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        out[(k * M + j) * M + i] = g[(wrap(k - h, L) * L + wrap(j - h, L)) * L + wrap(i - h, L)];
}

// The vectors and operations of conjugate_gradients.hpp on the host.
template <typename T>
struct HostCgOps {
  HostMerge<T>& s;
  double lam, floor;  // lambda W, and the preconditioner's eigenvalue floor
  cvec v[6];
  cvec& at(detail::CgVec i) { return v[static_cast<int>(i)]; }
  void apply(detail::CgVec in, detail::CgVec out) {
    s.apply_normal(at(in), at(out));
    const cvec& p = at(in);
    cvec& ap = at(out);
    for (std::size_t i = 0; i < p.size(); ++i) ap[i] += lam * p[i];
  }
  bool preconditioned() const { return s.mopts.precondition; }
  // z = C^-1 r with C = Chan's circulant + lambda I, by FFTs on the M^3 lattice (vectors
  // indexed by k mod M). Eigenvalues are clamped to a small positive floor, so C stays positive
  // definite even where lambda = 0 and the data leave a direction unmeasured.
  void precondition(detail::CgVec in_v, detail::CgVec out_v) {
    const std::int64_t M = s.M, h = M / 2, n = M * M * M;
    const cvec& in = at(in_v);
    cvec& out = at(out_v);
    out.resize(in.size());
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
  }
  double dot(detail::CgVec a, detail::CgVec b) {
    const cvec &x = at(a), &y = at(b);
    double sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i) sum += (std::conj(x[i]) * y[i]).real();
    return sum;
  }
  void copy(detail::CgVec from, detail::CgVec to) { at(to) = at(from); }
  void axpy(double a, detail::CgVec x, detail::CgVec y) {
    const cvec& xv = at(x);
    cvec& yv = at(y);
    for (std::size_t i = 0; i < xv.size(); ++i) yv[i] += a * xv[i];
  }
  void xpby(detail::CgVec x, double b, detail::CgVec y) {
    const cvec& xv = at(x);
    cvec& yv = at(y);
    for (std::size_t i = 0; i < xv.size(); ++i) yv[i] = xv[i] + b * yv[i];
  }
};

template <typename T>
MergeReport HostMerge<T>::solve(const T* data, std::vector<double>& ac) {
  MergeReport rep;
  rep.engine = Backend::Cpu;
  rep.kernel_ms = kernel_ms;
  auto t0 = Clock::now();
  HostCgOps<T> ops{*this, mopts.lambda * weight_sum, 0, {}};
  adjoint(data, ops.at(detail::CgVec::B));
  rep.rhs_ms = ms_since(t0);
  rep.nufft_ms = kernel_nufft_ms + rep.rhs_ms;  // adjoint() is the type 1 and its scaling
  t0 = Clock::now();
  // Every rank runs the same CG on the same (reduced) arrays: no communication inside. It
  // runs as one collective step (a status agreement at its end): a failure on one rank then
  // stops every rank here, instead of the others going on to the next collective and waiting
  // there for the failed one.
  agreed(comm, [&] {
    detail::fault_point("merge", ctx.rank());
    const std::int64_t n = model_size();
    double emax = 0;
    for (double e : chan_eig) emax = std::max(emax, e);
    ops.floor = 1e-8 * emax + ops.lam;
    const bool warm = static_cast<std::int64_t>(ac.size()) == n;
    cvec& x = ops.at(detail::CgVec::X);
    x.assign(static_cast<std::size_t>(n), 0.0);
    if (warm)
      for (std::int64_t i = 0; i < n; ++i) x[i] = ac[i];
    const detail::CgOutcome out = detail::conjugate_gradients(ops, warm, mopts.max_iter, mopts.tol);
    rep.iterations = out.iterations;
    rep.residual = out.residual;
    ac.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) ac[i] = x[i].real();
  });
  rep.cg_ms = ms_since(t0);
  return rep;
}

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

// One of the two paths, chosen by the context's engine.
template <typename T>
struct Merger<T>::Impl {
  std::unique_ptr<dist::Context> own_ctx;  // when constructed from a bare communicator
  std::unique_ptr<HostMerge<T>> host;
  std::unique_ptr<detail::GpuMerger<T>> gpu;
  Impl(std::unique_ptr<dist::Context> own, dist::Context& c, std::int64_t M,
       const MergeOptions& mo, const Options& o)
      : own_ctx(std::move(own)) {
    const double tol = detail::nufft_tolerance(mo.nufft_tol, sizeof(T) == 4);
    if (c.backend() == Backend::Cuda)
      gpu = std::make_unique<detail::GpuMerger<T>>(c, M, mo, o, tol);
    else
      host = std::make_unique<HostMerge<T>>(c, M, mo, o, tol);
  }
};

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

template <typename T>
void Merger<T>::set_points(std::int64_t n_points, const T* x, const T* y, const T* z,
                           const T* weights) {
  if (impl_->gpu)
    impl_->gpu->set_points_host(n_points, x, y, z, weights);
  else
    impl_->host->set_points(n_points, x, y, z, weights);
}

template <typename T>
void Merger<T>::set_cg_tol(double tol) {
  if (impl_->gpu)
    impl_->gpu->set_cg_tol(tol);
  else
    impl_->host->mopts.tol = tol;
}

template <typename T>
double Merger<T>::weight_sum() const {
  return impl_->gpu ? impl_->gpu->weight_sum() : impl_->host->weight_sum;
}

template <typename T>
void Merger<T>::adjoint(const T* data, std::vector<std::complex<double>>& out) {
  if (impl_->gpu)
    impl_->gpu->adjoint_host(data, out);
  else
    impl_->host->adjoint(data, out);
}

template <typename T>
void Merger<T>::apply_normal(const std::vector<std::complex<double>>& in,
                             std::vector<std::complex<double>>& out) {
  if (impl_->gpu)
    impl_->gpu->apply_normal_host(in, out);
  else
    impl_->host->apply_normal(in, out);
}

template <typename T>
MergeReport Merger<T>::solve(const T* data, std::vector<double>& ac) {
  return impl_->gpu ? impl_->gpu->solve_host(data, ac) : impl_->host->solve(data, ac);
}

template class Merger<float>;
template class Merger<double>;

}  // namespace nufftmp::mtip
