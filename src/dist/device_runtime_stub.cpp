// CPU-only builds: the device operations are unreachable (the context never resolves to the
// CUDA backend there) but must link; they say clearly what is missing if reached.
#include "communicator.hpp"
#include "device_runtime.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::dist::detail {

namespace {
[[noreturn]] void unavailable(const char* what) {
  throw Error(ErrorCode::NotAvailable,
              std::string(what) + ": nufftmp was built without CUDA (configure with -DNUFFTMP_CUDA=ON)");
}
}  // namespace

void set_device(int) { unavailable("set_device"); }
std::array<unsigned char, 16> device_uuid(int) { unavailable("device_uuid"); }
Stream::Stream(int) { unavailable("CUDA stream"); }
Stream::~Stream() = default;
void Stream::synchronize() const {}
DeviceBuffer::DeviceBuffer(std::size_t) { unavailable("device buffer"); }
DeviceBuffer::~DeviceBuffer() = default;
void copy_bytes(void*, const void*, std::size_t) { unavailable("device copy"); }
void zero_device_bytes(void*, std::size_t, void*) { unavailable("device memset"); }

std::unique_ptr<Communicator> make_mpi_device_communicator(MPI_Comm, int, void*, bool) {
  unavailable("MPI on device buffers");
}
bool mpi_is_cuda_aware() { return false; }

}  // namespace nufftmp::dist::detail
