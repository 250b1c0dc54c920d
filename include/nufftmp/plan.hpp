// The single-device NUFFT plan: construct -> set_points -> execute (any number of times).
// The same class drives the CPU engine (OpenMP + FFTW) and the CUDA engine (cuFFT); the
// backend is chosen by Options::backend (Auto = CUDA when a device is present).
//
// Definitions (d = 1, 2, 3; modes k_i in -N_i/2 <= k_i <= (N_i-1)/2; x fastest in arrays):
//   type 1:  f[k] = sum_j c[j] exp(isign * i k.x_j)          (nonuniform -> uniform)
//   type 2:  c[j] = sum_k f[k] exp(isign * i k.x_j)          (uniform -> nonuniform)
// Coordinates may lie in [-3pi, 3pi) and are folded periodically.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nufftmp/errors.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp {

namespace detail {
template <typename T> class Engine;
struct PlanConfig;
}  // namespace detail

enum class MemorySpace { Host, Device };

const char* backend_name(Backend b) noexcept;
const char* method_name(Method m) noexcept;
const char* kernel_name(Kernel k) noexcept;   // "pswf", "es"
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
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Coordinates in the plan's memory space (memory_space()): device pointers for the CUDA
  // engine. y, z are ignored (may be null) below 2 resp. 3 dimensions. The plan keeps no
  // reference to them after the call returns (CUDA: after the work on the plan's stream ends).
  void set_points(std::int64_t M, const T* x, const T* y = nullptr, const T* z = nullptr);
  // c: ntransf * M strengths/values; f: ntransf * prod(N) modes, x fastest. Type 1 reads c and
  // writes f; type 2 reads f and writes c. Pointers in the plan's memory space. On the CUDA
  // engine the call is ordered on the plan's stream and returns without device-wide sync.
  void execute(complex_type* c, complex_type* f);

  // Host-pointer conveniences: copy in, run, copy out (block until the result is on the host).
  void set_points_host(std::int64_t M, const T* x, const T* y = nullptr, const T* z = nullptr);
  void execute_host(complex_type* c, complex_type* f);
  // Wait for all work of this plan (no-op on the CPU engine).
  void synchronize();

  // Queries.
  int type() const;
  int dim() const;
  int isign() const;
  int ntransf() const;
  std::array<std::int64_t, 3> modes() const;      // unused dims are 1
  std::int64_t num_modes() const;                 // prod(N)
  std::int64_t num_points() const;                // M of the last set_points (0 before)
  std::array<std::int64_t, 3> fine_grid() const;  // unused dims are 1
  Kernel kernel() const;      // Options::kernel
  int kernel_width() const;
  double kernel_beta() const;  // the kernel's shape parameter: ES beta, PSWF c
  double upsampfac() const;
  double tolerance() const;  // effective tolerance (after any clamping to the precision floor)
  Backend backend() const;   // resolved: Cpu or Cuda
  Method method() const;     // resolved method
  MemorySpace memory_space() const;
  std::size_t memory_bytes() const;  // working memory held by the engine
  std::string describe() const;      // one line: dims, grid, kernel, backend, method

 private:
  std::unique_ptr<detail::PlanConfig> config_;
  std::unique_ptr<detail::Engine<T>> engine_;
};

extern template class Plan<float>;
extern template class Plan<double>;

}  // namespace nufftmp
