// The solver's per-stage timings: the library's one stopwatch (common/stopwatch.hpp).
#pragma once

#include "common/stopwatch.hpp"

namespace nufftmp::ewald::detail {
using nufftmp::detail::Clock;
using nufftmp::detail::ms_since;
}  // namespace nufftmp::ewald::detail
