// The CUDA engine through the tolerance sweep of tests/common/tolerance_sweep.hpp (the same
// cases and bound as the CPU engine's test_cpu_tolerance_sweep; sigma chosen by the CUDA cost
// model where the case leaves it to the plan).
#include "common/tolerance_sweep.hpp"

namespace nufftmp::test {
namespace {

class CudaToleranceSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(CudaToleranceSweep, WithinAFewTolerances) {
  const SweepCase& c = GetParam();
  with_precision(c.prec, [&](auto t) { run_sweep_case<decltype(t)>(c, Backend::Cuda); });
}

INSTANTIATE_TEST_SUITE_P(Sweep, CudaToleranceSweep, ::testing::ValuesIn(sweep_cases()),
                         [](const ::testing::TestParamInfo<SweepCase>& info) {
                           return sweep_name(info.param);
                         });

}  // namespace
}  // namespace nufftmp::test
