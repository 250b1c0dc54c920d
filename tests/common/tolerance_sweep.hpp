// The tolerance sweep that both engines' tests run (tests/core/test_cpu_tolerance_sweep.cpp,
// tests/core/cuda/test_cuda_tolerance_sweep.cpp): every tolerance 1e-1..1e-14 (float to its
// floor 1e-6) in every dim x type x precision, uniform and clustered points, with the default
// options (PSWF kernel, upsampfac chosen; small grids at density 1) and with a low fixed sigma
// (uniform points on grids large enough that sigma, not the 2w minimum, sets their size: 1.25
// for double, the widest kernels and the largest deconvolution factors; 1.4 for float, where its
// widest kernel, w = 9, is allowed), each on fresh data against the direct sum at sampled
// outputs. Where the width a fixed sigma allows cannot reach tol, the plan says so (warning) and
// its tolerance() is what the width reaches: the bound follows it.
//
// Bound: relative l2 error <= kSweepFactor x max(tol, floor). FINUFFT 2.5.1 (the PSWF kernel and
// width rule of FINUFFT / cuFINUFFT 2.6) measured on the same points exceeds tol by up to 1.5-2.5x
// in 2D/3D (its sigma = 1.25 at tol 1e-1..1e-3) and by 7x at the double floor in 1D
// (scripts/accuracy_vs_finufft.py, docs/performance.md); nufftmp stays at or below FINUFFT
// there. kSweepFactor = 3 leaves room for the data-to-data spread of the error (about +-20%)
// and fails a kernel, width or deconvolution that loses even half a digit. The floor is where
// rounding, not the kernel, sets the error: 1e-6 for float (where tol is clamped),
// kDoubleFloor for double (N x 2^-52 of the coordinates' folding grows it with the mode count;
// these sizes reach 2e-14).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/accuracy_case.hpp"

namespace nufftmp::test {

constexpr double kSweepFactor = 3.0;
constexpr double kDoubleFloor = 2e-14;

struct SweepCase {
  int dim, type;
  Prec prec;
  double tol;
  Dist dist;
  double sigma;  // 0: the plan chooses
};

inline double low_sigma(Prec p) { return p == Prec::Float ? 1.4 : 1.25; }

inline std::string sweep_name(const SweepCase& c) {
  std::ostringstream os;
  os << c.dim << "d_type" << c.type << "_" << prec_name(c.prec) << "_tol"
     << static_cast<int>(-std::log10(c.tol) + 0.5) << "_" << dist_name(c.dist)
     << (c.sigma == 0 ? "_auto" : "_lowsigma");
  return os.str();
}

inline std::vector<SweepCase> sweep_cases() {
  std::vector<SweepCase> cases;
  for (int dim : {1, 2, 3})
    for (int type : {1, 2})
      for (Prec prec : {Prec::Float, Prec::Double})
        for (int e = 1; e <= (prec == Prec::Float ? 6 : 14); ++e) {
          const double tol = std::pow(10.0, -e);
          cases.push_back({dim, type, prec, tol, Dist::Uniform, 0.0});
          cases.push_back({dim, type, prec, tol, Dist::Clustered, 0.0});
          cases.push_back({dim, type, prec, tol, Dist::Uniform, low_sigma(prec)});
        }
  return cases;
}

// Chosen sigma: small odd/even sizes at density 1 (M = prod(2 N)). Fixed low sigma: sigma N
// above 2 w = 32 on every axis, M = 2000 points. A few milliseconds per case.
inline std::vector<std::int64_t> sweep_modes(int dim, bool low_sigma) {
  if (low_sigma) {
    if (dim == 1) return {300};
    if (dim == 2) return {40, 33};
    return {28, 26, 30};
  }
  if (dim == 1) return {200};
  if (dim == 2) return {24, 19};
  return {10, 7, 12};
}

template <typename T>
void run_sweep_case(const SweepCase& c, Backend backend) {
  const std::string name = sweep_name(c);
  auto rng = make_rng(salt_of(name));
  Options opts;
  opts.backend = backend;
  opts.upsampfac = c.sigma;
  const auto modes = sweep_modes(c.dim, c.sigma != 0);
  Plan<T> plan(c.type, modes, +1, 1, c.tol, opts);
  ASSERT_EQ(plan.backend(), backend) << name;
  std::int64_t M = 1;
  for (auto n : modes) M *= 2 * n;
  if (c.sigma != 0) M = 2000;
  // bound = kSweepFactor x max(tol, plan.tolerance(), floor)
  const double floor = sizeof(T) == 4 ? 1e-6 : kDoubleFloor;
  const double factor = kSweepFactor * std::max(1.0, floor / std::max(c.tol, plan.tolerance()));
  expect_accurate(plan, name, c.dist, M, 0, c.tol, rng, 300, factor);
}

}  // namespace nufftmp::test

// The parameterised test of one engine: NUFFTMP_TOLERANCE_SWEEP(CpuToleranceSweep, Backend::Cpu).
#define NUFFTMP_TOLERANCE_SWEEP(Suite, backend)                                                 \
  class Suite : public ::testing::TestWithParam<::nufftmp::test::SweepCase> {};               \
  TEST_P(Suite, WithinAFewTolerances) {                                                       \
    const ::nufftmp::test::SweepCase& c = GetParam();                                         \
    ::nufftmp::test::with_precision(c.prec, [&](auto t) {                                     \
      ::nufftmp::test::run_sweep_case<decltype(t)>(c, ::nufftmp::backend);                    \
    });                                                                                       \
  }                                                                                           \
  INSTANTIATE_TEST_SUITE_P(Sweep, Suite, ::testing::ValuesIn(::nufftmp::test::sweep_cases()), \
                           [](const ::testing::TestParamInfo<::nufftmp::test::SweepCase>& i) { \
                             return ::nufftmp::test::sweep_name(i.param);                     \
                           })
