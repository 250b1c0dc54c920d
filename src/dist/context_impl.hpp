// The state behind dist::Context, shared with the distributed plan and helpers of src/dist.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "communicator.hpp"
#include "device_runtime.hpp"
#include "nufftmp/dist.hpp"

namespace nufftmp::dist {

struct Context::Impl {
  MPI_Comm comm = MPI_COMM_NULL;        // our duplicate of the user's communicator
  MPI_Comm local_comm = MPI_COMM_NULL;  // ranks of this node
  MPI_Comm same_gpu_comm = MPI_COMM_NULL;  // ranks of this node bound to this rank's GPU
  int rank = 0, size = 1, local_rank = 0, local_size = 1;
  std::string host;
  Backend backend = Backend::Cpu;
  CommBackend comm_backend = CommBackend::MpiHost;
  int device = -1;
  bool gpu_shared = false;      // this rank's GPU is used by another rank of its node
  bool any_gpu_shared = false;  // ... on any rank of the communicator
  std::unique_ptr<detail::Stream> stream;
  // Host buffers always go through MPI; device buffers through the resolved backend.
  std::unique_ptr<detail::Communicator> host_comm;
  std::unique_ptr<detail::Communicator> device_comm;

  ~Impl();
  // The communicator for buffers in `space`.
  detail::Communicator& communicator(MemorySpace space) const {
    return space == MemorySpace::Device ? *device_comm : *host_comm;
  }
};

}  // namespace nufftmp::dist
