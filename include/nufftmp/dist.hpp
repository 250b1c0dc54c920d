// The distributed NUFFT: one transform computed by all ranks of an MPI communicator, each rank
// running a single-device plan (CUDA engine on its bound GPU, or the CPU engine) on its share.
//
//   type 1: every rank spreads its own points; the partial mode arrays are summed (all-reduce,
//           or reduce to a root) with NCCL or MPI.
//   type 2: the mode array (on the root, or on every rank) is broadcast; each rank evaluates
//           its own targets; results stay local or are gathered to the root on request.
//   type 3: each rank holds its own sources. Shared targets (the same on every rank): every
//           rank sums its sources' part and the parts are summed as in type 1. Scattered
//           targets (each rank its own): every rank gets all sources (coordinates at
//           set_points, strengths at every execute) and computes its own targets' values.
//           Either way every rank's plan is sized for the bounds of all ranks' points.
//
// Every collective is preceded by an agreement on status: an error on one rank (bad point,
// out of memory, mismatched parameters) is thrown as the same nufftmp::Error on every rank.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "nufftmp/options.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::dist {

enum class CommBackend {
  Auto,     // NCCL for CUDA plans when every rank has a GPU of its own, else MPI
  Nccl,     // NCCL among one leader per GPU (ranks sharing a GPU reduce over MPI first)
  Mpi,      // MPI on device buffers when MPI is CUDA-aware, else staged through pinned host
  MpiHost,  // MPI on host buffers (CPU engine)
};

const char* comm_backend_name(CommBackend c) noexcept;  // "auto", "nccl", "mpi", "mpi-host"

struct ContextOptions {
  Backend backend = Backend::Auto;  // engine of the plans; Auto: CUDA when every rank sees a GPU
  int device = -1;                  // -1: node-local rank % visible devices
  CommBackend comm = CommBackend::Auto;  // with the CPU engine always MPI on host buffers
};

// MPI communicator + node-local rank + GPU binding + stream + NCCL communicator.
// Collective over comm: every rank constructs it together (backend and comm must agree).
// It works on its own duplicate of comm (errors returned as codes, thrown as
// Error(MpiFailure)); comm() returns that duplicate. Ranks sharing a GPU are found by device
// UUID. Environment: NUFFTMP_MPI_CUDA_AWARE=1/0 overrides the CUDA-aware MPI detection.
class Context {
 public:
  explicit Context(MPI_Comm comm = MPI_COMM_WORLD, const ContextOptions& opts = ContextOptions());
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  MPI_Comm comm() const;
  int rank() const;
  int size() const;
  int local_rank() const;    // rank among the ranks of this node
  int local_size() const;
  Backend backend() const;   // resolved: Cpu or Cuda
  CommBackend comm_backend() const;  // resolved
  int device() const;        // bound GPU, -1 on the CPU engine
  void* stream() const;      // cudaStream_t of this rank (nullptr on the CPU engine)
  bool gpu_shared() const;   // another rank of this node uses the same GPU
  std::string binding() const;  // "rank 3 -> node n2, GPU 1"

  struct Impl;
  Impl& impl() const;

 private:
  std::unique_ptr<Impl> impl_;
};

enum class Reduction { AllReduce, Reduce };

// Type 3: where the targets live (see the top of this file).
enum class Type3Targets { Shared, Scattered };

struct DistOptions {
  Reduction reduction = Reduction::AllReduce;  // type 1: result on every rank or on root only
  int root = 0;
  bool modes_on_all = false;  // type 2: f already on every rank (skip the broadcast)
  // Type 1 batches: vectors computed per reduction step, so that the reduction of one step
  // overlaps the compute of the next (device backends). Must divide ntransf; 0 = choose
  // (the whole batch in one reduction for host memory; about a quarter of it on GPUs).
  int reduce_batch = 0;
  // Move the points so that every rank holds a near-equal contiguous share of the global
  // sequence (rank 0's points first), whatever each rank brought: equal work per rank. The
  // strengths (type 1) follow them and the values (type 2) come back to the caller's layout
  // on every execute, through host memory (with the CUDA engine: set_points_host and
  // execute_host only). The moves count as communication.
  bool rebalance = false;  // types 1 and 2
  Type3Targets targets = Type3Targets::Shared;  // type 3
};

// Timings of the last execute on this rank (milliseconds).
// With pipelined type 1 steps, compute_ms runs until the last step's compute has finished
// and comm_ms is the communication left after it (the part not hidden behind compute).
struct DistTimings {
  double compute_ms = 0;  // local plan (spread/FFT/deconv or the reverse)
  double comm_ms = 0;     // reductions / broadcasts / rebalance moves
  double total_ms = 0;    // the whole call (host <-> device copies of execute_host included)
};

