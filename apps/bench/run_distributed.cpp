// The distributed benchmark (nufftmp-bench under MPI, or with --scaling weak|strong):
//   weak:   the per-rank problem is fixed: every rank owns M points (--M, or density 1);
//   strong: the total is fixed: M points split into near-equal shares;
//   none:   (several ranks without --scaling) like strong.
// Each rank draws its own points (seed + rank); type 2 modes come from rank 0. Data lives in the
// plan's memory space (device buffers on GPUs), so the times are those of DistPlan::execute:
// local compute and communication, as DistPlan::last_timings splits them.
//
// Output (rank 0): the binding of every rank, a table with one row per rank and a total row,
// and with --json one JSON line per rank ("scope":"rank") and one for the job
// ("scope":"total"). Job execute time = fastest over runs of the slowest rank's time; its
// compute_ms = the slowest rank's local compute in that run, comm_ms = the rest (exposed
// communication and waiting for imbalance). Weak scaling also times the per-rank problem on
// rank 0 alone (a one-rank DistPlan), so efficiency = T(1 rank) / T(P ranks) is known in one
// run; strong scaling reports efficiency only for one rank (scripts/weak_scaling.sh and
// plot_scaling.py compute it from a series).
#include "run_distributed.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_check.hpp"
#include "bench_data.hpp"
#include "device_memory.hpp"
#include "dist/collectives.hpp"
#include "nufftmp/dist.hpp"
#include "placed_data.hpp"

