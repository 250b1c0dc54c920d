// DistPlan<T>: a single-device plan per rank plus one collective per execute.
//   type 1: local plan on this rank's points -> partial mode arrays -> (all-)reduce.
//   type 2: broadcast of the modes -> local plan on this rank's targets.
//   type 3: bounds of all ranks' points agreed first; shared targets: as type 1; scattered
//           targets: all sources gathered to every rank (AllGather) -> local plan.
// Every step that may fail on one rank alone (bad points, allocation, the engine) runs inside
// detail::agreed, so all ranks throw together instead of some waiting in a collective.
#include <array>
#include <chrono>
#include <complex>
#include <cstring>
#include <memory>
#include <vector>

#include "agree.hpp"
#include "all_gather.hpp"
#include "context_impl.hpp"
#include "mpi_check.hpp"
#include "rebalance.hpp"
#include "nufftmp/dist.hpp"
#include "common/stopwatch.hpp"

namespace nufftmp::dist {

using detail::Param;

namespace {

using nufftmp::detail::Clock;
using nufftmp::detail::ms_since;

// Vectors per reduction step when the caller chose none: the whole batch for host memory (MPI
// on host buffers does not progress while the CPU engine computes), about a quarter of it on
// GPUs so that NCCL/MPI traffic of one step hides behind the next step's kernels. Always a
// divisor of ntransf, so that one local plan serves every step.
int choose_reduce_batch(int ntransf, MemorySpace space) {
  if (space == MemorySpace::Host || ntransf < 2) return ntransf;
  const int target = ntransf < 4 ? 1 : (ntransf + 3) / 4;
  for (int d = target; d <= ntransf; ++d)
    if (ntransf % d == 0) return d;
  return ntransf;
}

// A moved-from DistPlan has no state: say so instead of dereferencing null.
template <typename I>
I& live(const std::unique_ptr<I>& impl) {
  if (!impl) throw Error(ErrorCode::InvalidArgument, "DistPlan used after it was moved from");
  return *impl;
}

// The ranges of every rank's points together: one MPI_Allreduce (MIN of lo and of -hi).
Type3Bounds allreduce_bounds(MPI_Comm comm, const Type3Bounds& b) {
  double v[12];
  for (int d = 0; d < 3; ++d) {
    v[d] = b.source_lo[d];
    v[3 + d] = -b.source_hi[d];
    v[6 + d] = b.target_lo[d];
    v[9 + d] = -b.target_hi[d];
  }
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v, 12, MPI_DOUBLE, MPI_MIN, comm));
  Type3Bounds g;
  for (int d = 0; d < 3; ++d) {
    g.source_lo[d] = v[d];
    g.source_hi[d] = -v[3 + d];
    g.target_lo[d] = v[6 + d];
    g.target_hi[d] = -v[9 + d];
  }
  return g;
}

// Bytes in host or device memory, kept and grown between calls.
struct Room {
  std::vector<std::complex<double>> host;  // aligned for any element type of ours
  detail::DeviceBuffer dev;
  void* get(MemorySpace space, std::size_t bytes) {
    if (space == MemorySpace::Host) {
      host.resize((bytes + sizeof(std::complex<double>) - 1) / sizeof(std::complex<double>));
      return host.data();
    }
    if (dev.bytes() < bytes) dev = detail::DeviceBuffer(bytes);
    return dev.get();
  }
};

// The parameters that every rank must pass alike, for both constructors (shape: modes for
// types 1 and 2, dim for type 3): those that decide the result (a mixed kernel or
// spread_interp_only would sum or broadcast arrays that mean different things; a mixed kernel in
// type 3 gives each rank's part its own accuracy) or the collectives each rank enters. The
// others (method, kernel_eval, nthreads, maxbatchsize, sort, debug, warnings, the GPU tuning
// fields) are this rank's own choices of how to compute the same answer and may differ.
template <typename T>
std::vector<Param> agreed_parameters(int type, Param shape, int isign, int ntransf, double tol,
                                     const Options& opts, const DistOptions& dopts) {
  const auto num = [](auto v) { return std::vector<double>{static_cast<double>(v)}; };
  std::vector<Param> p{{"precision (bytes)", num(sizeof(T))},
                       {"type", num(type)},
                       std::move(shape),
                       {"isign", num(isign)},
                       {"ntransf", num(ntransf)},
                       {"tol", {tol}}};
  if (type != 3) p.push_back({"modeord", num(opts.modeord)});
  p.push_back({"upsampfac", {opts.upsampfac}});
  p.push_back({"kernel", num(opts.kernel)});
  p.push_back({"spread_interp_only", num(opts.spread_interp_only)});
  p.push_back({"backend", num(opts.backend)});
  p.push_back({"reduction", num(dopts.reduction)});
  p.push_back({"root", num(dopts.root)});
  if (type != 3) p.push_back({"modes_on_all", num(dopts.modes_on_all)});
  p.push_back({"reduce_batch", num(dopts.reduce_batch)});
  p.push_back({"rebalance", num(dopts.rebalance)});
  if (type == 3) p.push_back({"targets", num(dopts.targets)});
  return p;
}

}  // namespace

