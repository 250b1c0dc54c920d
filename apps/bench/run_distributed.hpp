// The distributed benchmark: compiled into nufftmp-bench only when the distributed layer
// (target nufftmp::dist) is built. main() has called MPI_Init (through MpiSession) before it
// calls run_distributed, and calls MPI_Finalize after it returns.
#pragma once

#include "bench_options.hpp"

namespace nufftmp::bench {

// Runs the benchmark over MPI_COMM_WORLD (--scaling weak: sizes per rank; strong: totals).
// Returns the process exit status (0 ok, 1 library error, 2 bad flags / not available).
int run_distributed(const BenchOptions& opts, int argc, char** argv);

}  // namespace nufftmp::bench
