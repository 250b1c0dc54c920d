// Shared test inputs: random uniform and clustered points, random complex data, output samples.
// Header-only; every engine's tests use these so that "uniform" and "clustered" mean the same
// everywhere. Seeds are deterministic (set NUFFTMP_TEST_SEED to vary them) and each test passes
// its own salt, so every case gets fresh data that a failure can reproduce.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "nufftmp/options.hpp"

namespace nufftmp::test {

// Options that pin the CPU engine (tests of the CPU engine run the same on a GPU machine).
inline Options cpu_options() {
  Options o;
  o.backend = Backend::Cpu;
  return o;
}

constexpr double kPi = 3.14159265358979323846;

enum class Dist { Uniform, Clustered };
inline const char* dist_name(Dist d) { return d == Dist::Uniform ? "uniform" : "clustered"; }

inline std::uint64_t base_seed() {
  const char* s = std::getenv("NUFFTMP_TEST_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261129ull;
}

// An engine seeded from the base seed and a per-test salt (e.g. a hash of the case name).
inline std::mt19937_64 make_rng(std::uint64_t salt) {
  std::seed_seq seq{base_seed(), salt, salt >> 32};
  return std::mt19937_64(seq);
}

// FNV-1a, to turn a test case's name into a salt.
inline std::uint64_t salt_of(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// Coordinates of M points in dim dimensions; unused axes are empty vectors.
template <typename T>
struct Points {
  int dim = 1;
  std::int64_t M = 0;
  std::array<std::vector<T>, 3> xyz;
  const T* x() const { return xyz[0].empty() ? nullptr : xyz[0].data(); }
  const T* y() const { return xyz[1].empty() ? nullptr : xyz[1].data(); }
  const T* z() const { return xyz[2].empty() ? nullptr : xyz[2].data(); }
};

// Uniform in [lo, hi)^dim (default [-pi, pi); use [-3pi, 3pi) to exercise folding).
template <typename T>
Points<T> uniform_points(int dim, std::int64_t M, std::mt19937_64& rng, double lo = -kPi,
                         double hi = kPi) {
  Points<T> p;
  p.dim = dim;
  p.M = M;
  std::uniform_real_distribution<double> u(lo, hi);
  for (int d = 0; d < dim; ++d) {
    p.xyz[d].resize(static_cast<size_t>(M));
    for (auto& v : p.xyz[d]) {
      v = static_cast<T>(u(rng));
      if (v >= static_cast<T>(hi)) v = static_cast<T>(lo);  // rounding to T hit the open end
    }
  }
  return p;
}

// The benchmark's clustered case: uniform in [0, 8h)^dim with h = 2 pi / nf[d], i.e. all
// points in a box of 8 fine-grid cells per dimension (nf from Plan::fine_grid()).
template <typename T>
Points<T> clustered_points(int dim, std::int64_t M, const std::array<std::int64_t, 3>& nf,
                           std::mt19937_64& rng, double cells = 8.0) {
  Points<T> p;
  p.dim = dim;
  p.M = M;
  for (int d = 0; d < dim; ++d) {
    std::uniform_real_distribution<double> u(0.0, cells * 2.0 * kPi / static_cast<double>(nf[d]));
    p.xyz[d].resize(static_cast<size_t>(M));
    for (auto& v : p.xyz[d]) v = static_cast<T>(u(rng));
  }
  return p;
}

// Type 3 inputs: per axis, points in [centre - half, centre + half]. Uniform spreads them over
// the box; Clustered puts 90% of them in a box of a twentieth of the width at a random place
// and the rest uniformly (the range stays the box, the density is far from uniform).
template <typename T>
Points<T> type3_points(Dist dist, int dim, std::int64_t M, const std::array<double, 3>& centre,
                       const std::array<double, 3>& half, std::mt19937_64& rng) {
  Points<T> p;
  p.dim = dim;
  p.M = M;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int d = 0; d < dim; ++d) {
    const double cluster = centre[d] + 0.9 * half[d] * u(rng);
    p.xyz[d].resize(static_cast<size_t>(M));
    for (std::int64_t j = 0; j < M; ++j) {
      const bool in_cluster = dist == Dist::Clustered && j % 10 != 0;
      const double v =
          in_cluster ? cluster + 0.05 * half[d] * u(rng) : centre[d] + half[d] * u(rng);
      p.xyz[d][j] = static_cast<T>(v);
    }
  }
  return p;
}

template <typename T>
Points<T> make_points(Dist dist, int dim, std::int64_t M, const std::array<std::int64_t, 3>& nf,
                      std::mt19937_64& rng) {
  return dist == Dist::Uniform ? uniform_points<T>(dim, M, rng)
                               : clustered_points<T>(dim, M, nf, rng);
}

// n complex values with real and imaginary parts uniform in [-1, 1).
template <typename T>
std::vector<std::complex<T>> random_complex(std::int64_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::complex<T>> v(static_cast<size_t>(n));
  for (auto& c : v) {
    const double re = u(rng);
    c = {static_cast<T>(re), static_cast<T>(u(rng))};
  }
  return v;
}

// All of 0..n-1 when n <= max_count, else max_count distinct indices, sorted (always including
// the first and last, where folding and wrapping bugs live).
inline std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t max_count,
                                                std::mt19937_64& rng) {
  std::vector<std::int64_t> idx;
  if (n <= 0) return idx;
  if (n <= max_count) {
    idx.resize(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) idx[i] = i;
    return idx;
  }
  std::uniform_int_distribution<std::int64_t> u(0, n - 1);
  idx.push_back(0);
  idx.push_back(n - 1);
  while (static_cast<std::int64_t>(idx.size()) < max_count) idx.push_back(u(rng));
  std::sort(idx.begin(), idx.end());
  idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
  return idx;
}

// Relative l2 distance ||a - b|| / ||b|| over n entries (absolute when b is all zero).
template <typename A, typename B>
double rel_l2(const std::complex<A>* a, const std::complex<B>* b, std::int64_t n) {
  long double num = 0, den = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::complex<double> x(a[i]), y(b[i]);
    num += std::norm(x - y);
    den += std::norm(y);
  }
  return static_cast<double>(den == 0 ? std::sqrt(num) : std::sqrt(num / den));
}

// sum conj(a_i) b_i in long double.
template <typename T>
std::complex<double> dot(const std::vector<std::complex<T>>& a,
                         const std::vector<std::complex<T>>& b) {
  long double re = 0, im = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::complex<double> p = std::conj(std::complex<double>(a[i])) * std::complex<double>(b[i]);
    re += p.real();
    im += p.imag();
  }
  return {static_cast<double>(re), static_cast<double>(im)};
}

}  // namespace nufftmp::test