template <typename T>
struct DistPlan<T>::Impl {
  Context::Impl* ctx = nullptr;
  int type = 1, ntransf = 1, step = 1;
  std::int64_t nmodes = 1;
  DistOptions dopts;
  std::unique_ptr<Plan<T>> local;
  std::int64_t M_local = 0, M_total = 0;  // M_local: the points of the local plan
  bool points_set = false;  // a set_points has succeeded (on every rank: it is agreed)
  // Rebalance: the caller's layout (M_user points here) <-> near-equal shares (M_local).
  std::unique_ptr<detail::Rebalancer> rebalancer;
  std::int64_t M_user = 0;
  std::vector<complex_type> c_balanced;
  DistTimings timings;
  // execute_host on a device plan: device copies of c and f, kept between calls.
  detail::DeviceBuffer dev_c, dev_f;
  // type 2 on a non-root rank that passed no f: room for the broadcast modes.
  std::vector<complex_type> host_modes;
  detail::DeviceBuffer dev_modes;
  // Type 3 with scattered targets: every rank's sources (kept between set_points, like the
  // room for all their strengths).
  std::unique_ptr<detail::AllGather> sources;
  std::array<Room, 3> all_x;
  Room all_c;

  MPI_Comm comm() const { return ctx->comm; }
  bool is_root() const { return ctx->rank == dopts.root; }

  Options local_options(const Options& opts, int ntransf) const;
  void set_points(std::int64_t M, const T* x, const T* y, const T* z, bool host_pointers);
  void set_points_type3(std::int64_t M, const T* const* x, std::int64_t N, const T* const* s,
                        bool host_pointers);
  void run_type3_scattered(complex_type* c, complex_type* f, MemorySpace space);
  void set_points_local(std::int64_t M, const T* x, const T* y, const T* z, bool host_pointers);
  void set_points_rebalanced(std::int64_t M, const T* x, const T* y, const T* z,
                             bool host_pointers);
  void execute(complex_type* c, complex_type* f, bool host_pointers);
  void execute_host_local(complex_type* c, complex_type* f);
  void execute_rebalanced(complex_type* c, complex_type* f, bool host_pointers);
  void run(complex_type* c, complex_type* f, MemorySpace space);
  void run_type1(complex_type* c, complex_type* f, MemorySpace space);
  void run_type2(complex_type* c, complex_type* f, MemorySpace space);
  void compute_agreed(complex_type* c, complex_type* f, bool has_work);
  void zero_modes(complex_type* f, std::int64_t count, MemorySpace space);
  complex_type* broadcast_target(MemorySpace space);
};

template <typename T>
DistPlan<T>::DistPlan(Context& ctx, int type, const std::vector<std::int64_t>& modes, int isign,
                      int ntransf, double tol, const Options& opts, const DistOptions& dopts)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.ctx = &ctx.impl();
  s.type = type;
  s.ntransf = ntransf;
  s.dopts = dopts;

  detail::require_same_parameters(
      s.comm(), "DistPlan",
      agreed_parameters<T>(type, Param{"modes", {modes.begin(), modes.end()}}, isign, ntransf,
                           tol, opts, dopts));

  detail::agreed(s.comm(), [&] {
    const Options o = s.local_options(opts, ntransf);
    const MemorySpace space =
        o.backend == Backend::Cuda ? MemorySpace::Device : MemorySpace::Host;
    s.step = type == 1 ? (dopts.reduce_batch > 0 ? dopts.reduce_batch
                                                  : choose_reduce_batch(ntransf, space))
                       : ntransf;
    s.local = std::make_unique<Plan<T>>(type, modes, isign, s.step, tol, o);
    s.nmodes = s.local->num_modes();
  });
}

