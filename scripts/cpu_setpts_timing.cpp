// Times what a CPU-engine user pays for new points and new plans, the way FINUFFT's perftest
// times them (one plan, set_points then execute, repeated), plus the first calls of each:
//   plan_first   the first plan of this shape in the process (FFTW twiddles, tables)
//   plan_steady  best of 3 more plans of the same shape (the previous one destroyed)
//   setpts_first the first set_points of a fresh plan (its arrays are allocated and touched)
//   setpts       best of n_runs set_points of the same points on that plan
//   exec         best of n_runs executes after one warm-up, each the first after a set_points
//   exec2        best of n_runs executes each right after exec's (the same points: what a user
//                executing many vectors on one set of points pays per call)
//   setpts_exec  best of n_runs set_points + the execute right after it (what a user pays for
//                new points: a faster set_points must not be paid back in that execute)
// One line of JSON per run. Built and run by scripts/cpu_vs_finufft.sh (not part of the
// library build). Usage:
//   cpu_setpts_timing f|d type dim N M tol [uniform|cluster] [n_runs]
// Points: uniform in [-pi, pi)^dim, or (cluster) uniform in [0, 8h)^dim, h = 2pi / (2 N):
// the distributions of nufftmp-bench --dist.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "nufftmp/plan.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

template <typename T>
int run(int type, int dim, std::int64_t N, std::int64_t M, double tol, bool cluster, int n_runs) {
  const std::vector<std::int64_t> modes(static_cast<size_t>(dim), N);
  std::vector<T> xyz[3];
  std::mt19937_64 rng(42);
  const double lo = cluster ? 0.0 : -M_PI;
  const double hi = cluster ? 8 * 2 * M_PI / (2.0 * static_cast<double>(N)) : M_PI;
  std::uniform_real_distribution<double> u(lo, hi);
  for (int d = 0; d < dim; ++d) {
    xyz[d].resize(static_cast<size_t>(M));
    for (auto& v : xyz[d]) v = static_cast<T>(std::min(u(rng), std::nextafter(hi, lo)));
  }
  const T* y = dim > 1 ? xyz[1].data() : nullptr;
  const T* z = dim > 2 ? xyz[2].data() : nullptr;
  std::int64_t nmodes = 1;
  for (int d = 0; d < dim; ++d) nmodes *= N;
  std::vector<std::complex<T>> c(static_cast<size_t>(M), {1, 0.5}), f(static_cast<size_t>(nmodes), {0.5, -1});
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  // DEBUG=2 in the environment: the engine prints its set_points phases (sorted_points.cpp).
  if (const char* d = std::getenv("DEBUG")) opts.debug = std::atoi(d);
  // UPSAMPFAC=<sigma>: a fixed upsampling factor (default 0: the engine's cost model).
  if (const char* u = std::getenv("UPSAMPFAC")) opts.upsampfac = std::atof(u);

  auto t = Clock::now();
  double plan_first, plan_steady = HUGE_VAL;
  { nufftmp::Plan<T> p(type, modes, 1, 1, tol, opts); plan_first = ms_since(t); }
  for (int r = 0; r < 3; ++r) {
    t = Clock::now();
    nufftmp::Plan<T> p(type, modes, 1, 1, tol, opts);
    plan_steady = std::min(plan_steady, ms_since(t));
  }
  nufftmp::Plan<T> plan(type, modes, 1, 1, tol, opts);
  t = Clock::now();
  plan.set_points(M, xyz[0].data(), y, z);
  const double setpts_first = ms_since(t);
  double setpts = HUGE_VAL, exec = HUGE_VAL, exec2 = HUGE_VAL, setpts_exec = HUGE_VAL;
  plan.execute(c.data(), f.data());  // warm-up
  for (int r = 0; r < n_runs; ++r) {
    t = Clock::now();
    plan.set_points(M, xyz[0].data(), y, z);
    const double s = ms_since(t);
    setpts = std::min(setpts, s);
    t = Clock::now();
    plan.execute(c.data(), f.data());
    const double e = ms_since(t);
    exec = std::min(exec, e);
    setpts_exec = std::min(setpts_exec, s + e);
    t = Clock::now();
    plan.execute(c.data(), f.data());
    exec2 = std::min(exec2, ms_since(t));
  }
  std::printf("{\"prec\":\"%s\",\"type\":%d,\"dim\":%d,\"N\":%lld,\"M\":%lld,\"tol\":%g,"
              "\"dist\":\"%s\",\"modes\":%lld,\"plan_first_ms\":%.3f,\"plan_steady_ms\":%.3f,"
              "\"setpts_first_ms\":%.3f,\"setpts_ms\":%.3f,\"exec_ms\":%.3f,\"exec2_ms\":%.3f,"
              "\"setpts_exec_ms\":%.3f}\n",
              sizeof(T) == 4 ? "f" : "d", type, dim, static_cast<long long>(N),
              static_cast<long long>(M), tol, cluster ? "cluster" : "uniform",
              static_cast<long long>(nmodes), plan_first, plan_steady, setpts_first, setpts, exec, exec2, setpts_exec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s f|d type dim N M tol [uniform|cluster] [n_runs]\n", argv[0]);
    return 2;
  }
  const char prec = argv[1][0];
  const int type = std::atoi(argv[2]), dim = std::atoi(argv[3]);
  const auto N = static_cast<std::int64_t>(std::atof(argv[4]));
  const auto M = static_cast<std::int64_t>(std::atof(argv[5]));
  const double tol = std::atof(argv[6]);
  const bool cluster = argc > 7 && std::string(argv[7]) == "cluster";
  const int n_runs = argc > 8 ? std::atoi(argv[8]) : 10;
  try {
    return prec == 'f' ? run<float>(type, dim, N, M, tol, cluster, n_runs)
                       : run<double>(type, dim, N, M, tol, cluster, n_runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
