// Accuracy of a benchmark result: relative l2 error against the direct sum
// (nufftmp::reference) on a random sample of the outputs of one transform of the batch.
#pragma once

#include <complex>
#include <cstdint>

#include "bench_data.hpp"
#include "bench_options.hpp"

namespace nufftmp::bench {

// Sample size: --check_samples, else 100..1000 such that the direct sums stay around 1e9 terms.
std::int64_t default_check_samples(const BenchOptions& o, std::int64_t M);

// d holds the inputs and (after the run) the outputs on the host. Checks transform `t` of the
// batch (the last one exercises the batch offsets). Returns the relative l2 error.
template <typename T>
double check_error(const BenchOptions& o, const BenchData<T>& d, int t, std::int64_t nsamples);

}  // namespace nufftmp::bench
