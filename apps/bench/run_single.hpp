// The single-device benchmark: one Plan<T> on the CPU or CUDA engine.
#pragma once

#include "bench_options.hpp"
#include "bench_result.hpp"

namespace nufftmp::bench {

// Runs the configuration of o (precision o.prec) and returns what it measured. Throws
// nufftmp::Error on library failures.
BenchResult run_single(const BenchOptions& o);

}  // namespace nufftmp::bench
