// Random inputs. Each array is filled in fixed-size chunks whose generator is seeded from
// (seed, array, chunk), so the data do not depend on the OpenMP thread count and 2e7 points
// take a fraction of a second.
#include "bench_data.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::bench {

namespace {

constexpr std::int64_t kChunk = 1 << 16;

// splitmix64: a small, well-mixed generator; one per chunk.
struct SplitMix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

std::uint64_t chunk_seed(std::uint64_t seed, std::uint64_t stream, std::int64_t chunk) {
  SplitMix64 g{seed * 0x100000001B3ull + stream * 0x9E3779B97F4A7C15ull +
               static_cast<std::uint64_t>(chunk)};
  return g.next();
}

// a[i] = lo + (hi - lo) * u_i. The result is clamped below hi: rounding to float could land
// exactly on hi, which is outside the half-open box.
template <typename T>
void fill_uniform(std::vector<T>& a, double lo, double hi, std::uint64_t seed,
                  std::uint64_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  const std::int64_t nchunks = (n + kChunk - 1) / kChunk;
  const T top = std::nextafter(static_cast<T>(hi), static_cast<T>(lo));
#pragma omp parallel for schedule(static)
  for (std::int64_t ch = 0; ch < nchunks; ++ch) {
    SplitMix64 g{chunk_seed(seed, stream, ch)};
    const std::int64_t end = std::min(n, (ch + 1) * kChunk);
    for (std::int64_t i = ch * kChunk; i < end; ++i)
      a[i] = std::min(static_cast<T>(lo + (hi - lo) * g.uniform()), top);
  }
}

template <typename T>
void fill_complex(std::vector<std::complex<T>>& a, std::uint64_t seed, std::uint64_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  const std::int64_t nchunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (std::int64_t ch = 0; ch < nchunks; ++ch) {
    SplitMix64 g{chunk_seed(seed, stream, ch)};
    const std::int64_t end = std::min(n, (ch + 1) * kChunk);
    for (std::int64_t i = ch * kChunk; i < end; ++i) {
      const double re = 2 * g.uniform() - 1, im = 2 * g.uniform() - 1;
      a[i] = std::complex<T>(static_cast<T>(re), static_cast<T>(im));
    }
  }
}

}  // namespace

template <typename T>
BenchData<T> make_bench_data(const BenchOptions& o, std::int64_t M, std::uint64_t seed) {
  const double pi = 3.14159265358979323846;
  BenchData<T> d;
  d.M = M;
  std::vector<T>* coords[3] = {&d.x, &d.y, &d.z};
  for (int k = 0; k < o.dim(); ++k) {
    coords[k]->resize(static_cast<std::size_t>(M));
    double lo = -pi, hi = pi;
    if (o.dist == PointDist::Cluster) {
      const double h = 2 * pi / (2.0 * static_cast<double>(o.N[k]));
      lo = 0;
      hi = 8 * h;
    }
    fill_uniform(*coords[k], lo, hi, seed, 1 + k);
  }
  if (o.type == 3) {
    // (N_i / 2)(u + a_i), u uniform in [-1, 1): the range of a type 1 of N_i modes, shifted.
    const double shift[3] = {1.7, -0.5, 0.9};
    std::vector<T>* targets[3] = {&d.s, &d.t, &d.u};
    for (int k = 0; k < o.dim(); ++k) {
      targets[k]->resize(static_cast<std::size_t>(o.num_modes()));
      const double half = 0.5 * static_cast<double>(o.N[k]);
      fill_uniform(*targets[k], half * (shift[k] - 1), half * (shift[k] + 1), seed, 4 + k);
    }
  }
  const auto nc = static_cast<std::size_t>(M) * o.ntransf;
  const auto nf = static_cast<std::size_t>(o.num_modes()) * o.ntransf;
  d.c.resize(nc);
  d.f.resize(nf);
  if (o.type != 2) fill_complex(d.c, seed, 10);
  else fill_complex(d.f, seed, 11);
  return d;
}

std::vector<std::int64_t> sample_indices(std::int64_t count, std::int64_t n,
                                         std::uint64_t seed) {
  std::vector<std::int64_t> idx;
  if (count <= 0 || n <= 0) return idx;
  if (n >= count) {
    idx.resize(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i) idx[i] = i;
    return idx;
  }
  // Random, not strided: a stride over a flat mode array would alias with the grid and test
  // only some columns. The corners (lowest and highest flat index) are always included.
  SplitMix64 g{chunk_seed(seed, 99, 0)};
  idx.push_back(0);
  idx.push_back(count - 1);
  while (static_cast<std::int64_t>(idx.size()) < n)
    idx.push_back(static_cast<std::int64_t>(g.next() % static_cast<std::uint64_t>(count)));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

template BenchData<float> make_bench_data<float>(const BenchOptions&, std::int64_t, std::uint64_t);
template BenchData<double> make_bench_data<double>(const BenchOptions&, std::int64_t,
                                                   std::uint64_t);

}  // namespace nufftmp::bench
