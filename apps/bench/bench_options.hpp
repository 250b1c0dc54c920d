// Command-line options of nufftmp-bench. The flag names follow cuFINUFFT's perftest
// (--prec --type --N1 --N2 --N3 --M --ntransf --tol --method --n_runs --sort) so that its
// users can rerun their commands; the rest are nufftmp's own.
#pragma once

#include <cstdint>
#include <string>

#include "common/flags.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::bench {

enum class PointDist { Uniform, Cluster };
enum class Scaling { None, Weak, Strong };

struct BenchOptions {
  char prec = 'f';                   // 'f' float, 'd' double
  int type = 1;
  std::int64_t N[3] = {1000000, 1, 1};
  std::int64_t M = 0;                // 0: density 1, M = prod(2 N_i)
  int ntransf = 1;
  double tol = 1e-5;
  int isign = 1;
  Method method = Method::Auto;
  int n_runs = 10;
  int plan_runs = 0;                 // fresh plans after the first, 0: n_runs
  bool sort = true;
  Backend backend = Backend::Auto;
  PointDist dist = PointDist::Uniform;
  bool check = false;
  std::int64_t check_samples = 0;    // 0: choose (100..1000, fewer for large M)
  bool json = false;
  double upsampfac = 2.0;
  int modeord = 0;
  std::uint64_t seed = 42;
  int nthreads = 0;
  int maxbatchsize = 0;
  int debug = 0;
  Scaling scaling = Scaling::None;

  // Dimension as perftest infers it: the last N_i > 1.
  int dim() const { return N[2] > 1 ? 3 : (N[1] > 1 ? 2 : 1); }
  // Modes per vector; type 3: the number of targets.
  std::int64_t num_modes() const { return N[0] * N[1] * N[2]; }
  // M, with the density-1 default resolved.
  std::int64_t num_points() const;
  // The library options these flags ask for.
  Options plan_options() const;
};

// A bad command line: main prints the message and exits with status 2.
using UsageError = apps::UsageError;

// Parses argv (throws UsageError naming the flag and the value). Sets help = true and returns
// early on --help / -h.
BenchOptions parse_bench_options(int argc, char** argv, bool& help);
std::string usage_text(const char* prog);

const char* dist_name(PointDist d) noexcept;
const char* scaling_name(Scaling s) noexcept;

}  // namespace nufftmp::bench
