// Every bad input gets its error code, and a message naming the parameter (and index).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "common/expect_error.hpp"
#include "common/test_data.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::test {
namespace {


template <typename T>
void bad_coordinates() {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  const T three_pi = static_cast<T>(3 * kPi);
  struct Bad {
    int axis;
    std::int64_t index;
    T value;
    const char* name;
  };
  const Bad bads[] = {{0, 5, nan, "x[5]"},
                      {1, 7, inf, "y[7]"},
                      {2, 3, -inf, "z[3]"},
                      {0, 0, static_cast<T>(10.0), "x[0]"},
                      {2, 19, static_cast<T>(-9.5), "z[19]"},
                      // [-T(3pi), T(3pi)] is closed: one step outside either end is out.
                      {1, 11, std::nextafter(three_pi, T(100)), "y[11]"},
                      {0, 13, std::nextafter(-three_pi, T(-100)), "x[13]"}};
  for (const auto& b : bads) {
    auto rng = make_rng(salt_of(b.name));
    Plan<T> p(1, {8, 8, 8}, 1, 1, 1e-4, cpu_options());
    auto pts = uniform_points<T>(3, 20, rng);
    pts.xyz[b.axis][b.index] = b.value;
    expect_error([&] { p.set_points(20, pts.x(), pts.y(), pts.z()); }, ErrorCode::BadPoints,
                 {b.name});
  }
}

TEST(Errors, BadCoordinatesNameTheIndex) {
  bad_coordinates<float>();
  bad_coordinates<double>();
}

TEST(Errors, FailedSetPointsKeepsThePreviousPoints) {
  auto rng = make_rng(3);
  Plan<double> p(2, {12, 12}, 1, 1, 1e-6, cpu_options());
  auto good = uniform_points<double>(2, 30, rng);
  p.set_points(30, good.x(), good.y());
  auto bad = good;
  bad.xyz[1][29] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(p.set_points(30, bad.x(), bad.y()), Error);
  EXPECT_EQ(p.num_points(), 30);
  std::vector<std::complex<double>> c(30), f(p.num_modes(), {1, 0});
  EXPECT_NO_THROW(p.execute(c.data(), f.data()));
}

TEST(Errors, ModesOutOfRange) {
  expect_error([] { Plan<double>(1, {0}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::InvalidArgument, {"modes[0]", "0"});
  expect_error([] { Plan<double>(1, {8, -3}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::InvalidArgument, {"modes[1]", "-3"});
  expect_error([] { Plan<float>(2, {4, 4, 0}, 1, 1, 1e-4, cpu_options()); },
               ErrorCode::InvalidArgument, {"modes[2]"});
  expect_error([] { Plan<double>(1, {}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::InvalidArgument, {"dimension"});
  expect_error([] { Plan<double>(1, {2, 2, 2, 2}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::InvalidArgument, {"dimension"});
  // Beyond the per-axis limit.
  expect_error([] { Plan<double>(1, {std::int64_t(1) << 41}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::InvalidArgument, {"modes[0]"});
  // Legal per axis, but no machine holds the fine grid.
  expect_error(
      [] { Plan<double>(1, {1 << 20, 1 << 20, 1 << 20}, 1, 1, 1e-6, cpu_options()); },
      ErrorCode::OutOfMemory, {"fine grid"});
  // 1D at the per-axis limit: the kernel's Fourier table alone (2^39 doubles, 4.4 TB) is
  // refused before it is allocated, naming the modes and the size.
  expect_error([] { Plan<double>(1, {std::int64_t(1) << 40}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::OutOfMemory, {"1099511627776", "Fourier tables", "GB"});
  expect_error([] { Plan<float>(2, {std::int64_t(1) << 40}, 1, 1, 1e-4, cpu_options()); },
               ErrorCode::OutOfMemory, {"1099511627776"});
  // Below that limit but far beyond this machine's memory (2^44 cells): the engine's
  // allocation fails and says how much it wanted.
  expect_error([] { Plan<double>(1, {1 << 21, 1 << 21}, 1, 1, 1e-6, cpu_options()); },
               ErrorCode::OutOfMemory, {"GB"});
}

TEST(Errors, ToleranceOutOfRange) {
  for (double tol : {0.0, -1e-6, 0.5, 1e-15, std::numeric_limits<double>::quiet_NaN()})
    expect_error([&] { Plan<double>(1, {16}, 1, 1, tol, cpu_options()); },
                 ErrorCode::InvalidArgument, {"tol"});
  // Below what float reaches: clamped, not an error.
  Plan<float> p(1, {16}, 1, 1, 1e-10, cpu_options());
  EXPECT_GE(p.tolerance(), 1e-7);
}

TEST(Errors, BadScalarParameters) {
  auto make = [](int type, int isign, int ntransf, const Options& o) {
    return [=] { Plan<double>(type, {16, 16}, isign, ntransf, 1e-6, o); };
  };
  const Options ok = cpu_options();
  expect_error(make(0, 1, 1, ok), ErrorCode::InvalidArgument, {"type", "0"});
  expect_error(make(3, 1, 1, ok), ErrorCode::InvalidArgument, {"type", "3"});
  expect_error(make(1, 0, 1, ok), ErrorCode::InvalidArgument, {"isign", "0"});
  expect_error(make(2, 2, 1, ok), ErrorCode::InvalidArgument, {"isign", "2"});
  expect_error(make(1, 1, 0, ok), ErrorCode::InvalidArgument, {"ntransf", "0"});
  expect_error(make(1, -1, -4, ok), ErrorCode::InvalidArgument, {"ntransf", "-4"});
  Options o = ok;
  o.modeord = 2;
  expect_error(make(1, 1, 1, o), ErrorCode::InvalidArgument, {"modeord", "2"});
  o = ok;
  o.modeord = -1;
  expect_error(make(1, 1, 1, o), ErrorCode::InvalidArgument, {"modeord"});
  for (double s : {1.0, 2.5, 0.0, std::numeric_limits<double>::quiet_NaN()}) {
    o = ok;
    o.upsampfac = s;
    expect_error(make(1, 1, 1, o), ErrorCode::InvalidArgument, {"upsampfac"});
  }
  o = ok;
  o.nthreads = -2;
  expect_error(make(1, 1, 1, o), ErrorCode::InvalidArgument, {"nthreads"});
  o = ok;
  o.maxbatchsize = -1;
  expect_error(make(1, 1, 1, o), ErrorCode::InvalidArgument, {"maxbatchsize"});
}

TEST(Errors, NullPointersAreNamed) {
  Plan<double> p3(1, {8, 8, 8}, 1, 1, 1e-6, cpu_options());
  std::vector<double> a(10, 0.1);
  expect_error([&] { p3.set_points(10, nullptr, a.data(), a.data()); },
               ErrorCode::InvalidArgument, {"x"});
  expect_error([&] { p3.set_points(10, a.data(), nullptr, a.data()); },
               ErrorCode::InvalidArgument, {"y"});
  expect_error([&] { p3.set_points(10, a.data(), a.data(), nullptr); },
               ErrorCode::InvalidArgument, {"z"});
  expect_error([&] { p3.set_points(-1, a.data(), a.data(), a.data()); },
               ErrorCode::InvalidArgument, {"M", "-1"});
  p3.set_points(10, a.data(), a.data(), a.data());
  std::vector<std::complex<double>> c(10), f(p3.num_modes());
  expect_error([&] { p3.execute(nullptr, f.data()); }, ErrorCode::InvalidArgument, {"c"});
  expect_error([&] { p3.execute(c.data(), nullptr); }, ErrorCode::InvalidArgument, {"f"});
  expect_error([&] { p3.execute_host(nullptr, f.data()); }, ErrorCode::InvalidArgument, {"c"});
  // 1D ignores y and z.
  Plan<float> p1(2, {8}, 1, 1, 1e-4, cpu_options());
  std::vector<float> x(5, 0.5f);
  EXPECT_NO_THROW(p1.set_points(5, x.data(), nullptr, nullptr));
}

TEST(Errors, CudaBackendWithoutADevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  Options o;
  o.backend = Backend::Cuda;
  expect_error([&] { Plan<float>(1, {16}, 1, 1, 1e-4, o); }, ErrorCode::NotAvailable, {"cuda"});
  // Auto falls back to the CPU engine.
  Plan<float> p(1, {16}, 1, 1, 1e-4, Options());
  EXPECT_EQ(p.backend(), Backend::Cpu);
  EXPECT_FALSE(cuda_available());
}

TEST(Errors, EveryCodeHasAName) {
  for (int c = 1; c <= static_cast<int>(ErrorCode::Internal); ++c) {
    const std::string name = error_code_name(static_cast<ErrorCode>(c));
    EXPECT_FALSE(name.empty());
    EXPECT_NE(name, "unknown");
  }
}

}  // namespace
}  // namespace nufftmp::test
