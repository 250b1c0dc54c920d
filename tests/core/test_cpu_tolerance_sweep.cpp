// The CPU engine through the tolerance sweep of tests/common/tolerance_sweep.hpp.
#include "common/tolerance_sweep.hpp"

namespace nufftmp::test {
namespace {

class CpuToleranceSweep : public ::testing::TestWithParam<SweepCase> {};

TEST_P(CpuToleranceSweep, WithinAFewTolerances) {
  const SweepCase& c = GetParam();
  with_precision(c.prec, [&](auto t) { run_sweep_case<decltype(t)>(c, Backend::Cpu); });
}

INSTANTIATE_TEST_SUITE_P(Sweep, CpuToleranceSweep, ::testing::ValuesIn(sweep_cases()),
                         [](const ::testing::TestParamInfo<SweepCase>& info) {
                           return sweep_name(info.param);
                         });

}  // namespace
}  // namespace nufftmp::test
