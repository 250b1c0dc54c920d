#include "fft3d.hpp"

#include <fftw3.h>
#include <omp.h>

#include <mutex>
#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::mtip::detail {

namespace {
template <typename T> struct Fftw;
template <> struct Fftw<double> {
  using plan = fftw_plan;
  using cpx = fftw_complex;
  static void* alloc(std::size_t n) { return fftw_malloc(n); }
  static void free(void* p) { fftw_free(p); }
  static plan make(int n0, int n1, int n2, cpx* d, int sign) {
    return fftw_plan_dft_3d(n0, n1, n2, d, d, sign, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int init_threads() { return fftw_init_threads(); }
  static void plan_with_nthreads(int n) { fftw_plan_with_nthreads(n); }
};
template <> struct Fftw<float> {
  using plan = fftwf_plan;
  using cpx = fftwf_complex;
  static void* alloc(std::size_t n) { return fftwf_malloc(n); }
  static void free(void* p) { fftwf_free(p); }
  static plan make(int n0, int n1, int n2, cpx* d, int sign) {
    return fftwf_plan_dft_3d(n0, n1, n2, d, d, sign, FFTW_ESTIMATE);
  }
  static void run(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int init_threads() { return fftwf_init_threads(); }
  static void plan_with_nthreads(int n) { fftwf_plan_with_nthreads(n); }
};

// The CG of merging runs two (2M)^3 FFTs per step on the host: large transforms use every
// OpenMP thread (small ones lose to the threading overhead). The thread count is global FFTW
// state, so it is set before each of our plans.
template <typename T>
void set_threads(std::int64_t n) {
  static std::once_flag once;
  static bool threads_ok = false;
  std::call_once(once, [] { threads_ok = Fftw<T>::init_threads() != 0; });
  if (threads_ok) Fftw<T>::plan_with_nthreads(n >= (std::int64_t(1) << 18) ? omp_get_max_threads() : 1);
}
}  // namespace

template <typename T>
Fft3d<T>::Fft3d(std::int64_t nx, std::int64_t ny, std::int64_t nz) : n_(nx * ny * nz) {
  using F = Fftw<T>;
  data_ = static_cast<std::complex<T>*>(F::alloc(sizeof(std::complex<T>) * n_));
  if (!data_) throw Error(ErrorCode::OutOfMemory, "FFT buffer of " + std::to_string(n_) + " cells");
  auto* d = reinterpret_cast<typename F::cpx*>(data_);
  set_threads<T>(n_);
  // FFTW's first dimension is the slowest: (nz, ny, nx) for our x-fastest arrays. ESTIMATE
  // leaves the buffer untouched and plans in microseconds.
  fwd_ = F::make(int(nz), int(ny), int(nx), d, FFTW_FORWARD);
  bwd_ = F::make(int(nz), int(ny), int(nx), d, FFTW_BACKWARD);
  if (!fwd_ || !bwd_) {
    this->~Fft3d();
    throw Error(ErrorCode::FftwFailure, "FFTW could not plan a " + std::to_string(nx) + "x" +
                                            std::to_string(ny) + "x" + std::to_string(nz) +
                                            " transform (" __FILE__ ")");
  }
}

template <typename T>
Fft3d<T>::~Fft3d() {
  using F = Fftw<T>;
  if (fwd_) F::destroy(static_cast<typename F::plan>(fwd_));
  if (bwd_) F::destroy(static_cast<typename F::plan>(bwd_));
  if (data_) F::free(data_);
  fwd_ = bwd_ = nullptr;
  data_ = nullptr;
}

template <typename T>
void Fft3d<T>::forward() {
  Fftw<T>::run(static_cast<typename Fftw<T>::plan>(fwd_));
}
template <typename T>
void Fft3d<T>::backward() {
  Fftw<T>::run(static_cast<typename Fftw<T>::plan>(bwd_));
}

template class Fft3d<float>;
template class Fft3d<double>;

}  // namespace nufftmp::mtip::detail
