// Inputs of one benchmark run: nonuniform points and the strengths (type 1) or mode
// coefficients (type 2). Deterministic for a seed whatever the thread count.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "bench_options.hpp"

namespace nufftmp::bench {

template <typename T>
struct BenchData {
  std::int64_t M = 0;
  std::vector<T> x, y, z;           // y, z empty past dim
  std::vector<T> s, t, u;           // type 3: the prod(N) targets (t, u empty past dim)
  std::vector<std::complex<T>> c;   // ntransf * M   (type 1/3 input, type 2 output)
  std::vector<std::complex<T>> f;   // ntransf * prod(N) (type 1/3 output, type 2 input)
};

// Points: uniform in [-pi, pi)^d, or clustered: uniform in [0, 8h)^d with h = 2pi / (2 N_i),
// i.e. an 8^d box of fine-grid cells at sigma = 2. Inputs: uniform in [-1, 1] + i[-1, 1].
// Type 3 targets: see --type in the usage text (cuperftest's convention).
// M and the sizes are given explicitly so a distributed run can generate a rank's share.
template <typename T>
BenchData<T> make_bench_data(const BenchOptions& o, std::int64_t M, std::uint64_t seed);

// About n distinct random indices in [0, count), sorted, first and last included (all of them
// when n >= count).
std::vector<std::int64_t> sample_indices(std::int64_t count, std::int64_t n, std::uint64_t seed);

}  // namespace nufftmp::bench
