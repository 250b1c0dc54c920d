// The CPU engine through the tolerance sweep of tests/common/tolerance_sweep.hpp.
#include "common/tolerance_sweep.hpp"

namespace {
NUFFTMP_TOLERANCE_SWEEP(CpuToleranceSweep, Backend::Cpu);
}  // namespace
