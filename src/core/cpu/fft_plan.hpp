// RAII owners for the fine grid (FFTW-aligned memory) and the in-place batched FFTW plan.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

namespace nufftmp::detail::cpu {

struct FftwPlanHandle;  // an FFTW plan (either precision), destroyed under the planner lock

// howmany grids of prod(nf[0..dim)) complex values, contiguous, 64-byte aligned. Throws
// Error(OutOfMemory) naming the size when the allocation fails.
template <typename T>
class GridBuffer {
 public:
  GridBuffer() = default;
  explicit GridBuffer(std::int64_t count);
  ~GridBuffer();
  GridBuffer(GridBuffer&& o) noexcept : data_(o.data_), count_(o.count_) {
    o.data_ = nullptr;
    o.count_ = 0;
  }
  GridBuffer& operator=(GridBuffer&& o) noexcept;
  GridBuffer(const GridBuffer&) = delete;
  GridBuffer& operator=(const GridBuffer&) = delete;

  std::complex<T>* data() const { return data_; }
  std::int64_t size() const { return count_; }

 private:
  std::complex<T>* data_ = nullptr;
  std::int64_t count_ = 0;
};

// In-place transform of howmany contiguous grids of sizes nf[0] (fastest) .. nf[dim-1], whose
// x-rows are `row` >= nf[0] cells apart (ghost cells between them are left alone), data at
// the first row's cell 0; exponent sign isign (+1 -> exp(+i ...), FFTW_BACKWARD).
//
// Planned with FFTW_ESTIMATE: MEASURE would run (and overwrite) trial transforms for up to
// seconds at every plan creation, which M-TIP-style users pay often, for a gain of rarely more
// than 20% of the FFT alone. ESTIMATE still builds twiddle tables, which on large 1D grids are
// most of a plan's cost (2e7 cells: ~100 ms and ~160 MB, against 0.1 ms for a 256^3 grid). So
// FFTW plans live in a process-wide cache keyed by everything that defines them (precision,
// sizes, layout, batch, sign, threads, data alignment): a plan of a shape already planned
// executes the same FFTW plan on its own grid (FFTW's new-array execute, which may run on
// several arrays at once), and plans no FftPlan holds any more are kept, least recently used
// first out, up to NUFFTMP_FFTW_CACHE_MB (environment; default 256, estimated as the grids'
// size; 0 keeps none).
template <typename T>
class FftPlan {
 public:
  FftPlan() = default;
  FftPlan(int dim, const std::int64_t nf[3], std::int64_t row, int howmany, int isign,
          int nthreads, std::complex<T>* data);
  ~FftPlan();
  FftPlan(FftPlan&& o) noexcept = default;
  FftPlan& operator=(FftPlan&& o) noexcept;
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  void execute() const;
  explicit operator bool() const { return plan_ != nullptr; }

 private:
  void reset();
  std::shared_ptr<const FftwPlanHandle> plan_;
  std::complex<T>* data_ = nullptr;
};

// FFTW plans currently cached (held by FftPlans or kept for reuse); for tests.
std::size_t fftw_plans_cached();

}  // namespace nufftmp::detail::cpu
