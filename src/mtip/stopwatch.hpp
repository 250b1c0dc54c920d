// The M-TIP stages' wall-clock intervals: the library's one stopwatch (common/stopwatch.hpp).
#pragma once

#include "common/stopwatch.hpp"

namespace nufftmp::mtip::detail {
using nufftmp::detail::Clock;
using nufftmp::detail::ms_since;
}  // namespace nufftmp::mtip::detail
