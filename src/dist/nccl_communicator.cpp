// NCCL on device buffers (CUDA + NCCL builds).
//
// NCCL refuses two ranks on one GPU (ncclInvalidUsage), and running more ranks than GPUs is a
// supported case. So the ranks bound to one GPU form a group; its first rank is the group's
// leader, and NCCL runs among the leaders only (one per GPU):
//   all-reduce: MPI reduce to the leader inside each group -> NCCL all-reduce among leaders
//               -> MPI broadcast inside each group;
//   reduce:     the same as all-reduce (the root gets the sum; the others do too);
//   broadcast:  MPI broadcast inside the root's group -> NCCL broadcast among leaders from the
//               root's leader -> MPI broadcast inside every other group.
// With one rank per GPU every group is a single rank and only NCCL runs. The in-group steps
// use MPI on device buffers (CUDA-aware or staged). The unique id is broadcast over MPI.
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <vector>

#include "communicator.hpp"
#include "cuda/cuda_check.hpp"
#include "mpi_check.hpp"

#define NUFFTMP_NCCL_TRY(call)                                                            \
  do {                                                                                    \
    const ncclResult_t nufftmp_nst_ = (call);                                             \
    if (nufftmp_nst_ != ncclSuccess)                                                      \
      throw ::nufftmp::Error(::nufftmp::ErrorCode::NcclFailure,                           \
                             std::string(#call) + " failed: " +                           \
                                 ncclGetErrorString(nufftmp_nst_) + " (status " +         \
                                 std::to_string(int(nufftmp_nst_)) + ") at " + __FILE__ + \
                                 ":" + std::to_string(__LINE__));                         \
  } while (0)

namespace nufftmp::dist::detail {

namespace {

ncclDataType_t nccl_type(Scalar s) { return s == Scalar::F32 ? ncclFloat : ncclDouble; }

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(MPI_Comm comm, MPI_Comm same_gpu_comm, int device, void* stream)
      : device_(device), compute_(static_cast<cudaStream_t>(stream)) {
    try {
      init(comm, same_gpu_comm, stream);
    } catch (...) {
      release();  // a throwing constructor runs no destructor
      throw;
    }
  }
  ~NcclCommunicator() override { release(); }

 private:
  void init(MPI_Comm comm, MPI_Comm same_gpu_comm, void* stream) {
    int rank = 0, size = 1;
    NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    NUFFTMP_MPI_CHECK(MPI_Comm_size(comm, &size));
    NUFFTMP_MPI_CHECK(MPI_Comm_rank(same_gpu_comm, &group_rank_));
    NUFFTMP_MPI_CHECK(MPI_Comm_size(same_gpu_comm, &group_size_));
    const bool leader = group_rank_ == 0;
    NUFFTMP_MPI_CHECK(MPI_Comm_split(comm, leader ? 0 : MPI_UNDEFINED, rank, &leaders_));
    int leader_rank = -1, nleaders = 0;
    if (leader) {
      NUFFTMP_MPI_CHECK(MPI_Comm_set_errhandler(leaders_, MPI_ERRORS_RETURN));
      NUFFTMP_MPI_CHECK(MPI_Comm_rank(leaders_, &leader_rank));
      NUFFTMP_MPI_CHECK(MPI_Comm_size(leaders_, &nleaders));
    }
    // Every rank learns, for every global rank, its rank in the group and its leader's rank
    // among the leaders (broadcast roots are translated through these).
    int mine[2] = {group_rank_, leader_rank};
    NUFFTMP_MPI_CHECK(MPI_Bcast(&mine[1], 1, MPI_INT, 0, same_gpu_comm));
    std::vector<int> all(2 * static_cast<std::size_t>(size));
    NUFFTMP_MPI_CHECK(MPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm));
    group_rank_of_.resize(size);
    leader_of_.resize(size);
    for (int r = 0; r < size; ++r) group_rank_of_[r] = all[2 * r], leader_of_[r] = all[2 * r + 1];
    my_leader_ = mine[1];

    if (group_size_ > 1)
      group_ = make_mpi_device_communicator(same_gpu_comm, device_, stream, false);
    // One GPU shared anywhere makes every rank take the hierarchical path: the NCCL calls of
    // all leaders must match (an all-reduce here cannot meet a reduce there).
    int any_group = group_size_ > 1 ? 1 : 0;
    NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &any_group, 1, MPI_INT, MPI_MAX, comm));
    hierarchical_ = any_group != 0;

    NUFFTMP_CUDA_TRY(cudaSetDevice(device_));
    NUFFTMP_CUDA_TRY(cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking));
    NUFFTMP_CUDA_TRY(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming));
    if (!leader) return;
    // The unique id travels with a status, so that a failure on the first leader does not
    // leave the others waiting in ncclCommInitRank.
    struct {
      ncclUniqueId id;
      int status;
    } msg{};
    if (leader_rank == 0) msg.status = int(ncclGetUniqueId(&msg.id));
    NUFFTMP_MPI_CHECK(MPI_Bcast(&msg, sizeof(msg), MPI_BYTE, 0, leaders_));
    if (msg.status != ncclSuccess)
      throw Error(ErrorCode::NcclFailure,
                  std::string("ncclGetUniqueId failed on the first leader: ") +
                      ncclGetErrorString(ncclResult_t(msg.status)));
    NUFFTMP_NCCL_TRY(ncclCommInitRank(&nccl_, nleaders, msg.id, leader_rank));
  }

  void release() noexcept {
    if (comm_stream_) cudaStreamSynchronize(comm_stream_);
    if (nccl_) ncclCommDestroy(nccl_);
    if (ready_) cudaEventDestroy(ready_);
    if (comm_stream_) cudaStreamDestroy(comm_stream_);
    nccl_ = nullptr, ready_ = nullptr, comm_stream_ = nullptr;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && leaders_ != MPI_COMM_NULL) MPI_Comm_free(&leaders_);
    leaders_ = MPI_COMM_NULL;
  }

 public:
  const char* name() const override { return hierarchical_ ? "nccl+mpi-groups" : "nccl"; }
  MemorySpace memory_space() const override { return MemorySpace::Device; }

  void allreduce(void* buf, std::int64_t n, Scalar s) override {
    allreduce_start(buf, n, s);
    wait();
  }
  void reduce(void* buf, std::int64_t n, Scalar s, int root) override {
    reduce_start(buf, n, s, root);
    wait();
  }
  void bcast(void* buf, std::int64_t n, Scalar s, int root) override {
    const int root_leader = leader_of_[root];
    if (group_ && my_leader_ == root_leader) group_->bcast(buf, n, s, group_rank_of_[root]);
    if (nccl_) {
      after_compute();
      NUFFTMP_NCCL_TRY(ncclBroadcast(buf, buf, count(n), nccl_type(s), root_leader, nccl_,
                                     comm_stream_));
      wait();
    }
    if (group_ && my_leader_ != root_leader) group_->bcast(buf, n, s, 0);
  }

  void allreduce_start(void* buf, std::int64_t n, Scalar s) override {
    if (hierarchical_) {  // ranks share a GPU: the in-group MPI steps block anyway
      if (group_) group_->reduce(buf, n, s, 0);
      if (nccl_) {
        after_compute();
        NUFFTMP_NCCL_TRY(
            ncclAllReduce(buf, buf, count(n), nccl_type(s), ncclSum, nccl_, comm_stream_));
        wait();
      }
      if (group_) group_->bcast(buf, n, s, 0);
      return;
    }
    after_compute();
    NUFFTMP_NCCL_TRY(ncclAllReduce(buf, buf, count(n), nccl_type(s), ncclSum, nccl_, comm_stream_));
  }
  void reduce_start(void* buf, std::int64_t n, Scalar s, int root) override {
    if (hierarchical_) return allreduce_start(buf, n, s);  // see the header comment
    after_compute();
    NUFFTMP_NCCL_TRY(ncclReduce(buf, buf, count(n), nccl_type(s), ncclSum, leader_of_[root],
                                nccl_, comm_stream_));
  }
  void wait() override { NUFFTMP_CUDA_TRY(cudaStreamSynchronize(comm_stream_)); }

 private:
  static std::size_t count(std::int64_t n) { return static_cast<std::size_t>(n); }
  // The communication stream waits for the work enqueued so far on the compute stream.
  void after_compute() {
    NUFFTMP_CUDA_TRY(cudaSetDevice(device_));
    NUFFTMP_CUDA_TRY(cudaEventRecord(ready_, compute_));
    NUFFTMP_CUDA_TRY(cudaStreamWaitEvent(comm_stream_, ready_, 0));
  }

  int device_;
  cudaStream_t compute_;
  cudaStream_t comm_stream_ = nullptr;
  cudaEvent_t ready_ = nullptr;
  int group_rank_ = 0, group_size_ = 1, my_leader_ = -1;
  bool hierarchical_ = false;
  std::vector<int> group_rank_of_, leader_of_;
  MPI_Comm leaders_ = MPI_COMM_NULL;
  ncclComm_t nccl_ = nullptr;
  std::unique_ptr<Communicator> group_;
};

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm comm, MPI_Comm same_gpu_comm,
                                                     int device, void* compute_stream) {
  return std::make_unique<NcclCommunicator>(comm, same_gpu_comm, device, compute_stream);
}

}  // namespace nufftmp::dist::detail
