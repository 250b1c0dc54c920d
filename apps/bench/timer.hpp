// Interval timers for the bench. The host timer brackets the interval with plan
// synchronisation and std::chrono; the device timer records CUDA events on the plan's stream
// (so GPU work is timed without host overhead). The CUDA one is compiled only when the CUDA
// engine is built; this header needs no CUDA.
#pragma once

#include <functional>
#include <memory>

namespace nufftmp::bench {

class Timer {
 public:
  virtual ~Timer() = default;
  virtual void start() = 0;
  // Ends the interval, waits for its work to finish, returns its length in milliseconds.
  virtual double stop_ms() = 0;
};

// sync is called at start and stop (e.g. plan.synchronize()).
std::unique_ptr<Timer> make_host_timer(std::function<void()> sync);
// Events on a cudaStream_t (nullptr: the default stream). Throws NotAvailable without CUDA.
std::unique_ptr<Timer> make_device_timer(void* stream);

}  // namespace nufftmp::bench