template <typename T>
DistPlan<T>::DistPlan(Type3Tag, Context& ctx, int type, long long dim, int isign, int ntransf,
                      double tol, const Options& opts, const DistOptions& dopts)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.ctx = &ctx.impl();
  s.type = type;
  s.ntransf = ntransf;
  s.dopts = dopts;
  detail::require_same_parameters(
      s.comm(), "DistPlan",
      agreed_parameters<T>(type, Param{"dim", {static_cast<double>(dim)}}, isign, ntransf, tol,
                           opts, dopts));
  detail::agreed(s.comm(), [&] {
    if (dopts.rebalance)
      throw Error(ErrorCode::InvalidArgument, "DistPlan: rebalance is for types 1 and 2");
    const Options o = s.local_options(opts, ntransf);
    const MemorySpace space =
        o.backend == Backend::Cuda ? MemorySpace::Device : MemorySpace::Host;
    // Shared targets reduce like type 1 (in steps); scattered ones compute all at once.
    s.step = dopts.targets == Type3Targets::Scattered ? ntransf
             : dopts.reduce_batch > 0                 ? dopts.reduce_batch
                                                      : choose_reduce_batch(ntransf, space);
    s.local = std::make_unique<Plan<T>>(type, dim, isign, s.step, tol, o);
    s.nmodes = 0;  // the targets come with set_points
  });
}

// The checks of every DistPlan, and its local plan's options: the context's backend and, on
// GPUs, its device and stream (the communicators order their work after that stream).
template <typename T>
Options DistPlan<T>::Impl::local_options(const Options& opts, int nt) const {
  const int size = ctx->size;
  if (dopts.root < 0 || dopts.root >= size)
    throw Error(ErrorCode::InvalidArgument, "DistPlan: root = " + std::to_string(dopts.root) +
                                                " outside [0, " + std::to_string(size) + ")");
  if (opts.backend != Backend::Auto && opts.backend != ctx->backend)
    throw Error(ErrorCode::InvalidArgument,
                std::string("DistPlan: opts.backend = ") + backend_name(opts.backend) +
                    " but the context runs backend " + backend_name(ctx->backend));
  if (nt < 1)
    throw Error(ErrorCode::InvalidArgument,
                "DistPlan: ntransf = " + std::to_string(nt) + " (must be >= 1)");
  if (dopts.reduce_batch < 0 || (dopts.reduce_batch > 0 && nt % dopts.reduce_batch != 0))
    throw Error(ErrorCode::InvalidArgument,
                "DistPlan: reduce_batch = " + std::to_string(dopts.reduce_batch) +
                    " must be 0 or divide ntransf = " + std::to_string(nt));
  Options o = opts;
  o.backend = ctx->backend;
  o.warnings = opts.warnings && ctx->rank == 0;  // the same warning once, not per rank
  if (o.backend == Backend::Cuda) {
    o.gpu_device = ctx->device;
    o.cuda_stream = ctx->stream->get();
  }
  return o;
}

template <typename T> DistPlan<T>::~DistPlan() = default;
template <typename T> DistPlan<T>::DistPlan(DistPlan&&) noexcept = default;
template <typename T> DistPlan<T>& DistPlan<T>::operator=(DistPlan&&) noexcept = default;

template <typename T>
void DistPlan<T>::Impl::set_points(std::int64_t M, const T* x, const T* y, const T* z,
                                   bool host_pointers) {
  if (type == 3) {
    detail::agreed(comm(), [] {
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan (type 3): set_points needs the targets too: "
                  "set_points(M_local, x, y, z, N, s, t, u)");
    });
  }
  if (dopts.rebalance) {
    set_points_rebalanced(M, x, y, z, host_pointers);
  } else {
    set_points_local(M, x, y, z, host_pointers);
    M_user = M_local;
  }
  points_set = true;
}

