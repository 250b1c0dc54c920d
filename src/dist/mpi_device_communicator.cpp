// MPI on device buffers (CUDA builds). When the MPI library is CUDA-aware on every rank,
// device pointers go to MPI directly; otherwise each operation is staged through a pinned
// host buffer (copy down, MPI on the host, copy up). Operations wait for the work enqueued on
// the compute stream first, so they see the plan's results.
//
// CUDA-awareness: MPIX_Query_cuda_support (Open MPI, MVAPICH) where the MPI headers declare
// it; NUFFTMP_MPI_CUDA_AWARE=1/0 in the environment overrides (for MPIs without the query).
#include <cuda_runtime_api.h>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdlib>
#include <cstring>

#include "communicator.hpp"
#include "cuda/cuda_check.hpp"
#include "mpi_check.hpp"

namespace nufftmp::dist::detail {

bool mpi_is_cuda_aware() {
  if (const char* env = std::getenv("NUFFTMP_MPI_CUDA_AWARE"))
    return std::strcmp(env, "1") == 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

namespace {

// Page-locked host memory that grows on demand (fast, asynchronous copies).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      if (ptr_) cudaFreeHost(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
      NUFFTMP_CUDA_TRY(cudaMallocHost(&ptr_, bytes));
      bytes_ = bytes;
    }
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class MpiDeviceCommunicator final : public Communicator {
 public:
  MpiDeviceCommunicator(MPI_Comm comm, int device, void* stream, bool force_staged)
      : comm_(comm), device_(device), stream_(static_cast<cudaStream_t>(stream)) {
    NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    // Device pointers may go to MPI only if every rank's MPI takes them.
    int aware = (!force_staged && mpi_is_cuda_aware()) ? 1 : 0;
    NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &aware, 1, MPI_INT, MPI_MIN, comm_));
    aware_ = aware != 0;
    mpi_ = make_mpi_host_communicator(comm_);
  }
  const char* name() const override { return aware_ ? "mpi-cuda-aware" : "mpi-staged"; }
  MemorySpace memory_space() const override { return MemorySpace::Device; }

  void allreduce(void* buf, std::int64_t n, Scalar s) override {
    ready();
    if (aware_) return mpi_->allreduce(buf, n, s);
    void* h = down(buf, n, s);
    mpi_->allreduce(h, n, s);
    up(buf, h, n, s);
  }
  void reduce(void* buf, std::int64_t n, Scalar s, int root) override {
    ready();
    if (aware_) return mpi_->reduce(buf, n, s, root);
    void* h = down(buf, n, s);
    mpi_->reduce(h, n, s, root);
    if (rank_ == root) up(buf, h, n, s);
  }
  void bcast(void* buf, std::int64_t n, Scalar s, int root) override {
    ready();
    if (aware_) return mpi_->bcast(buf, n, s, root);
    void* h = rank_ == root ? down(buf, n, s) : staging_.get(bytes(n, s));
    mpi_->bcast(h, n, s, root);
    if (rank_ != root) up(buf, h, n, s);
  }

 private:
  static std::size_t bytes(std::int64_t n, Scalar s) {
    return static_cast<std::size_t>(n) * scalar_bytes(s);
  }
  void ready() {
    NUFFTMP_CUDA_TRY(cudaSetDevice(device_));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }
  void* down(const void* dev, std::int64_t n, Scalar s) {
    void* h = staging_.get(bytes(n, s));
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(h, dev, bytes(n, s), cudaMemcpyDeviceToHost, stream_));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
    return h;
  }
  void up(void* dev, const void* h, std::int64_t n, Scalar s) {
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(dev, h, bytes(n, s), cudaMemcpyHostToDevice, stream_));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  MPI_Comm comm_;
  int device_;
  cudaStream_t stream_;
  int rank_ = 0;
  bool aware_ = false;
  std::unique_ptr<Communicator> mpi_;
  PinnedBuffer staging_;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_device_communicator(MPI_Comm comm, int device,
                                                           void* compute_stream,
                                                           bool force_staged) {
  return std::make_unique<MpiDeviceCommunicator>(comm, device, compute_stream, force_staged);
}

}  // namespace nufftmp::dist::detail
