// Single-device run: plan -> set_points -> warm-up execute -> n_runs timed executes, on data
// in the plan's memory space; then the host-pointer path (set_points_host + execute_host) for
// the total including transfers; then, with --check, the error against the direct sum.
#include "run_single.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "bench_check.hpp"
#include "bench_data.hpp"
#include "device_memory.hpp"
#include "nufftmp/plan.hpp"
#include "placed_data.hpp"
#include "timer.hpp"

namespace nufftmp::bench {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <typename T>
BenchResult run_typed(const BenchOptions& o) {
  BenchResult r;
  r.prec = std::string(1, o.prec);
  r.type = o.type;
  r.dim = o.dim();
  std::copy(o.N, o.N + 3, r.N);
  r.M = o.num_points();
  r.ntransf = o.ntransf;
  r.isign = o.isign;
  r.tol = o.tol;
  r.dist = dist_name(o.dist);
  r.n_runs = o.n_runs;

  BenchData<T> d = make_bench_data<T>(o, r.M, o.seed);
  const std::vector<std::int64_t> modes(o.N, o.N + r.dim);
  const Options opts = o.plan_options();

  // A plan that may run on the GPU: start the CUDA context outside the timed plan.
  if (o.backend != Backend::Cpu && cuda_available()) init_device_context();
  auto t0 = std::chrono::steady_clock::now();
  Plan<T> plan(o.type, modes, o.isign, o.ntransf, o.tol, opts);
  plan.synchronize();
  r.plan_ms = ms_since(t0);

  const bool on_device = plan.memory_space() == MemorySpace::Device;
  r.backend = backend_name(plan.backend());
  r.method = method_name(plan.method());
  r.gpu = on_device ? current_device_name() : "cpu";
  r.kernel = kernel_name(plan.kernel());
  r.kernel_width = plan.kernel_width();
  r.upsampfac = plan.upsampfac();
  r.tol_eff = plan.tolerance();
  const auto nf = plan.fine_grid();
  std::copy(nf.begin(), nf.end(), r.nf);

  Placed<T> p = place(d, on_device);
  std::unique_ptr<Timer> timer =
      on_device ? make_device_timer(opts.cuda_stream)
                : make_host_timer([&plan] { plan.synchronize(); });

  timer->start();
  plan.set_points(r.M, p.px, p.py, p.pz);
  r.setpts_ms = timer->stop_ms();

  plan.execute(p.pc, p.pf);  // warm-up: first-touch pages, FFT and kernel caches
  plan.synchronize();
  std::vector<double> runs;
  for (int i = 0; i < o.n_runs; ++i) {
    timer->start();
    plan.execute(p.pc, p.pf);
    runs.push_back(timer->stop_ms());
  }
  std::sort(runs.begin(), runs.end());
  r.exec_ms = runs.front();
  const std::size_t n = runs.size();
  r.exec_ms_median = n % 2 ? runs[n / 2] : 0.5 * (runs[n / 2 - 1] + runs[n / 2]);
  r.total_ms = r.plan_ms + r.setpts_ms + r.exec_ms;
  r.mem_bytes = plan.memory_bytes();

  // Outputs back to the host for the check; the host path below only rewrites outputs.
  if (on_device) {
    if (o.type == 1) p.f->copy_to_host(d.f.data(), d.f.size() * sizeof(std::complex<T>));
    else p.c->copy_to_host(d.c.data(), d.c.size() * sizeof(std::complex<T>));
  }
  if (o.check) {
    r.check_samples = default_check_samples(o, r.M);
    r.rel_err = check_error<T>(o, d, o.ntransf - 1, r.check_samples);
  }
  p = Placed<T>();  // free device copies before the host path allocates its own

  // Host-pointer path on the same plan: what a caller with host arrays pays, copies included.
  t0 = std::chrono::steady_clock::now();
  plan.set_points_host(r.M, d.x.data(), d.y.empty() ? nullptr : d.y.data(),
                       d.z.empty() ? nullptr : d.z.data());
  plan.execute_host(d.c.data(), d.f.data());
  r.total_host_ms = r.plan_ms + ms_since(t0);
  return r;
}

}  // namespace

BenchResult run_single(const BenchOptions& o) {
  return o.prec == 'd' ? run_typed<double>(o) : run_typed<float>(o);
}

}  // namespace nufftmp::bench
