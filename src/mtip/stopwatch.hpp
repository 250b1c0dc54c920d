// Wall-clock intervals of the M-TIP stages (milliseconds, steady clock).
#pragma once

#include <chrono>

namespace nufftmp::mtip::detail {

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace nufftmp::mtip::detail
