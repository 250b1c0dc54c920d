// What the memory system allows set_points' placing pass (bin_pass_impl.hpp place_dim) on this
// machine, one thread, bins known in advance (no folding): the counting sort's scatter of
//   seq32   32 bytes per point written in order (the bound without a sort)
//   scat32  32 bytes per point to its bin's next slot, in two streams per bin: 3 doubles of
//           coordinates and an int64 permutation entry (what nufftmp's sort writes in 3D)
//   scat8   8 bytes per point, the permutation only (what an index sort such as FINUFFT's
//           writes; its spreader then reads the coordinates through it)
// for uniformly random bins. Best of 5 runs, ms. A measuring tool for docs/performance.md,
// not part of the build:
//   g++ -O2 -march=native scripts/cpu_scatter_bound.cpp -o /tmp/cpu_scatter_bound
//   /tmp/cpu_scatter_bound [bins=8192] [M=1e6]
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Huge-page backed, as HostArray (the scatter's cost depends on the TLB).
template <typename T>
T* huge_array(std::size_t n) {
  const std::size_t page = std::size_t(1) << 21;
  const std::size_t bytes = (n * sizeof(T) + page - 1) / page * page;
  void* p = std::aligned_alloc(page, bytes);
  if (p == nullptr) std::exit(1);
  madvise(p, bytes, MADV_HUGEPAGE);
  std::fill_n(static_cast<char*>(p), bytes, 0);
  return static_cast<T*>(p);
}

template <typename Fn>
double best_ms(Fn&& fn) {
  double best = HUGE_VAL;
  for (int r = 0; r < 5; ++r) {
    const auto t = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t nbins = argc > 1 ? std::atoll(argv[1]) : 8192;
  const auto M = static_cast<std::int64_t>(argc > 2 ? std::atof(argv[2]) : 1e6);
  std::vector<std::uint32_t> bin(static_cast<std::size_t>(M)), start(nbins), next(nbins);
  std::mt19937 rng(1);
  for (auto& b : bin) b = static_cast<std::uint32_t>(rng() % nbins);
  for (auto b : bin) ++next[b];
  std::uint32_t offset = 0;
  for (std::int64_t b = 0; b < nbins; ++b) start[b] = offset, offset += next[b];
  double* g = huge_array<double>(static_cast<std::size_t>(3 * M));
  std::int64_t* perm = huge_array<std::int64_t>(static_cast<std::size_t>(M));

  const double seq32 = best_ms([&] {
    for (std::int64_t j = 0; j < M; ++j) {
      perm[j] = j;
      for (int d = 0; d < 3; ++d) g[3 * j + d] = 0.5 * static_cast<double>(j) + d;
    }
  });
  const double scat32 = best_ms([&] {
    std::copy(start.begin(), start.end(), next.begin());
    for (std::int64_t j = 0; j < M; ++j) {
      const std::int64_t p = next[bin[j]]++;
      perm[p] = j;
      for (int d = 0; d < 3; ++d) g[3 * p + d] = 0.5 * static_cast<double>(j) + d;
    }
  });
  const double scat8 = best_ms([&] {
    std::copy(start.begin(), start.end(), next.begin());
    for (std::int64_t j = 0; j < M; ++j) perm[next[bin[j]]++] = j;
  });
  std::printf("bins %lld M %lld: seq32 %.2f ms, scat32 %.2f ms, scat8 %.2f ms\n",
              static_cast<long long>(nbins), static_cast<long long>(M), seq32, scat32, scat8);
  return 0;
}
