// Milliseconds since a time point: the solver's per-stage timings (host wall clock; device
// stages synchronise before they return).
#pragma once

#include <chrono>

namespace nufftmp::ewald::detail {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace nufftmp::ewald::detail
