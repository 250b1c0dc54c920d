// What one benchmark run measured; printed by bench_report as a table or one JSON line.
// Distributed runs fill the same record (ranks > 1).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

namespace nufftmp::bench {

struct BenchResult {
  // Problem.
  std::string prec;                 // "f" or "d"
  int type = 1;
  int dim = 1;
  std::int64_t N[3] = {1, 1, 1};
  std::int64_t M = 0;               // total over ranks
  int ntransf = 1;
  int isign = 1;
  double tol = 0;                   // requested
  double tol_eff = 0;               // after clamping to the precision floor
  std::string dist;                 // "uniform" or "cluster"
  // Plan as resolved.
  std::string backend;              // "cpu" or "cuda"
  std::string method;
  std::string gpu;                  // device name, or "cpu"
  std::string kernel;               // "pswf" or "es"
  int kernel_width = 0;
  double upsampfac = 0;
  std::int64_t nf[3] = {1, 1, 1};
  int ranks = 1;
  std::string scaling = "none";
  int n_runs = 0;
  // Timings (milliseconds). exec: fastest and median of n_runs after one warm-up.
  double plan_ms = 0;
  double setpts_ms = 0;
  double exec_ms = 0;
  double exec_ms_median = 0;
  double total_ms = 0;              // plan + set_points + fastest execute, data on the device
  double total_host_ms = 0;         // plan + set_points_host + execute_host (transfers included)
  std::size_t mem_bytes = 0;        // working memory of the plan (per rank)
  double rel_err = NAN;             // NaN when not checked
  std::int64_t check_samples = 0;

  // Points per second: M (set-points) or M * ntransf (others) over the interval.
  double per_s(double ms, bool batch = true) const {
    const double n = static_cast<double>(M) * (batch ? ntransf : 1);
    return ms > 0 ? n / (ms * 1e-3) : 0.0;
  }
};

}  // namespace nufftmp::bench
