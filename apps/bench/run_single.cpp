// Single-device run, in the order a user meets the costs (README, "Benchmark"):
//  1. the process's first plan of this shape (plan_ms) and its set_points (setpts_first_ms);
//  2. one warm-up execute, n_runs timed executes (exec_ms fastest, exec_ms_median), the check;
//  3. set_points again on the same plan with the same points, n_runs times (setpts_again_ms);
//  4. the plan destroyed, plan_runs fresh plans of the same shape, each timed with its
//     set_points (plan_steady_ms, setpts_ms: means), as cuFINUFFT's perftest times its
//     makeplan and setpts after a warm-up plan;
//  5. one more fresh plan through the host-pointer path (total_host_ms, copies included).
// Data live in the plan's memory space; CUDA events time the device, host clocks the host.
#include "run_single.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "bench_check.hpp"
#include "bench_data.hpp"
#include "bench_plan.hpp"
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
  r.plan_runs = o.plan_runs > 0 ? o.plan_runs : o.n_runs;

  BenchData<T> d = make_bench_data<T>(o, r.M, o.seed);
  const Options opts = o.plan_options();
  auto make_plan = [&] {
    return std::make_unique<Plan<T>>(make_bench_plan<T>(o, opts));
  };

  // A plan that may run on the GPU: start the CUDA context outside the timed plan.
  if (o.backend != Backend::Cpu && cuda_available()) init_device_context();
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Plan<T>> plan = make_plan();
  plan->synchronize();
  r.plan_ms = ms_since(t0);

  const bool on_device = plan->memory_space() == MemorySpace::Device;
  r.backend = backend_name(plan->backend());
  r.method = method_name(plan->method());
  r.gpu = on_device ? current_device_name() : "cpu";
  r.kernel_width = plan->kernel_width();
  r.upsampfac = plan->upsampfac();
  r.tol_eff = plan->tolerance();
  const auto nf = plan->fine_grid();
  std::copy(nf.begin(), nf.end(), r.nf);

  Placed<T> p = place(d, on_device);
  Plan<T>* current = plan.get();  // the plan the host timer synchronises
  std::unique_ptr<Timer> timer = on_device ? make_device_timer(opts.cuda_stream)
                                           : make_host_timer([&current] { current->synchronize(); });
  auto timed_set_points = [&](Plan<T>& q) {
    timer->start();
    set_bench_points(q, o, r.M, p);
    return timer->stop_ms();
  };

  r.setpts_first_ms = timed_set_points(*plan);
  if (o.type == 3) {  // its grid follows from the points
    const auto nf3 = plan->fine_grid();
    std::copy(nf3.begin(), nf3.end(), r.nf);
  }
  plan->execute(p.pc, p.pf);  // warm-up: first-touch pages, FFT and kernel caches
  plan->synchronize();
  std::vector<double> runs;
  for (int i = 0; i < o.n_runs; ++i) {
    timer->start();
    plan->execute(p.pc, p.pf);
    runs.push_back(timer->stop_ms());
  }
  std::sort(runs.begin(), runs.end());
  r.exec_ms = runs.front();
  const std::size_t n = runs.size();
  r.exec_ms_median = n % 2 ? runs[n / 2] : 0.5 * (runs[n / 2 - 1] + runs[n / 2]);
  r.mem_bytes = plan->memory_bytes();

  // Outputs back to the host for the check; nothing below rewrites them before it.
  if (on_device) {
    if (o.type != 2) p.f->copy_to_host(d.f.data(), d.f.size() * sizeof(std::complex<T>));
    else p.c->copy_to_host(d.c.data(), d.c.size() * sizeof(std::complex<T>));
  }
  if (o.check) {
    r.check_samples = default_check_samples(o, r.M);
    r.rel_err = check_error<T>(o, d, o.ntransf - 1, r.check_samples);
  }

  // New points on a plan that is kept (M-TIP's case): set_points again, same M.
  double again = 0;
  for (int i = 0; i < o.n_runs; ++i) again += timed_set_points(*plan);
  r.setpts_again_ms = again / o.n_runs;

  // Fresh plans of the same shape, each with its set_points.
  plan.reset();
  double plan_sum = 0, setpts_sum = 0;
  for (int i = 0; i < r.plan_runs; ++i) {
    t0 = std::chrono::steady_clock::now();
    std::unique_ptr<Plan<T>> q = make_plan();
    q->synchronize();
    plan_sum += ms_since(t0);
    current = q.get();
    setpts_sum += timed_set_points(*q);
    current = nullptr;
  }
  r.plan_steady_ms = plan_sum / r.plan_runs;
  r.setpts_ms = setpts_sum / r.plan_runs;
  r.total_ms = r.plan_ms + r.setpts_ms + r.exec_ms;
  p = Placed<T>();  // free device copies before the host path allocates its own

  // Host-pointer path on a fresh plan: what a caller with host arrays pays, copies included.
  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Plan<T>> h = make_plan();
  set_bench_points_host(*h, r.M, d);
  h->execute_host(d.c.data(), d.f.data());
  r.total_host_ms = ms_since(t0);
  return r;
}

}  // namespace

BenchResult run_single(const BenchOptions& o) {
  return o.prec == 'd' ? run_typed<double>(o) : run_typed<float>(o);
}

}  // namespace nufftmp::bench
