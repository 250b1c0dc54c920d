// Printing of benchmark results: a human-readable table, or one JSON object per line.
#pragma once

#include <ostream>

#include "bench_result.hpp"

namespace nufftmp::bench {

void print_table(const BenchResult& r, std::ostream& os);
void print_json(const BenchResult& r, std::ostream& os);

}  // namespace nufftmp::bench
