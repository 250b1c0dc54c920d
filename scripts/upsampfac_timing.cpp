// Helper of scripts/calibrate_upsampfac.py (compiled by it against a build's libnufftmp; not
// part of the build): one-thread CPU time of one execute of the CPU engine at fixed sigma, for
// a grid of problems. Thread CPU time (not wall time) so that a shared, loaded machine still
// measures the work. One line per run: type dim prec tol sigma M w G ms.
#include <nufftmp/nufftmp.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

namespace {

double thread_cpu_s() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

template <typename T>
void run(int type, const std::vector<std::int64_t>& N, std::int64_t M, double tol, double sigma) {
  nufftmp::Options o;
  o.backend = nufftmp::Backend::Cpu;
  o.nthreads = 1;
  o.upsampfac = sigma;
  nufftmp::Plan<T> p(type, N, 1, 1, tol, o);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-3.14159, 3.14159);
  std::vector<T> xyz[3];
  for (std::size_t d = 0; d < N.size(); ++d) {
    xyz[d].resize(M);
    for (auto& v : xyz[d]) v = static_cast<T>(u(rng));
  }
  std::vector<std::complex<T>> c(M, {1, 0.5}), f(p.num_modes(), {0.5, 1});
  p.set_points_host(M, xyz[0].data(), N.size() > 1 ? xyz[1].data() : nullptr,
                    N.size() > 2 ? xyz[2].data() : nullptr);
  p.execute_host(c.data(), f.data());
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const double t0 = thread_cpu_s();
    p.execute_host(c.data(), f.data());
    best = std::min(best, thread_cpu_s() - t0);
  }
  const auto nf = p.fine_grid();
  double G = 1;
  for (std::size_t d = 0; d < N.size(); ++d) G *= static_cast<double>(nf[d]);
  std::printf("%d %zu %c %g %g %lld %d %g %.6f\n", type, N.size(), sizeof(T) == 4 ? 'f' : 'd',
              tol, sigma, static_cast<long long>(M), p.kernel_width(), G, best * 1e3);
  std::fflush(stdout);
}

}  // namespace

int main() {
  const std::vector<std::vector<std::int64_t>> sizes = {{100000}, {1000000}, {128, 128},
                                                        {512, 512}, {32, 32, 32}, {64, 64, 64}};
  for (const auto& N : sizes) {
    double dense = 1;
    for (auto n : N) dense *= 2.0 * n;
    for (double density : {0.1, 1.0})
      for (int type : {1, 2})
        for (double sigma : {1.25, 1.5, 2.0}) {
          const auto M = static_cast<std::int64_t>(density * dense);
          for (double tol : {1e-3, 1e-6}) run<float>(type, N, M, tol, sigma);
          for (double tol : {1e-6, 1e-12}) run<double>(type, N, M, tol, sigma);
        }
  }
}