namespace nufftmp::bench {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// What one rank measured.
struct RankTimes {
  double M_local = 0, setpts_ms = 0, exec_ms = 0, compute_ms = 0, comm_ms = 0;
};

struct JobResult {
  std::vector<RankTimes> ranks;  // rank 0 only: every rank's times in the job's fastest run
  double setpts_ms = 0, exec_ms = 0, compute_ms = 0, comm_ms = 0;
  std::string backend, method, comm;
  std::vector<std::string> bindings;
  double rel_err = NAN;
};

// Every rank's string, in rank order, on rank 0 (empty elsewhere).
std::vector<std::string> gather_strings(const dist::Context& ctx, const std::string& s) {
  const std::int64_t len = static_cast<std::int64_t>(s.size());
  const std::vector<std::int64_t> lens = dist::gather_to_root(ctx, &len, 1);
  const std::vector<char> chars = dist::gather_to_root(ctx, s.data(), len);
  std::vector<std::string> out;
  std::size_t at = 0;
  for (const std::int64_t n : lens) {
    out.emplace_back(chars.data() + at, static_cast<std::size_t>(n));
    at += static_cast<std::size_t>(n);
  }
  return out;
}

// Runs the benchmark over ctx with M_local points on this rank: set_points, one warm-up and
// n_runs timed executes. Every rank returns; rank 0's result holds every rank's times.
template <typename T>
JobResult run_job(const BenchOptions& o, dist::Context& ctx, std::int64_t M_local, bool check) {
  const int dim = o.dim();
  const int rank = ctx.rank(), P = ctx.size();
  MPI_Comm comm = ctx.comm();
  const std::vector<std::int64_t> modes(o.N, o.N + dim);
  BenchData<T> d = make_bench_data<T>(o, M_local, o.seed + 7919 * std::uint64_t(rank));
  if (rank != 0 && o.type == 2) std::fill(d.f.begin(), d.f.end(), std::complex<T>(0, 0));

  Options opts = o.plan_options();
  opts.backend = Backend::Auto;  // the context's engine
  dist::DistPlan<T> plan(ctx, o.type, modes, o.isign, o.ntransf, o.tol, opts);
  const bool device = plan.local_plan().memory_space() == MemorySpace::Device;
  Placed<T> p = place(d, device);

  JobResult r;
  r.backend = backend_name(plan.local_plan().backend());
  r.method = method_name(plan.local_plan().method());
  RankTimes mine;
  mine.M_local = static_cast<double>(M_local);

  dist::detail::barrier(comm);
  auto t0 = Clock::now();
  plan.set_points(M_local, p.px, p.py, p.pz);
  mine.setpts_ms = ms_since(t0);

  plan.execute(p.pc, p.pf);  // warm-up: FFT plans, first-touch pages, NCCL channels
  double best = INFINITY;
  for (int i = 0; i < std::max(o.n_runs, 1); ++i) {
    dist::detail::barrier(comm);
    t0 = Clock::now();
    plan.execute(p.pc, p.pf);
    RankTimes run = mine;
    run.exec_ms = ms_since(t0);
    const auto tm = plan.last_timings();
    run.compute_ms = tm.compute_ms;
    run.comm_ms = tm.comm_ms;
    double slowest = run.exec_ms;
    dist::detail::allreduce_max(comm, &slowest, 1);
    if (slowest < best) {  // the same decision on every rank
      best = slowest;
      mine = run;
    }
  }

  const double row[5] = {mine.M_local, mine.setpts_ms, mine.exec_ms, mine.compute_ms,
                         mine.comm_ms};
  const std::vector<double> rows = dist::gather_to_root(ctx, row, 5);
  r.bindings = gather_strings(ctx, ctx.binding());
  if (rank == 0) {
    for (int q = 0; q < P; ++q) {
      const double* v = &rows[5 * q];
      r.ranks.push_back({v[0], v[1], v[2], v[3], v[4]});
      r.setpts_ms = std::max(r.setpts_ms, v[1]);
      r.compute_ms = std::max(r.compute_ms, v[3]);
    }
    r.exec_ms = best;
    r.comm_ms = std::max(0.0, best - r.compute_ms);
  }

  if (check) {
    // Results back to the host, the check transform (the last) gathered to rank 0.
    const int t = o.ntransf - 1;
    const std::int64_t nm = o.num_modes();
    if (device) {
      if (o.type == 1) p.f->copy_to_host(d.f.data(), d.f.size() * sizeof(std::complex<T>));
      else if (M_local > 0) p.c->copy_to_host(d.c.data(), d.c.size() * sizeof(std::complex<T>));
    }
    BenchData<T> all;
    const T* coords[3] = {d.x.data(), d.y.data(), d.z.data()};
    std::vector<T>* dst[3] = {&all.x, &all.y, &all.z};
    for (int k = 0; k < dim; ++k) *dst[k] = dist::gather_to_root(ctx, coords[k], M_local);
    all.c = dist::gather_to_root(ctx, d.c.data() + t * M_local, M_local);
    if (rank == 0) {
      all.M = static_cast<std::int64_t>(all.x.size());
      all.f.assign(d.f.begin() + t * nm, d.f.begin() + (t + 1) * nm);
      BenchOptions one = o;
      one.ntransf = 1;
      r.rel_err = check_error<T>(one, all, 0, default_check_samples(o, all.M));
    }
  }
  return r;
}

std::string dims_json(const BenchOptions& o) {
  std::string s = "[";
  for (int k = 0; k < o.dim(); ++k) s += (k ? "," : "") + std::to_string(o.N[k]);
  return s + "]";
}

std::string num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

void print_json_line(const BenchOptions& o, const JobResult& r, const std::string& mode, int P,
                     const std::string& scope, int rank, double M, double setpts, double exec,
                     double compute, double comm, double efficiency) {
  std::ostringstream j;
  j << "{\"prec\":\"" << o.prec << "\",\"type\":" << o.type << ",\"dim\":" << o.dim()
    << ",\"N\":" << dims_json(o) << ",\"M\":" << static_cast<long long>(M)
    << ",\"ntransf\":" << o.ntransf << ",\"tol\":" << num(o.tol) << ",\"backend\":\""
    << r.backend << "\",\"method\":\"" << r.method << "\",\"comm\":\"" << r.comm
    << "\",\"dist\":\"" << dist_name(o.dist) << "\",\"ranks\":" << P << ",\"mode\":\"" << mode
    << "\",\"scope\":\"" << scope << "\",\"rank\":" << rank << ",\"setpts_ms\":" << num(setpts)
    << ",\"exec_ms\":" << num(exec) << ",\"compute_ms\":" << num(compute)
    << ",\"comm_ms\":" << num(comm) << ",\"exec_pts_per_s\":"
    << num(exec > 0 ? M * o.ntransf / (exec * 1e-3) : NAN)
    << ",\"efficiency\":" << num(efficiency);
  if (scope == "total" && std::isfinite(r.rel_err)) j << ",\"rel_err\":" << num(r.rel_err);
  j << "}\n";
  std::cout << j.str();
}

void print_table(const BenchOptions& o, const JobResult& r, const std::string& mode, int P,
                 double M_total, double efficiency) {
  char line[200];
  std::cout << "nufftmp-bench distributed: " << mode << " scaling, " << P << " ranks, type "
            << o.type << ", " << o.dim() << "D, " << (o.prec == 'd' ? "double" : "float")
            << ", N " << dims_json(o) << ", M total " << static_cast<long long>(M_total)
            << ", ntransf " << o.ntransf << ", tol " << o.tol << ", " << dist_name(o.dist)
            << "\n  backend " << r.backend << ", method " << r.method << ", comm " << r.comm
            << "\n";
  for (const auto& b : r.bindings) std::cout << "  " << b << "\n";
  std::snprintf(line, sizeof line, "  %-6s %14s %12s %12s %12s %12s %14s\n", "rank", "M", "setpts ms",
                "exec ms", "compute ms", "comm ms", "exec pts/s");
  std::cout << line;
  for (int q = 0; q < P; ++q) {
    const auto& t = r.ranks[q];
    std::snprintf(line, sizeof line, "  %-6d %14.0f %12.4f %12.4f %12.4f %12.4f %14.4g\n", q,
                  t.M_local, t.setpts_ms, t.exec_ms, t.compute_ms, t.comm_ms,
                  t.exec_ms > 0 ? t.M_local * o.ntransf / (t.exec_ms * 1e-3) : 0.0);
    std::cout << line;
  }
  std::snprintf(line, sizeof line, "  %-6s %14.0f %12.4f %12.4f %12.4f %12.4f %14.4g\n", "total",
                M_total, r.setpts_ms, r.exec_ms, r.compute_ms, r.comm_ms,
                r.exec_ms > 0 ? M_total * o.ntransf / (r.exec_ms * 1e-3) : 0.0);
  std::cout << line;
  if (std::isfinite(efficiency))
    std::cout << "  efficiency " << num(efficiency) << " (T(1 rank) / T(" << P << " ranks))\n";
  if (std::isfinite(r.rel_err))
    std::cout << "  rel. l2 error vs direct sum (last transform): " << num(r.rel_err) << "\n";
}

template <typename T>
int run_typed(const BenchOptions& o) {
  dist::ContextOptions copts;
  copts.backend = o.backend;
  dist::Context ctx(MPI_COMM_WORLD, copts);
  const int P = ctx.size(), rank = ctx.rank();
  const bool weak = o.scaling == Scaling::Weak;
  const std::string mode = weak ? "weak" : "strong";
  // weak: --M (or density 1) per rank; strong: that total, split evenly.
  const std::int64_t M_arg = o.num_points();
  const std::int64_t M_local =
      weak ? M_arg : M_arg / P + (rank < M_arg % P ? 1 : 0);
  const double M_total = weak ? double(M_arg) * P : double(M_arg);

  JobResult r = run_job<T>(o, ctx, M_local, o.check);
  r.comm = dist::comm_backend_name(ctx.comm_backend());

  // Weak scaling: the per-rank problem on rank 0 alone is T(1 rank).
  double efficiency = P == 1 ? 1.0 : NAN;
  if (weak && P > 1) {
    double t1 = 0;
    if (rank == 0) {
      dist::Context self(MPI_COMM_SELF, copts);
      t1 = run_job<T>(o, self, M_arg, false).exec_ms;
    }
    dist::detail::barrier(ctx.comm());
    if (rank == 0 && r.exec_ms > 0) efficiency = t1 / r.exec_ms;
  }

  if (rank == 0) {
    if (o.json) {
      for (int q = 0; q < P; ++q) {
        const auto& t = r.ranks[q];
        print_json_line(o, r, mode, P, "rank", q, t.M_local, t.setpts_ms, t.exec_ms,
                        t.compute_ms, t.comm_ms, NAN);
      }
      print_json_line(o, r, mode, P, "total", -1, M_total, r.setpts_ms, r.exec_ms, r.compute_ms,
                      r.comm_ms, efficiency);
    } else {
      print_table(o, r, mode, P, M_total, efficiency);
    }
  }
  return 0;
}

}  // namespace

int run_distributed(const BenchOptions& opts, int, char**) {
  if (opts.type == 3)
    throw Error(ErrorCode::NotAvailable,
                "nufftmp-bench: --type 3 runs on one device (the distributed benchmark times "
                "types 1 and 2; DistPlan itself computes type 3)");
  return opts.prec == 'd' ? run_typed<double>(opts) : run_typed<float>(opts);
}

}  // namespace nufftmp::bench