// Rebalance moves points through host memory: the CUDA engine takes them from the host API.
template <typename T>
void DistPlan<T>::Impl::set_points_rebalanced(std::int64_t M, const T* x, const T* y,
                                              const T* z, bool host_pointers) {
  const int dim = local->dim();
  const T* in[3] = {x, y, z};
  detail::agreed(comm(), [&] {
    if (!host_pointers && local->memory_space() == MemorySpace::Device)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan: rebalance moves points through host memory; with the CUDA engine "
                  "use set_points_host / execute_host");
    if (M < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan::set_points: M_local = " + std::to_string(M) + " (must be >= 0)");
    for (int d = 0; d < dim; ++d)
      if (M > 0 && !in[d])
        throw Error(ErrorCode::InvalidArgument, std::string("DistPlan::set_points: ") + "xyz"[d] +
                                                    " is null with M_local = " + std::to_string(M));
  });
  rebalancer = std::make_unique<detail::Rebalancer>(comm(), M);
  std::vector<T> moved[3];
  detail::agreed(comm(), [&] {
    for (int d = 0; d < dim; ++d) moved[d].resize(static_cast<std::size_t>(rebalancer->count_after()));
  });
  for (int d = 0; d < dim; ++d) rebalancer->forward(in[d], moved[d].data(), sizeof(T));
  auto ptr = [&](int d) { return d < dim ? moved[d].data() : nullptr; };
  set_points_local(rebalancer->count_after(), ptr(0), ptr(1), ptr(2), true);
  M_user = M;
}

template <typename T>
void DistPlan<T>::Impl::set_points_local(std::int64_t M, const T* x, const T* y, const T* z,
                                         bool host_pointers) {
  detail::agreed(comm(), [&] {
    if (M < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan::set_points: M_local = " + std::to_string(M) + " (must be >= 0)");
    // A rank without points keeps no local points at all: execute skips its engine.
    M_local = 0;
    if (M == 0) return;
    if (host_pointers)
      local->set_points_host(M, x, y, z);
    else
      local->set_points(M, x, y, z);
    local->synchronize();  // device-side failures (bad points, memory) surface here, agreed
    M_local = M;
  });
  std::int64_t total = M_local;
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, comm()));
  M_total = total;
}

template <typename T>
void DistPlan<T>::set_points(std::int64_t M_local, const T* x, const T* y, const T* z) {
  live(impl_).set_points(M_local, x, y, z, false);
}
template <typename T>
void DistPlan<T>::set_points_host(std::int64_t M_local, const T* x, const T* y, const T* z) {
  live(impl_).set_points(M_local, x, y, z, true);
}
template <typename T>
void DistPlan<T>::set_points(std::int64_t M_local, const T* x, const T* y, const T* z,
                             std::int64_t N, const T* s, const T* t, const T* u) {
  const T* xs[3] = {x, y, z};
  const T* ss[3] = {s, t, u};
  live(impl_).set_points_type3(M_local, xs, N, ss, false);
}
template <typename T>
void DistPlan<T>::set_points_host(std::int64_t M_local, const T* x, const T* y, const T* z,
                                  std::int64_t N, const T* s, const T* t, const T* u) {
  const T* xs[3] = {x, y, z};
  const T* ss[3] = {s, t, u};
  live(impl_).set_points_type3(M_local, xs, N, ss, true);
}

