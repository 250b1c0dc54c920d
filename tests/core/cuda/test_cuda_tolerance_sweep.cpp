// The CUDA engine through the tolerance sweep of tests/common/tolerance_sweep.hpp (the same
// cases and bound as the CPU engine's test_cpu_tolerance_sweep; sigma chosen by the CUDA cost
// model where the case leaves it to the plan).
#include "common/tolerance_sweep.hpp"

namespace {
NUFFTMP_TOLERANCE_SWEEP(CudaToleranceSweep, Backend::Cuda);
}  // namespace
