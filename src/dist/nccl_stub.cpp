// Builds without NCCL (CPU-only, or CUDA without libnccl): asking for NCCL is a clear error.
#include "communicator.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::dist::detail {

std::unique_ptr<Communicator> make_nccl_communicator(MPI_Comm, MPI_Comm, int, void*) {
  throw Error(ErrorCode::NotAvailable,
              "comm backend nccl: nufftmp was built without NCCL (CUDA and libnccl needed)");
}

}  // namespace nufftmp::dist::detail