// Type 3: the bounds of all ranks' points first, so every rank's plan gets the same grid.
// Shared targets: each rank's own sources, the common targets (their count and ranges are
// compared). Scattered: all sources on every rank, this rank's targets.
template <typename T>
void DistPlan<T>::Impl::set_points_type3(std::int64_t M, const T* const* x, std::int64_t N,
                                         const T* const* s, bool host_pointers) {
  const bool shared = dopts.targets == Type3Targets::Shared;
  const int dim = local->dim();
  M_local = M_user = 0;
  nmodes = 0;
  points_set = false;
  detail::agreed(comm(), [&] {
    if (type != 3)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan::set_points with targets is for type 3 plans; this plan is type " +
                      std::to_string(type));
    if (M < 0 || N < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan::set_points: M_local = " + std::to_string(M) + ", N = " +
                      std::to_string(N) + " (must be >= 0)");
  });
  if (shared)
    detail::require_same_parameters(comm(), "DistPlan::set_points (shared targets)",
                                    {Param{"N", {static_cast<double>(N)}}});
  const MemorySpace space = host_pointers ? MemorySpace::Host : local->memory_space();
  // Scattered: every rank's sources, in rank order, on every rank.
  const T* src[3] = {x[0], x[1], x[2]};
  std::int64_t M_plan = M;
  if (!shared) {
    sources = std::make_unique<detail::AllGather>(comm(), M);
    M_plan = sources->total();
    T* gathered[3] = {nullptr, nullptr, nullptr};
    detail::agreed(comm(), [&] {
      for (int d = 0; d < dim; ++d) {
        if (M > 0 && !x[d])
          throw Error(ErrorCode::InvalidArgument, std::string("DistPlan::set_points: ") +
                                                      "xyz"[d] + " is null with M_local = " +
                                                      std::to_string(M));
        gathered[d] = static_cast<T*>(all_x[d].get(space, sizeof(T) * M_plan));
      }
      all_c.get(space, sizeof(complex_type) * ntransf * M_plan);
    });
    for (int d = 0; d < dim; ++d) {
      sources->gather(ctx->communicator(space), x[d], gathered[d], detail::scalar_of<T>(), 1);
      src[d] = gathered[d];
    }
  }
  Type3Bounds own{};
  detail::agreed(comm(), [&] {
    own = host_pointers
              ? local->type3_bounds_host(M_plan, src[0], src[1], src[2], N, s[0], s[1], s[2])
              : local->type3_bounds(M_plan, src[0], src[1], src[2], N, s[0], s[1], s[2]);
  });
  const Type3Bounds all = allreduce_bounds(comm(), own);
  detail::agreed(comm(), [&] {
    for (int d = 0; shared && d < dim; ++d)
      if (own.target_lo[d] != all.target_lo[d] || own.target_hi[d] != all.target_hi[d])
        throw Error(ErrorCode::InvalidArgument,
                    std::string("DistPlan::set_points: targets = Shared, but this rank's ") +
                        "stu"[d] + " span [" + std::to_string(own.target_lo[d]) + ", " +
                        std::to_string(own.target_hi[d]) + "] differs from another rank's");
    if (host_pointers)
      local->set_points_host(M_plan, src[0], src[1], src[2], N, s[0], s[1], s[2], &all);
    else
      local->set_points(M_plan, src[0], src[1], src[2], N, s[0], s[1], s[2], &all);
    local->synchronize();
  });
  M_local = M_user = M;
  nmodes = N;
  points_set = true;
  std::int64_t total = M;
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, comm()));
  M_total = total;
}

template <typename T>
void DistPlan<T>::Impl::zero_modes(complex_type* f, std::int64_t count, MemorySpace space) {
  const auto bytes = static_cast<std::size_t>(count) * sizeof(complex_type);
  if (space == MemorySpace::Host)
    std::memset(static_cast<void*>(f), 0, bytes);
  else
    detail::zero_device_bytes(f, bytes, ctx->stream->get());
}

template <typename T>
void DistPlan<T>::Impl::run_type1(complex_type* c, complex_type* f, MemorySpace space) {
  detail::Communicator& cm = ctx->communicator(space);
  const detail::Scalar sc = detail::scalar_of<T>();
  const bool all = dopts.reduction == Reduction::AllReduce;
  const int nsteps = ntransf / step;
  const std::int64_t cstep = step * M_local, fstep = step * nmodes;
  auto compute = [&](int i) {
    if (M_local == 0)
      zero_modes(f + i * fstep, fstep, space);  // no points: the partial sum is zero
    else
      local->execute(c + i * cstep, f + i * fstep);
  };

  const auto t0 = Clock::now();
  if (nsteps == 1) {
    detail::agreed(comm(), [&] {
      compute(0);
      local->synchronize();
    });
    timings.compute_ms = ms_since(t0);
    const auto t1 = Clock::now();
    if (all)
      cm.allreduce(f, 2 * fstep, sc);
    else
      cm.reduce(f, 2 * fstep, sc, dopts.root);
    timings.comm_ms = ms_since(t1);
    return;
  }
  // Pipelined: the reduction of step i runs while step i + 1 computes. Every rank starts the
  // same reductions before any throw, so waiting for them on failure cannot hang.
  try {
    for (int i = 0; i < nsteps; ++i) {
      detail::agreed(comm(), [&] { compute(i); });
      if (all)
        cm.allreduce_start(f + i * fstep, 2 * fstep, sc);
      else
        cm.reduce_start(f + i * fstep, 2 * fstep, sc, dopts.root);
    }
    local->synchronize();
  } catch (...) {
    try {
      cm.wait();
    } catch (...) {
      // The first error is the one to report.
    }
    throw;
  }
  timings.compute_ms = ms_since(t0);
  const auto t1 = Clock::now();
  cm.wait();
  timings.comm_ms = ms_since(t1);  // the communication left exposed after the compute
}