template <typename T>
class DistPlan {
 public:
  using complex_type = std::complex<T>;
  // Collective. type, modes (type 3: dim), isign, ntransf, tol, opts' modeord, upsampfac, kernel,
  // spread_interp_only and backend, and the DistOptions must agree on all ranks: a mismatch is
  // Error(InvalidArgument) on every rank, naming the parameter and the values (the other
  // Options, how this rank computes, may differ). opts.backend must be Auto or the context's; on GPUs the local
  // plan runs on the context's device and stream (opts.gpu_device / cuda_stream are replaced).
  // Warnings (opts.warnings) are printed by rank 0 only.
  DistPlan(Context& ctx, int type, const std::vector<std::int64_t>& modes, int isign,
           int ntransf, double tol, const Options& opts = Options(),
           const DistOptions& dopts = DistOptions());
  // Type 3: type = 3, dim = 1, 2 or 3 (a template for the reason given at Plan's).
  template <typename Int, typename std::enable_if<std::is_integral<Int>::value, int>::type = 0>
  DistPlan(Context& ctx, int type, Int dim, int isign, int ntransf, double tol,
           const Options& opts = Options(), const DistOptions& dopts = DistOptions())
      : DistPlan(Type3Tag{}, ctx, type, static_cast<long long>(dim), isign, ntransf, tol, opts,
                 dopts) {}
  ~DistPlan();
  // A moved-from DistPlan throws Error(InvalidArgument) from every call but destruction.
  DistPlan(DistPlan&&) noexcept;
  DistPlan& operator=(DistPlan&&) noexcept;

  // Collective. This rank's points (M_local may be 0), in the plan's memory space.
  void set_points(std::int64_t M_local, const T* x, const T* y = nullptr, const T* z = nullptr);
  void set_points_host(std::int64_t M_local, const T* x, const T* y = nullptr,
                       const T* z = nullptr);
  // Type 3, collective: this rank's sources and the targets (Shared: the same N targets on
  // every rank, checked through their count and ranges; Scattered: this rank's own).
  void set_points(std::int64_t M_local, const T* x, const T* y, const T* z, std::int64_t N,
                  const T* s, const T* t = nullptr, const T* u = nullptr);
  void set_points_host(std::int64_t M_local, const T* x, const T* y, const T* z, std::int64_t N,
                       const T* s, const T* t = nullptr, const T* u = nullptr);
  // Collective. c_local: ntransf * M_local; f: ntransf * prod(N) (type 1 output: meaningful on
  // every rank for AllReduce, on root for Reduce (other ranks keep their partial sums); type 2
  // input: read on root unless modes_on_all; other ranks may pass null, or an array that
  // receives the root's modes). Memory space of the plan (execute) or host (execute_host: on
  // GPUs through device copies kept by the plan, the collectives still on device buffers).
  // An error on any rank is thrown on every rank (RemoteFailure on those that did not fail).
  // execute before set_points is Error(InvalidArgument) on every rank.
  // Type 3: c_local as type 1; f: ntransf * N values at the targets (Shared: as type 1's f,
  // summed on every rank or on the root; Scattered: this rank's targets, null when it has none).
  void execute(complex_type* c_local, complex_type* f);
  void execute_host(complex_type* c_local, complex_type* f);

  std::int64_t num_points_local() const;  // as passed to set_points (before any rebalance)
  std::int64_t num_points_total() const;
  // The single-device plan of this rank (its ntransf is the reduce_batch step for type 1 and
  // for type 3 with shared targets; with scattered targets it holds all ranks' sources).
  const Plan<T>& local_plan() const;
  DistTimings last_timings() const;

 private:
  struct Type3Tag {};
  DistPlan(Type3Tag, Context& ctx, int type, long long dim, int isign, int ntransf, double tol,
           const Options& opts, const DistOptions& dopts);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Root holds M_total points; every rank receives a near-equal contiguous share (host memory).
template <typename T>
struct LocalPoints {
  std::int64_t offset = 0;  // global index of this rank's first point
  std::vector<T> x, y, z;
  std::int64_t size() const { return static_cast<std::int64_t>(x.size()); }
};
template <typename T>
LocalPoints<T> scatter_points(const Context& ctx, int dim, std::int64_t M_total, const T* x,
                              const T* y, const T* z, int root = 0);

// Gathers every rank's n_local values to root in rank order (64-bit-safe counts). Returns the
// whole array on root, an empty vector elsewhere. Host memory. Instantiated for float, double,
// std::complex<float>, std::complex<double>, int, std::int64_t and char.
template <typename V>
std::vector<V> gather_to_root(const Context& ctx, const V* local, std::int64_t n_local,
                              int root = 0);

}  // namespace nufftmp::dist
