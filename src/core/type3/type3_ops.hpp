// The few array operations of a type 3 plan that are not a type 1 or type 2 plan: ranges of the
// coordinates, their rescaling, the phase and deconvolution factors, and moving data between
// the host and the plan's memory. One implementation per engine: OpenMP loops on the host
// (type3_ops_cpu.cpp), small kernels on the plan's stream on the device (type3_ops_cuda.cpp,
// type3_kernels.cu), so a CUDA plan's data never takes a trip through the host.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/kernel_ft.hpp"
#include "common/plan_config.hpp"
#include "common/type3_geometry.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {

// min and max of an array, and its first NaN/Inf (bad = -1 when every value is finite; lo and
// hi then cover the finite values only).
struct ValueRange {
  double lo = 0, hi = 0;
  std::int64_t bad = -1;
  double bad_value = 0;
};

template <typename T>
class Type3Ops {
 public:
  virtual ~Type3Ops() = default;
  virtual MemorySpace memory_space() const = 0;

  // Range of n coordinates (plan's memory). Blocks until the result is on the host.
  virtual ValueRange range(const T* a, std::int64_t n) = 0;
  // The device the plan runs on (-1 for a host plan).
  virtual int device() const { return -1; }

  // set_points, after the checks: keeps the rescaled sources x' = (x - C) * source_scale and
  // targets t = (s - D) * target_scale per axis (the inner plans' points), the pre-phase
  // exp(isign i D.x_j) when g.prephase, and per target the factor
  // exp(isign i (s - D).C) / prod_d phihat(t_d) (phihat from the quadrature q), and room for
  // nvec vectors of pre-phased strengths.
  virtual void prepare(const Type3Geometry& g, int isign, const KernelFtQuadrature& q,
                       std::int64_t M, const T* const* x, std::int64_t N, const T* const* s,
                       int nvec) = 0;
  virtual const T* source(int d) const = 0;
  virtual const T* target(int d) const = 0;

  // c (nvec * M, user order) times the pre-phase, in a buffer of ours; c itself when there is
  // no pre-phase.
  virtual const std::complex<T>* prephase(const std::complex<T>* c, int nvec) = 0;
  // f[v * N + k] *= factor[k] for v < nvec.
  virtual void postphase(std::complex<T>* f, int nvec) = 0;
  // The fine grids of one pass (cells complex values), kept between executes.
  virtual std::complex<T>* grid(std::size_t cells) = 0;
  virtual void zero(std::complex<T>* f, std::size_t count) = 0;

  // Host data in the plan's memory: the pointer itself for a host plan, else a copy held in
  // staging slot `slot` until release_staging().
  virtual const void* stage_in(const void* host, std::size_t bytes, int slot) = 0;
  // Room for an output in the plan's memory (slot as above); copy_out moves it to the host.
  virtual void* stage_out(void* host, std::size_t bytes, int slot) = 0;
  virtual void copy_out(void* host, const void* plan, std::size_t bytes) = 0;
  virtual void release_staging() = 0;

  virtual void synchronize() = 0;
  virtual std::size_t memory_bytes() const = 0;
};

// The range of n host values with nthreads OpenMP threads (the host plan's range(), and the
// check of host arrays before they are copied to a device).
template <typename T>
ValueRange host_value_range(const T* a, std::int64_t n, int nthreads);

template <typename T>
std::unique_ptr<Type3Ops<T>> make_type3_ops_cpu(const PlanConfig& cfg);
// Defined with the CUDA engine; without it, throws NotAvailable.
template <typename T>
std::unique_ptr<Type3Ops<T>> make_type3_ops_cuda(const PlanConfig& cfg);

}  // namespace nufftmp::detail
