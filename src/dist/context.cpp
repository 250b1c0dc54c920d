// dist::Context: our own duplicate of the user's communicator (errors returned, not fatal),
// node-local ranks, round-robin GPU binding, the stream, and the communicator backends.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "agree.hpp"
#include "context_impl.hpp"
#include "mpi_check.hpp"
#include "node_rank.hpp"

namespace nufftmp::dist {

using detail::Param;

const char* comm_backend_name(CommBackend c) noexcept {
  switch (c) {
    case CommBackend::Auto: return "auto";
    case CommBackend::Nccl: return "nccl";
    case CommBackend::Mpi: return "mpi";
    case CommBackend::MpiHost: return "mpi-host";
  }
  return "unknown";
}

namespace {

bool have_nccl() {
#ifdef NUFFTMP_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

void free_comm(MPI_Comm& c) {
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  c = MPI_COMM_NULL;
}

// Which local ranks use the same GPU as this one: equal UUIDs. Returns the lowest local rank
// of this rank's group (the group's colour) and whether the group has more than one rank.
std::pair<int, bool> gpu_group(MPI_Comm local_comm, int local_rank, int local_size,
                               const std::array<unsigned char, 16>& uuid) {
  std::vector<unsigned char> all(16 * static_cast<std::size_t>(local_size));
  NUFFTMP_MPI_CHECK(MPI_Allgather(uuid.data(), 16, MPI_BYTE, all.data(), 16, MPI_BYTE, local_comm));
  int first = local_rank, members = 0;
  for (int r = 0; r < local_size; ++r) {
    if (std::memcmp(&all[16 * r], uuid.data(), 16) != 0) continue;
    first = std::min(first, r);
    ++members;
  }
  return {first, members > 1};
}

}  // namespace

Context::Impl::~Impl() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  device_comm.reset();
  host_comm.reset();
  stream.reset();
  if (finalized) return;  // MPI is gone: its handles went with it
  free_comm(same_gpu_comm);
  free_comm(local_comm);
  free_comm(comm);
}

Context::Context(MPI_Comm user_comm, const ContextOptions& opts)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  int initialized = 0;
  NUFFTMP_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized)
    throw Error(ErrorCode::InvalidArgument, "dist::Context: MPI_Init has not been called");
  if (user_comm == MPI_COMM_NULL)
    throw Error(ErrorCode::InvalidArgument, "dist::Context: comm is MPI_COMM_NULL");

  // A duplicate keeps our traffic apart from the user's; errors come back as codes so that
  // they become exceptions instead of aborting the job.
  NUFFTMP_MPI_CHECK(MPI_Comm_dup(user_comm, &s.comm));
  NUFFTMP_MPI_CHECK(MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN));
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(s.comm, &s.rank));
  NUFFTMP_MPI_CHECK(MPI_Comm_size(s.comm, &s.size));
  s.local_comm = detail::split_node(s.comm);
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(s.local_comm, &s.local_rank));
  NUFFTMP_MPI_CHECK(MPI_Comm_size(s.local_comm, &s.local_size));
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  NUFFTMP_MPI_CHECK(MPI_Get_processor_name(host, &len));
  s.host.assign(host, static_cast<std::size_t>(len));
  s.host_comm = detail::make_mpi_host_communicator(s.comm);

  detail::require_same_parameters(
      s.comm, "dist::Context",
      {Param{"backend", {static_cast<double>(opts.backend)}},
       Param{"comm", {static_cast<double>(opts.comm)}}});

  // Backend: Auto is CUDA only when every rank sees a device (one engine for all ranks).
  const int ndev = cuda_device_count();
  int all_have_gpu = ndev > 0 ? 1 : 0;
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all_have_gpu, 1, MPI_INT, MPI_MIN, s.comm));
  s.backend = opts.backend == Backend::Auto ? (all_have_gpu ? Backend::Cuda : Backend::Cpu)
                                            : opts.backend;

  std::array<unsigned char, 16> uuid{};
  detail::agreed(s.comm, [&] {
    if (s.backend == Backend::Cpu && opts.comm == CommBackend::Nccl)
      throw Error(ErrorCode::InvalidArgument,
                  "dist::Context: comm = nccl needs backend = cuda (the resolved backend is cpu)");
    if (s.backend != Backend::Cuda) return;
    if (ndev == 0)
      throw Error(ErrorCode::NotAvailable,
                  "dist::Context: backend = cuda, but rank " + std::to_string(s.rank) +
                      " on node " + s.host + " sees no CUDA device");
    if (opts.device >= ndev)
      throw Error(ErrorCode::InvalidArgument,
                  "dist::Context: device = " + std::to_string(opts.device) + " but rank " +
                      std::to_string(s.rank) + " sees only " + std::to_string(ndev) + " devices");
    // Round-robin over the node's visible GPUs unless the caller chose.
    s.device = opts.device >= 0 ? opts.device : detail::round_robin_device(s.local_rank, ndev);
    detail::set_device(s.device);
    uuid = detail::device_uuid(s.device);
    s.stream = std::make_unique<detail::Stream>(s.device);
  });
  if (s.backend != Backend::Cuda) {
    s.comm_backend = CommBackend::MpiHost;
    return;
  }

  auto [colour, shared] = gpu_group(s.local_comm, s.local_rank, s.local_size, uuid);
  s.gpu_shared = shared;
  NUFFTMP_MPI_CHECK(MPI_Comm_split(s.local_comm, colour, s.local_rank, &s.same_gpu_comm));
  NUFFTMP_MPI_CHECK(MPI_Comm_set_errhandler(s.same_gpu_comm, MPI_ERRORS_RETURN));
  int any_shared = shared ? 1 : 0;
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &any_shared, 1, MPI_INT, MPI_MAX, s.comm));
  s.any_gpu_shared = any_shared != 0;

  // NCCL refuses two ranks on one GPU: Auto then takes MPI; an explicit Nccl goes
  // hierarchical (MPI among the ranks of a GPU, NCCL among one leader per GPU).
  switch (opts.comm) {
    case CommBackend::Auto:
      s.comm_backend = have_nccl() && !s.any_gpu_shared ? CommBackend::Nccl : CommBackend::Mpi;
      break;
    default: s.comm_backend = opts.comm;
  }
  detail::agreed(s.comm, [&] {
    if (s.comm_backend == CommBackend::Nccl)
      s.device_comm = detail::make_nccl_communicator(s.comm, s.same_gpu_comm, s.device,
                                                     s.stream->get());
    else
      s.device_comm = detail::make_mpi_device_communicator(
          s.comm, s.device, s.stream->get(), s.comm_backend == CommBackend::MpiHost);
  });
}

Context::~Context() = default;

MPI_Comm Context::comm() const { return impl_->comm; }
int Context::rank() const { return impl_->rank; }
int Context::size() const { return impl_->size; }
int Context::local_rank() const { return impl_->local_rank; }
int Context::local_size() const { return impl_->local_size; }
Backend Context::backend() const { return impl_->backend; }
CommBackend Context::comm_backend() const { return impl_->comm_backend; }
int Context::device() const { return impl_->device; }
void* Context::stream() const { return impl_->stream ? impl_->stream->get() : nullptr; }
bool Context::gpu_shared() const { return impl_->gpu_shared; }
Context::Impl& Context::impl() const { return *impl_; }

std::string Context::binding() const {
  const Impl& s = *impl_;
  std::string b = "rank " + std::to_string(s.rank) + " -> node " + s.host;
  if (s.device < 0) return b + ", CPU";
  b += ", GPU " + std::to_string(s.device);
  if (s.gpu_shared) b += " (shared with another rank)";
  return b;
}

}  // namespace nufftmp::dist
