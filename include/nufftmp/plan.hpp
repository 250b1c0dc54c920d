// The single-device NUFFT plan: construct -> set_points -> execute (any number of times).
// The same class drives the CPU engine (OpenMP + FFTW) and the CUDA engine (cuFFT); the
// backend is chosen by Options::backend (Auto = CUDA when a device is present).
//
// Definitions (d = 1, 2, 3; modes k_i in -N_i/2 <= k_i <= (N_i-1)/2; x fastest in arrays):
//   type 1:  f[k] = sum_j c[j] exp(isign * i k.x_j)          (nonuniform -> uniform)
//   type 2:  c[j] = sum_k f[k] exp(isign * i k.x_j)          (uniform -> nonuniform)
//   type 3:  f[k] = sum_j c[j] exp(isign * i s_k.x_j)        (nonuniform -> nonuniform)
// Coordinates x of type T are legal when finite and -T(3pi) <= x <= T(3pi) (3pi rounded to T):
// a closed interval, symmetric, so every double in [-3pi, 3pi] stays legal after rounding to
// float, as in FINUFFT. They are folded periodically (+-3pi is the same point as +-pi).
// Type 3 sources x_j and targets s_k are any finite reals (j < M, k < N); the work grows with
// the space-bandwidth product (the sources' extent times the targets' extent, per axis).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nufftmp/errors.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp {

namespace detail {
template <typename T> class Engine;
struct PlanConfig;
}  // namespace detail

enum class MemorySpace { Host, Device };

// Type 3: per axis, the closed ranges [lo, hi] the sources and the targets lie in (unused axes
// are ignored; lo > hi means no points). The plan sizes its grids from them.
struct Type3Bounds {
  std::array<double, 3> source_lo{}, source_hi{}, target_lo{}, target_hi{};
};

const char* backend_name(Backend b) noexcept;
const char* method_name(Method m) noexcept;
// True when this build has the CUDA engine and at least one device is visible.
bool cuda_available() noexcept;
// Number of visible CUDA devices (0 when the CUDA engine is not built in).
int cuda_device_count() noexcept;

template <typename T>
class Plan {
 public:
  using complex_type = std::complex<T>;

  // type: 1 or 2. modes: N1 [, N2 [, N3]] (its length is the dimension). isign: +1 or -1.
  // ntransf: vectors per execute (>= 1). tol: requested relative accuracy, 1e-14 .. 1e-1.
  Plan(int type, const std::vector<std::int64_t>& modes, int isign, int ntransf, double tol,
       const Options& opts = Options());
  // Type 3: type = 3, dim = 1, 2 or 3 (sources and targets come with set_points; the grids are
  // sized there). A template only so that a braced list of one mode, Plan(1, {64}, ...), still
  // means the constructor above.
  template <typename Int, typename std::enable_if<std::is_integral<Int>::value, int>::type = 0>
  Plan(int type, Int dim, int isign, int ntransf, double tol, const Options& opts = Options())
      : Plan(Type3Tag{}, type, static_cast<long long>(dim), isign, ntransf, tol, opts) {}
  ~Plan();
  // A moved-from plan throws Error(InvalidArgument) from every call but destruction and
  // assignment.
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Coordinates in the plan's memory space (memory_space()): device pointers for the CUDA
  // engine. y, z are ignored (may be null) below 2 resp. 3 dimensions. The plan keeps no
  // reference to them after the call returns (CUDA: after the work on the plan's stream ends).
  void set_points(std::int64_t M, const T* x, const T* y = nullptr, const T* z = nullptr);
  // execute before any successful set_points is Error(InvalidArgument) on every engine.
  // c: ntransf * M strengths/values; f: ntransf * prod(N) modes, x fastest. Type 1 reads c and
  // writes f; type 2 reads f and writes c. Pointers in the plan's memory space. On the CUDA
  // engine the call is ordered on the plan's stream and returns without device-wide sync.
  void execute(complex_type* c, complex_type* f);

  // Type 3: M sources (x, y, z) and N targets (s, t, u), in the plan's memory space; unused axes
  // may be null. Throws BadPoints naming the array and index of a NaN or Inf. bounds: null =
  // the points' own ranges; else the ranges to size the grids for, which must contain every
  // point (BadPoints otherwise): e.g. those of a larger set these points are part of, so that
  // several plans get the same grid (DistPlan). Type 3 execute: c (ntransf * M strengths at
  // the sources) -> f (ntransf * N values at the targets). M = 0 gives zeros, N = 0 nothing.
  // A space-bandwidth product beyond memory is Error(OutOfMemory) naming the grid it needs.
  void set_points(std::int64_t M, const T* x, const T* y, const T* z, std::int64_t N,
                  const T* s, const T* t = nullptr, const T* u = nullptr,
                  const Type3Bounds* bounds = nullptr);
  // Type 3: the ranges of these sources and targets (plan's memory space; BadPoints as above).
  Type3Bounds type3_bounds(std::int64_t M, const T* x, const T* y, const T* z, std::int64_t N,
                           const T* s, const T* t = nullptr, const T* u = nullptr) const;

  // Host-pointer conveniences: copy in, run, copy out (block until the result is on the host).
  void set_points_host(std::int64_t M, const T* x, const T* y = nullptr, const T* z = nullptr);
  void set_points_host(std::int64_t M, const T* x, const T* y, const T* z, std::int64_t N,
                       const T* s, const T* t = nullptr, const T* u = nullptr,
                       const Type3Bounds* bounds = nullptr);
  Type3Bounds type3_bounds_host(std::int64_t M, const T* x, const T* y, const T* z,
                                std::int64_t N, const T* s, const T* t = nullptr,
                                const T* u = nullptr) const;
  void execute_host(complex_type* c, complex_type* f);
  // Wait for all work of this plan (no-op on the CPU engine).
  void synchronize();

  // Queries. For type 3 the "modes" are the targets (f holds ntransf * num_modes() values) and
  // fine_grid() is the spreading grid the last set_points chose (its inner type 2 upsamples it
  // again); before set_points: no targets and a grid of 1 x 1 x 1.
  int type() const;
  int dim() const;
  int isign() const;
  int ntransf() const;
  std::array<std::int64_t, 3> modes() const;      // unused dims are 1; type 3: {N, 1, 1}
  std::int64_t num_modes() const;                 // prod(N); type 3: N (targets)
  std::int64_t num_points() const;                // M of the last set_points (0 before)
  std::array<std::int64_t, 3> fine_grid() const;  // unused dims are 1
  int kernel_width() const;
  double kernel_beta() const;
  double upsampfac() const;
  double tolerance() const;  // effective tolerance (after any clamping to the precision floor)
  Backend backend() const;   // resolved: Cpu or Cuda
  Method method() const;     // resolved (type 3: its spreading plan's, Auto before set_points)
  MemorySpace memory_space() const;
  std::size_t memory_bytes() const;  // working memory held by the engine
  std::string describe() const;      // one line: dims, grid, kernel, backend, method

 private:
  // The configuration and engine; Error(InvalidArgument) on a moved-from plan.
  const detail::PlanConfig& config() const;
  detail::Engine<T>& engine() const;
  void require_points() const;
  struct Type3Tag {};
  Plan(Type3Tag, int type, long long dim, int isign, int ntransf, double tol, const Options& opts);

  std::unique_ptr<detail::PlanConfig> config_;
  std::unique_ptr<detail::Engine<T>> engine_;
  bool points_set_ = false;  // a set_points has succeeded
};

extern template class Plan<float>;
extern template class Plan<double>;

}  // namespace nufftmp
