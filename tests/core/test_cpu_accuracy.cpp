// The CPU engine against the direct sums: every dim x type x precision x tolerance x point
// distribution x modeord x isign, each on fresh random data. Relative l2 error must stay
// within 10 x max(tol, the plan's effective tolerance).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "common/accuracy_case.hpp"

namespace nufftmp::test {
namespace {

struct Case {
  int dim, type;
  Prec prec;
  double tol;
  Dist dist;
  int modeord, isign;
};

std::string case_name(const Case& c) {
  std::ostringstream os;
  os << c.dim << "d_type" << c.type << "_" << prec_name(c.prec) << "_tol"
     << static_cast<int>(-std::log10(c.tol) + 0.5) << "_" << dist_name(c.dist) << "_ord"
     << c.modeord << "_" << (c.isign > 0 ? "pos" : "neg");
  return os.str();
}

// Small but not trivial: odd and even axes, a few points per fine cell at most.
std::vector<std::int64_t> modes_for(int dim) {
  if (dim == 1) return {131};
  if (dim == 2) return {24, 17};
  return {10, 7, 12};
}

template <typename T>
void run_case(const Case& c) {
  const std::string name = case_name(c);
  auto rng = make_rng(salt_of(name));
  Options opts;
  opts.backend = Backend::Cpu;
  opts.modeord = c.modeord;
  Plan<T> plan(c.type, modes_for(c.dim), c.isign, 1, c.tol, opts);
  const std::int64_t M = c.dim == 1 ? 300 : c.dim == 2 ? 600 : 800;
  expect_accurate(plan, name, c.dist, M, c.modeord, c.tol, rng, 1000);
}

class CpuAccuracy : public ::testing::TestWithParam<Case> {};

TEST_P(CpuAccuracy, MatchesDirectSum) {
  const Case& c = GetParam();
  with_precision(c.prec, [&](auto t) { run_case<decltype(t)>(c); });
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (int dim : {1, 2, 3})
    for (int type : {1, 2})
      for (Prec prec : {Prec::Float, Prec::Double})
        for (double tol : {1e-2, 1e-4, 1e-6, 1e-9, 1e-12}) {
          if (prec == Prec::Float && tol < 1e-6) continue;
          for (Dist dist : {Dist::Uniform, Dist::Clustered})
            for (int modeord : {0, 1})
              for (int isign : {1, -1}) cases.push_back({dim, type, prec, tol, dist, modeord, isign});
        }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllCases, CpuAccuracy, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return case_name(info.param);
                         });

}  // namespace
}  // namespace nufftmp::test
