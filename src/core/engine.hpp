// The interface between Plan<T> and an engine. An engine receives the validated PlanConfig
// (it outlives the engine) and owns every buffer it needs.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

#include "common/plan_config.hpp"
#include "nufftmp/options.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {

template <typename T>
class Engine {
 public:
  virtual ~Engine() = default;
  // Pointers in the engine's memory space.
  virtual void set_points(std::int64_t M, const T* x, const T* y, const T* z) = 0;
  virtual void execute(std::complex<T>* c, std::complex<T>* f) = 0;
  // Host pointers always.
  virtual void set_points_host(std::int64_t M, const T* x, const T* y, const T* z) = 0;
  virtual void execute_host(std::complex<T>* c, std::complex<T>* f) = 0;
  virtual void synchronize() = 0;

  virtual std::int64_t num_points() const = 0;
  virtual Backend backend() const = 0;
  virtual Method method() const = 0;
  virtual MemorySpace memory_space() const = 0;
  virtual std::size_t memory_bytes() const = 0;
};

template <typename T>
std::unique_ptr<Engine<T>> make_cpu_engine(const PlanConfig& cfg);

// Defined in cuda/ when the CUDA engine is built, else by a stub that throws NotAvailable.
template <typename T>
std::unique_ptr<Engine<T>> make_cuda_engine(const PlanConfig& cfg);
int cuda_device_count_impl() noexcept;
// CUDA builds: Error(NotAvailable) unless a device is visible (the check of every CUDA plan).
void require_cuda_device();

}  // namespace nufftmp::detail