template <typename T>
void DistPlan<T>::Impl::run_type2(complex_type* c, complex_type* f, MemorySpace space) {
  detail::Communicator& cm = ctx->communicator(space);
  const std::int64_t count = ntransf * nmodes;
  const auto t0 = Clock::now();
  if (!dopts.modes_on_all) cm.bcast(f, 2 * count, detail::scalar_of<T>(), dopts.root);
  timings.comm_ms = ms_since(t0);
  compute_agreed(c, f, M_local > 0);
}

// Type 2 on a rank that passed no f: a buffer of ours for the broadcast modes.
template <typename T>
typename DistPlan<T>::complex_type* DistPlan<T>::Impl::broadcast_target(MemorySpace space) {
  const std::int64_t count = ntransf * nmodes;
  if (space == MemorySpace::Host) {
    host_modes.resize(static_cast<std::size_t>(count));
    return host_modes.data();
  }
  const auto bytes = static_cast<std::size_t>(count) * sizeof(complex_type);
  if (dev_modes.bytes() != bytes) dev_modes = detail::DeviceBuffer(bytes);
  return static_cast<complex_type*>(dev_modes.get());
}

template <typename T>
void DistPlan<T>::Impl::run(complex_type* c, complex_type* f, MemorySpace space) {
  const bool f_needed = type == 3 ? nmodes > 0 : (type == 1 || is_root() || dopts.modes_on_all);
  detail::agreed(comm(), [&] {
    if (!c && M_local > 0)
      throw Error(ErrorCode::InvalidArgument, "DistPlan::execute: c is null with M_local = " +
                                                  std::to_string(M_local));
    if (!f && f_needed)
      throw Error(ErrorCode::InvalidArgument,
                  std::string("DistPlan::execute: f is null on rank ") +
                      std::to_string(ctx->rank) +
                      (type == 1 ? " (type 1 needs f on every rank: it holds the partial sums)"
                       : type == 3
                           ? " (type 3 writes ntransf * N values at the targets)"
                           : " (type 2 reads f on the root, or on every rank with "
                             "modes_on_all)"));
    if (!f && type == 2) f = broadcast_target(space);  // a rank that only receives the modes
  });
  if (type == 2)
    run_type2(c, f, space);
  else if (type == 3 && dopts.targets == Type3Targets::Shared && nmodes == 0)
    return;  // no targets on any rank: nothing to compute or sum
  else if (type == 3 && dopts.targets == Type3Targets::Scattered)
    run_type3_scattered(c, f, space);
  else
    run_type1(c, f, space);  // type 1, and type 3 with shared targets
}

// Type 3, scattered targets: every rank's strengths to every rank, then this rank's targets.
template <typename T>
void DistPlan<T>::Impl::run_type3_scattered(complex_type* c, complex_type* f, MemorySpace space) {
  const std::int64_t total = sources->total();
  auto* call = static_cast<complex_type*>(all_c.get(space, sizeof(complex_type) * ntransf * total));
  const auto t0 = Clock::now();
  for (int v = 0; v < ntransf; ++v)
    sources->gather(ctx->communicator(space), c ? c + v * M_local : nullptr, call + v * total,
                    detail::scalar_of<T>(), 2);
  timings.comm_ms = ms_since(t0);
  compute_agreed(call, f, nmodes > 0);
}

// One whole local execute (type 2, type 3 with scattered targets), agreed and timed as compute.
template <typename T>
void DistPlan<T>::Impl::compute_agreed(complex_type* c, complex_type* f, bool has_work) {
  const auto t0 = Clock::now();
  detail::agreed(comm(), [&] {
    if (!has_work) return;
    local->execute(c, f);
    local->synchronize();
  });
  timings.compute_ms = ms_since(t0);
}

template <typename T>
void DistPlan<T>::execute(complex_type* c_local, complex_type* f) {
  live(impl_).execute(c_local, f, false);
}
template <typename T>
void DistPlan<T>::execute_host(complex_type* c_local, complex_type* f) {
  live(impl_).execute(c_local, f, true);
}

template <typename T>
void DistPlan<T>::Impl::execute(complex_type* c, complex_type* f, bool host_pointers) {
  // The same state on every rank (set_points is agreed), so every rank throws here together.
  if (!points_set)
    throw Error(ErrorCode::InvalidArgument,
                "DistPlan::execute before set_points: set the points first");
  const auto t0 = Clock::now();
  if (dopts.rebalance)
    execute_rebalanced(c, f, host_pointers);
  else if (host_pointers)
    execute_host_local(c, f);
  else
    run(c, f, local->memory_space());
  timings.total_ms = ms_since(t0);
}

