// The distributed benchmark: compiled into nufftmp-bench only when the distributed layer
// (target nufftmp::dist) is built. main() has started MPI (dist's MpiSession) before it calls
// run_distributed, and finalises it after it returns.
#pragma once

#include "bench_options.hpp"

namespace nufftmp::bench {

// Runs the benchmark over MPI_COMM_WORLD (--scaling weak: sizes per rank; strong: totals).
// Returns the process exit status (0 ok, 1 library error, 2 bad flags / not available).
int run_distributed(const BenchOptions& opts, int argc, char** argv);

}  // namespace nufftmp::bench
