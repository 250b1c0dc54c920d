// Type 3 on the CPU engine against the direct sum: every dim x precision x tolerance x source
// and target distribution, off-centre and centred, each on fresh random data.
#include <gtest/gtest.h>

#include "common/type3_case.hpp"

namespace nufftmp::test {
namespace {

class Type3CpuAccuracy : public ::testing::TestWithParam<Type3Case> {};

TEST_P(Type3CpuAccuracy, MatchesDirectSum) {
  const Type3Case& c = GetParam();
  with_precision(c.prec, [&](auto t) { run_type3_case<decltype(t)>(c, cpu_options()); });
}

INSTANTIATE_TEST_SUITE_P(AllCases, Type3CpuAccuracy,
                         ::testing::ValuesIn(type3_cases({1e-2, 1e-4, 1e-6},
                                                         {1e-2, 1e-6, 1e-9, 1e-12})),
                         [](const ::testing::TestParamInfo<Type3Case>& info) {
                           return type3_case_name(info.param);
                         });

}  // namespace
}  // namespace nufftmp::test
