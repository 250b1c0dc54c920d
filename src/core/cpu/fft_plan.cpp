#include "cpu/fft_plan.hpp"

#include <mutex>
#include <string>

#include "cpu/fftw_traits.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail::cpu {

namespace {

// FFTW's planner (and plan destruction) is not thread-safe. Our plans take this lock (it also
// keeps plan_with_nthreads and the planning call together); FFTW's own planner lock, switched
// on once below, covers FFTW users elsewhere in the process (e.g. the M-TIP code).
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

template <typename T>
void init_threads_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (Fftw<T>::init_threads() == 0)
      throw Error(ErrorCode::FftwFailure, "fftw_init_threads failed");
    Fftw<T>::make_planner_thread_safe();
  });
}

}  // namespace

template <typename T>
GridBuffer<T>::GridBuffer(std::int64_t count) : count_(count) {
  const double bytes = static_cast<double>(count) * sizeof(std::complex<T>);
  if (count > 0) {
    if (bytes < 9e18)  // else size_t would overflow: as good as a failed allocation
      data_ = static_cast<std::complex<T>*>(
          Fftw<T>::malloc(static_cast<size_t>(count) * sizeof(std::complex<T>)));
    if (data_ == nullptr)
      throw Error(ErrorCode::OutOfMemory,
                  "cannot allocate the fine grid: " + std::to_string(bytes / 1e9) + " GB (" +
                      std::to_string(count) + " complex values)");
  }
}

template <typename T>
GridBuffer<T>::~GridBuffer() {
  if (data_) Fftw<T>::free(data_);
}

template <typename T>
GridBuffer<T>& GridBuffer<T>::operator=(GridBuffer&& o) noexcept {
  if (this != &o) {
    if (data_) Fftw<T>::free(data_);
    data_ = o.data_;
    count_ = o.count_;
    o.data_ = nullptr;
    o.count_ = 0;
  }
  return *this;
}

template <typename T>
FftPlan<T>::FftPlan(int dim, const std::int64_t nf[3], std::int64_t row, int howmany,
                    int isign, int nthreads, std::complex<T>* data) {
  init_threads_once<T>();
  int n[3], embed[3];
  std::int64_t total = row;  // cells per grid, ghosts included
  for (int d = 0; d < dim; ++d) {
    // FFTW counts in int: row-major, so the slowest axis comes first.
    if (nf[d] > 2147483647)
      throw Error(ErrorCode::InvalidArgument,
                  "fine grid axis " + std::to_string(d) + " of " + std::to_string(nf[d]) +
                      " cells exceeds what FFTW can plan");
    n[dim - 1 - d] = static_cast<int>(nf[d]);
    embed[dim - 1 - d] = static_cast<int>(d == 0 ? row : nf[d]);
    if (d > 0) total *= nf[d];
  }
  if (total > 2147483647)
    throw Error(ErrorCode::InvalidArgument,
                "fine grid of " + std::to_string(total) + " cells exceeds FFTW's int distance");
  auto* buf = reinterpret_cast<typename Fftw<T>::complex_t*>(data);
  std::lock_guard<std::mutex> lock(planner_mutex());
  Fftw<T>::plan_with_nthreads(nthreads);
  auto p = Fftw<T>::plan_many(dim, n, embed, howmany, buf, static_cast<int>(total), buf,
                              static_cast<int>(total), isign > 0 ? FFTW_BACKWARD : FFTW_FORWARD,
                              FFTW_ESTIMATE);
  if (p == nullptr)
    throw Error(ErrorCode::FftwFailure, "fftw_plan_many_dft returned no plan (grid " +
                                            std::to_string(total) + " cells x " +
                                            std::to_string(howmany) + ")");
  plan_ = reinterpret_cast<void*>(p);
}

template <typename T>
void FftPlan<T>::reset() {
  if (plan_) {
    std::lock_guard<std::mutex> lock(planner_mutex());
    Fftw<T>::destroy(reinterpret_cast<typename Fftw<T>::plan_t>(plan_));
    plan_ = nullptr;
  }
}

template <typename T>
FftPlan<T>::~FftPlan() {
  reset();
}

template <typename T>
FftPlan<T>& FftPlan<T>::operator=(FftPlan&& o) noexcept {
  if (this != &o) {
    reset();
    plan_ = o.plan_;
    o.plan_ = nullptr;
  }
  return *this;
}

template <typename T>
void FftPlan<T>::execute() const {
  Fftw<T>::execute(reinterpret_cast<typename Fftw<T>::plan_t>(plan_));
}

template class GridBuffer<float>;
template class GridBuffer<double>;
template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace nufftmp::detail::cpu
