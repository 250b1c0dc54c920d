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
  int kernel_width = 0;
  double upsampfac = 0;
  std::int64_t nf[3] = {1, 1, 1};
  int ranks = 1;
  std::string scaling = "none";
  int n_runs = 0;
  int plan_runs = 0;                // fresh plans timed after the first
  // Timings (milliseconds); README "Benchmark" says how each is taken. NaN: not measured.
  double plan_ms = 0;               // the process's first plan of this shape
  double plan_steady_ms = NAN;      // a fresh plan of the same shape (mean of plan_runs)
  double setpts_ms = 0;             // set_points on a fresh plan (mean of plan_runs)
  double setpts_first_ms = NAN;     // set_points on the first plan (the process's first)
  double setpts_again_ms = NAN;     // set_points again on one plan, same M (mean of n_runs)
  double exec_ms = 0;               // fastest of n_runs after one warm-up
  double exec_ms_median = 0;
  double total_ms = 0;              // plan + set_points + fastest execute, data on the device
  double total_host_ms = 0;         // fresh plan + set_points_host + execute_host (transfers)
  std::size_t mem_bytes = 0;        // working memory of the plan (per rank)
  double rel_err = NAN;             // NaN when not checked
  std::int64_t check_samples = 0;

  // What new points cost per transform: set_points on a fresh plan + the fastest execute.
  double setpts_exec_ms() const { return setpts_ms + exec_ms; }
  // Points per second: M (set-points) or M * ntransf (others) over the interval.
  double per_s(double ms, bool batch = true) const {
    const double n = static_cast<double>(M) * (batch ? ntransf : 1);
    return ms > 0 ? n / (ms * 1e-3) : 0.0;
  }
};

}  // namespace nufftmp::bench
