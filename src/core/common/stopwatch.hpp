// Milliseconds since a time point (steady clock): the per-stage timings of the plans, the
// distributed layer, M-TIP and the Ewald solver (host wall clock; device stages synchronise
// before they return).
#pragma once

#include <chrono>

namespace nufftmp::detail {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace nufftmp::detail
