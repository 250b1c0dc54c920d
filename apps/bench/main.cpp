// nufftmp-bench: times one NUFFT configuration (see --help). Exit status: 0 ok, 1 library
// error, 2 bad flags or a feature not built in.
#include <exception>
#include <iostream>

#include "bench_options.hpp"
#include "bench_report.hpp"
#include "nufftmp/errors.hpp"
#include "run_single.hpp"
#ifdef NUFFTMP_BENCH_HAVE_DIST
#include "dist/mpi_session.hpp"
#include "run_distributed.hpp"
#endif

namespace {

using namespace nufftmp::bench;

int run_and_print(const BenchOptions& o) {
  const BenchResult r = run_single(o);
  if (o.json) print_json(r, std::cout);
  else print_table(r, std::cout);
  return 0;
}

// Library failures: the error code's name and the message that names the parameter.
int report_error(const std::exception& e) {
  if (const auto* err = dynamic_cast<const nufftmp::Error*>(&e))
    std::cerr << "nufftmp-bench: " << nufftmp::error_code_name(err->code()) << ": " << e.what()
              << "\n";
  else
    std::cerr << "nufftmp-bench: error: " << e.what() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions o;
  try {
    bool help = false;
    o = parse_bench_options(argc, argv, help);
    if (help) {
      std::cout << usage_text(argv[0]);
      return 0;
    }
  } catch (const UsageError& e) {
    std::cerr << "nufftmp-bench: " << e.what() << "\n";
    return 2;
  }

#ifdef NUFFTMP_BENCH_HAVE_DIST
  // Under mpirun with several ranks, or when scaling is asked for, the distributed benchmark
  // runs; a single rank without --scaling is the plain single-device benchmark.
  try {
    const nufftmp::dist::detail::MpiSession mpi("nufftmp-bench", &argc, &argv);
    if (mpi.size() > 1 || o.scaling != Scaling::None) {
      try {
        return run_distributed(o, argc, argv);
      } catch (const std::exception& e) {
        report_error(e);
        mpi.abort(1);  // other ranks may be waiting in a collective
      }
    }
    return run_and_print(o);
  } catch (const std::exception& e) {
    return report_error(e);
  }
#else
  if (o.scaling != Scaling::None) {
    std::cerr << "nufftmp-bench: --scaling needs the distributed layer "
                 "(configure with -DNUFFTMP_MPI=ON)\n";
    return 2;
  }
  try {
    return run_and_print(o);
  } catch (const std::exception& e) {
    return report_error(e);
  }
#endif
}
