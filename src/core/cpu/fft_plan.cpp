#include "cpu/fft_plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

// The FFTW plan of either precision (plans are pointers in both), destroyed under the lock.
struct FftwPlanHandle {
  void* plan = nullptr;
  bool single = false;
  FftwPlanHandle(void* p, bool is_float) : plan(p), single(is_float) {}
  FftwPlanHandle(const FftwPlanHandle&) = delete;
  FftwPlanHandle& operator=(const FftwPlanHandle&) = delete;
  ~FftwPlanHandle() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (single)
      Fftw<float>::destroy(static_cast<Fftw<float>::plan_t>(plan));
    else
      Fftw<double>::destroy(static_cast<Fftw<double>::plan_t>(plan));
  }
};

namespace {

// Everything that makes two FFTW plans interchangeable under new-array execute.
struct PlanKey {
  int elem_bytes, rank, howmany, dist, sign, nthreads, alignment;
  int n[3], embed[3];
  bool operator==(const PlanKey& o) const {
    return elem_bytes == o.elem_bytes && rank == o.rank && howmany == o.howmany &&
           dist == o.dist && sign == o.sign && nthreads == o.nthreads &&
           alignment == o.alignment && std::equal(n, n + 3, o.n) &&
           std::equal(embed, embed + 3, o.embed);
  }
};

double retained_budget_bytes() {
  static const double budget = [] {
    const char* env = std::getenv("NUFFTMP_FFTW_CACHE_MB");
    const double mb = env != nullptr ? std::atof(env) : 256.0;
    return (mb > 0 ? mb : 0.0) * 1e6;
  }();
  return budget;
}

// Guarded by planner_mutex().
struct PlanCache {
  struct Entry {
    PlanKey key;
    std::shared_ptr<const FftwPlanHandle> plan;
    double bytes;  // the grids' size: what its twiddles are bounded by, roughly
    std::uint64_t last_use;
  };
  std::vector<Entry> entries;
  std::uint64_t clock = 0;

  // Drops the least recently used entries that no FftPlan holds while those exceed the
  // budget; what it drops goes to `out` (destroyed by the caller, after the lock).
  void trim(std::vector<std::shared_ptr<const FftwPlanHandle>>& out) {
    for (;;) {
      double idle = 0;
      std::size_t oldest = entries.size();
      for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].plan.use_count() == 1) {
          idle += entries[i].bytes;
          if (oldest == entries.size() || entries[i].last_use < entries[oldest].last_use)
            oldest = i;
        }
      if (oldest == entries.size() || idle <= retained_budget_bytes()) return;
      out.push_back(std::move(entries[oldest].plan));
      entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(oldest));
    }
  }
};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;  // never destroyed: plans may outlive main's statics
  return *cache;
}

void trim_plan_cache() {
  std::vector<std::shared_ptr<const FftwPlanHandle>> dropped;
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    plan_cache().trim(dropped);
  }
}  // dropped plans destroyed here, each taking the lock

}  // namespace

std::size_t fftw_plans_cached() {
  std::lock_guard<std::mutex> lock(planner_mutex());
  return plan_cache().entries.size();
}

template <typename T>
FftPlan<T>::FftPlan(int dim, const std::int64_t nf[3], std::int64_t row, int howmany,
                    int isign, int nthreads, std::complex<T>* data)
    : data_(data) {
  init_threads_once<T>();
  PlanKey key{static_cast<int>(sizeof(T)), dim, howmany, 0, isign > 0 ? FFTW_BACKWARD : FFTW_FORWARD,
              nthreads, Fftw<T>::alignment_of(data), {0, 0, 0}, {0, 0, 0}};
  std::int64_t total = row;  // cells per grid, ghosts included
  for (int d = 0; d < dim; ++d) {
    // FFTW counts in int: row-major, so the slowest axis comes first.
    if (nf[d] > 2147483647)
      throw Error(ErrorCode::InvalidArgument,
                  "fine grid axis " + std::to_string(d) + " of " + std::to_string(nf[d]) +
                      " cells exceeds what FFTW can plan");
    key.n[dim - 1 - d] = static_cast<int>(nf[d]);
    key.embed[dim - 1 - d] = static_cast<int>(d == 0 ? row : nf[d]);
    if (d > 0) total *= nf[d];
  }
  if (total > 2147483647)
    throw Error(ErrorCode::InvalidArgument,
                "fine grid of " + std::to_string(total) + " cells exceeds FFTW's int distance");
  key.dist = static_cast<int>(total);
  std::lock_guard<std::mutex> lock(planner_mutex());
  PlanCache& cache = plan_cache();
  for (auto& e : cache.entries)
    if (e.key == key) {
      e.last_use = ++cache.clock;
      plan_ = e.plan;
      return;
    }
  auto* buf = reinterpret_cast<typename Fftw<T>::complex_t*>(data);
  Fftw<T>::plan_with_nthreads(nthreads);
  auto p = Fftw<T>::plan_many(dim, key.n, key.embed, howmany, buf, key.dist, buf, key.dist,
                              key.sign, FFTW_ESTIMATE);
  if (p == nullptr)
    throw Error(ErrorCode::FftwFailure, "fftw_plan_many_dft returned no plan (grid " +
                                            std::to_string(total) + " cells x " +
                                            std::to_string(howmany) + ")");
  // The handle's destructor takes the lock: build it now, but never drop it while locked.
  auto handle = std::make_shared<const FftwPlanHandle>(reinterpret_cast<void*>(p),
                                                       std::is_same_v<T, float>);
  plan_ = handle;
  cache.entries.push_back({key, std::move(handle),
                           static_cast<double>(total) * howmany * sizeof(std::complex<T>),
                           ++cache.clock});
}

template <typename T>
void FftPlan<T>::reset() {
  if (plan_) {
    plan_.reset();  // the cache still holds it: never the last reference here
    trim_plan_cache();
  }
  data_ = nullptr;
}

template <typename T>
FftPlan<T>::~FftPlan() {
  reset();
}

template <typename T>
FftPlan<T>& FftPlan<T>::operator=(FftPlan&& o) noexcept {
  if (this != &o) {
    reset();
    plan_ = std::move(o.plan_);
    data_ = std::exchange(o.data_, nullptr);
  }
  return *this;
}

template <typename T>
void FftPlan<T>::execute() const {
  auto* buf = reinterpret_cast<typename Fftw<T>::complex_t*>(data_);
  Fftw<T>::execute_dft(static_cast<typename Fftw<T>::plan_t>(plan_->plan), buf, buf);
}

template class GridBuffer<float>;
template class GridBuffer<double>;
template class FftPlan<float>;
template class FftPlan<double>;

}  // namespace nufftmp::detail::cpu
