// The one small interface the distributed plan reduces and broadcasts through. Backends:
//   mpi_host_communicator.cpp   MPI on host buffers (the CPU engine; any build)
//   mpi_device_communicator.cpp MPI on device buffers: CUDA-aware MPI, or staged through
//                               pinned host buffers (CUDA builds only)
//   nccl_communicator.cpp       NCCL, hierarchical when ranks share a GPU (CUDA + NCCL builds)
// Buffers are arrays of n real elements (a complex array of m values is 2m reals, the sum of
// complex numbers being the sum of their parts). Every call is collective over the
// communicator's ranks and checks every MPI/NCCL/CUDA status.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstdint>
#include <memory>

#include "nufftmp/plan.hpp"
#include "partition.hpp"

namespace nufftmp::dist::detail {

enum class Scalar { F32, F64 };
template <typename T> constexpr Scalar scalar_of();
template <> constexpr Scalar scalar_of<float>() { return Scalar::F32; }
template <> constexpr Scalar scalar_of<double>() { return Scalar::F64; }
inline std::size_t scalar_bytes(Scalar s) { return s == Scalar::F32 ? 4 : 8; }
MPI_Datatype mpi_type(Scalar s);

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual const char* name() const = 0;
  // Where the buffers passed to this communicator must live.
  virtual MemorySpace memory_space() const = 0;

  // Blocking (on return the buffer holds the result and may be reused).
  // In-place sum over all ranks; every rank gets the result.
  virtual void allreduce(void* buf, std::int64_t n, Scalar s) = 0;
  // In-place sum to `root`; the other ranks' buffers are left as they were.
  virtual void reduce(void* buf, std::int64_t n, Scalar s, int root) = 0;
  virtual void bcast(void* buf, std::int64_t n, Scalar s, int root) = 0;

  // Pipelined forms: the operation is ordered after the work enqueued so far on the compute
  // stream (device backends) and may still be running on return; wait() completes every
  // operation started. Default: the blocking form (no overlap, same result).
  virtual void allreduce_start(void* buf, std::int64_t n, Scalar s) { allreduce(buf, n, s); }
  virtual void reduce_start(void* buf, std::int64_t n, Scalar s, int root) {
    reduce(buf, n, s, root);
  }
  virtual void wait() {}
};

// MPI on host memory. max_count: the largest count handed to one MPI call (INT_MAX; smaller
// values only in tests, to exercise the 64-bit chunking).
std::unique_ptr<Communicator> make_mpi_host_communicator(MPI_Comm comm,
                                                         std::int64_t max_count = kMaxMpiCount);

// CUDA builds (throw NotAvailable otherwise). compute_stream: the cudaStream_t the plans run on.
// force_staged: stage through pinned host buffers even when MPI is CUDA-aware.
std::unique_ptr<Communicator> make_mpi_device_communicator(MPI_Comm comm, int device,
                                                           void* compute_stream,
                                                           bool force_staged);
// CUDA + NCCL builds (throw NotAvailable otherwise). local_comm: the ranks of this node;
// ranks of one node bound to the same GPU (same_gpu_comm) reduce over MPI first, then one
// leader per GPU runs NCCL.
std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm comm, MPI_Comm same_gpu_comm,
                                                     int device, void* compute_stream);
// Whether this MPI library accepts device pointers (MPIX_Query_cuda_support when available;
// false when unknown).
bool mpi_is_cuda_aware();

}  // namespace nufftmp::dist::detail
