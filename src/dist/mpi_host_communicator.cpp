// MPI on host buffers. MPI counts are int: arrays longer than max_count are reduced in pieces
// (each piece is an independent element-wise sum, so the pieces give the same result).
// The pipelined forms use non-blocking collectives (MPI_Iallreduce / MPI_Ireduce).
#include <vector>

#include "communicator.hpp"
#include "mpi_check.hpp"
#include "mpi_pieces.hpp"

namespace nufftmp::dist::detail {

namespace {

char* at(void* buf, std::int64_t offset, Scalar s) {
  return static_cast<char*>(buf) + offset * static_cast<std::int64_t>(scalar_bytes(s));
}

class MpiHostCommunicator final : public Communicator {
 public:
  MpiHostCommunicator(MPI_Comm comm, std::int64_t max_count) : comm_(comm), max_(max_count) {
    NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  }
  ~MpiHostCommunicator() override {
    // Never leave requests dangling; errors cannot be thrown from a destructor.
    if (!pending_.empty())
      MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
  }
  const char* name() const override { return "mpi-host"; }
  MemorySpace memory_space() const override { return MemorySpace::Host; }

  void allreduce(void* buf, std::int64_t n, Scalar s) override {
    for_each_piece(n, max_, [&](std::int64_t off, int count) {
      NUFFTMP_MPI_CHECK(
          MPI_Allreduce(MPI_IN_PLACE, at(buf, off, s), count, mpi_type(s), MPI_SUM, comm_));
    });
  }
  void reduce(void* buf, std::int64_t n, Scalar s, int root) override {
    for_each_piece(n, max_, [&](std::int64_t off, int count) {
      void* p = at(buf, off, s);
      // MPI_IN_PLACE is legal at the root only; elsewhere the buffer is the send buffer.
      NUFFTMP_MPI_CHECK(MPI_Reduce(rank_ == root ? MPI_IN_PLACE : p, rank_ == root ? p : nullptr,
                                   count, mpi_type(s), MPI_SUM, root, comm_));
    });
  }
  void bcast(void* buf, std::int64_t n, Scalar s, int root) override {
    for_each_piece(n, max_, [&](std::int64_t off, int count) {
      NUFFTMP_MPI_CHECK(MPI_Bcast(at(buf, off, s), count, mpi_type(s), root, comm_));
    });
  }
  void allreduce_start(void* buf, std::int64_t n, Scalar s) override {
    for_each_piece(n, max_, [&](std::int64_t off, int count) {
      pending_.push_back(MPI_REQUEST_NULL);
      NUFFTMP_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, at(buf, off, s), count, mpi_type(s),
                                       MPI_SUM, comm_, &pending_.back()));
    });
  }
  void reduce_start(void* buf, std::int64_t n, Scalar s, int root) override {
    for_each_piece(n, max_, [&](std::int64_t off, int count) {
      void* p = at(buf, off, s);
      pending_.push_back(MPI_REQUEST_NULL);
      NUFFTMP_MPI_CHECK(MPI_Ireduce(rank_ == root ? MPI_IN_PLACE : p, rank_ == root ? p : nullptr,
                                    count, mpi_type(s), MPI_SUM, root, comm_, &pending_.back()));
    });
  }
  void wait() override { wait_all(pending_); }

 private:
  MPI_Comm comm_;
  std::int64_t max_;
  int rank_ = 0;
  std::vector<MPI_Request> pending_;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_host_communicator(MPI_Comm comm, std::int64_t max_count) {
  return std::make_unique<MpiHostCommunicator>(comm, max_count);
}

}  // namespace nufftmp::dist::detail