// The strengths (type 1) move to the balanced layout before the run; the values (type 2) move
// back after it. The moves count as communication.
template <typename T>
void DistPlan<T>::Impl::execute_rebalanced(complex_type* c, complex_type* f, bool host_pointers) {
  detail::agreed(comm(), [&] {
    if (!host_pointers && local->memory_space() == MemorySpace::Device)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan: rebalance moves data through host memory; with the CUDA engine use "
                  "execute_host");
    if (!rebalancer)
      throw Error(ErrorCode::InvalidArgument, "DistPlan::execute: set_points was not called");
    if (!c && M_user > 0)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan::execute: c is null with M_local = " + std::to_string(M_user));
    c_balanced.resize(static_cast<std::size_t>(ntransf * M_local));
  });
  const auto eb = sizeof(complex_type);
  auto t0 = Clock::now();
  if (type == 1)
    for (int t = 0; t < ntransf; ++t)
      rebalancer->forward(c + t * M_user, c_balanced.data() + t * M_local, eb);
  double moves_ms = ms_since(t0);
  execute_host_local(c_balanced.data(), f);
  t0 = Clock::now();
  if (type == 2)
    for (int t = 0; t < ntransf; ++t)
      rebalancer->backward(c_balanced.data() + t * M_local, c + t * M_user, eb);
  moves_ms += ms_since(t0);
  timings.comm_ms += moves_ms;
}

// Host pointers: on a host plan the run itself; on a device plan through device copies.
template <typename T>
void DistPlan<T>::Impl::execute_host_local(complex_type* c_local, complex_type* f) {
  Impl& s = *this;
  if (s.local->memory_space() == MemorySpace::Host) {
    s.run(c_local, f, MemorySpace::Host);
    return;
  }
  // Device plan: stage through device copies so the collectives run on device buffers (NCCL
  // or CUDA-aware MPI); the copies count in total_ms only.
  const std::int64_t nc = s.ntransf * s.M_local, nf = s.ntransf * s.nmodes;
  const bool f_in = s.type == 2 && f && (s.is_root() || s.dopts.modes_on_all);
  detail::agreed(s.comm(), [&] {
    const std::size_t cb = static_cast<std::size_t>(nc) * sizeof(complex_type);
    const std::size_t fb = static_cast<std::size_t>(nf) * sizeof(complex_type);
    if (s.dev_c.bytes() < cb) s.dev_c = detail::DeviceBuffer(cb);
    if (s.dev_f.bytes() < fb) s.dev_f = detail::DeviceBuffer(fb);
    if (s.type != 2 && !f && nf > 0)
      throw Error(ErrorCode::InvalidArgument,
                  "DistPlan::execute_host: f is null on rank " + std::to_string(s.ctx->rank) +
                      (s.type == 1 ? " (type 1 needs f on every rank)"
                                   : " (type 3 writes its targets' values)"));
    if (s.type != 2 && nc > 0) {
      if (!c_local) throw Error(ErrorCode::InvalidArgument, "DistPlan::execute_host: c is null");
      detail::copy_bytes(s.dev_c.get(), c_local, cb);
    }
    if (f_in) detail::copy_bytes(s.dev_f.get(), f, fb);
  });
  auto* dc = static_cast<complex_type*>(s.dev_c.get());
  auto* df = static_cast<complex_type*>(s.dev_f.get());
  s.run(nc > 0 ? dc : nullptr, df, MemorySpace::Device);
  detail::agreed(s.comm(), [&] {
    if (s.type != 2 && f)
      detail::copy_bytes(f, df, static_cast<std::size_t>(nf) * sizeof(complex_type));
    if (s.type == 2 && nc > 0)
      detail::copy_bytes(c_local, dc, static_cast<std::size_t>(nc) * sizeof(complex_type));
  });
}

template <typename T>
std::int64_t DistPlan<T>::num_points_local() const {
  return live(impl_).M_user;
}
template <typename T>
std::int64_t DistPlan<T>::num_points_total() const {
  return live(impl_).M_total;
}
template <typename T> const Plan<T>& DistPlan<T>::local_plan() const { return *live(impl_).local; }
template <typename T> DistTimings DistPlan<T>::last_timings() const { return live(impl_).timings; }

template class DistPlan<float>;
template class DistPlan<double>;

}  // namespace nufftmp::dist
