// Stub: the distributed benchmark is written by the distributed-layer engineer (issue 4).
#include "run_distributed.hpp"

#include <iostream>

namespace nufftmp::bench {

int run_distributed(const BenchOptions&, int, char**) {
  std::cerr << "nufftmp-bench: the distributed benchmark is not yet implemented\n";
  return 2;
}

}  // namespace nufftmp::bench
