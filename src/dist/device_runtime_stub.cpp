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
struct Stream::Impl {};
Stream::Stream(int) { unavailable("CUDA stream"); }
Stream::~Stream() = default;
void* Stream::get() const { return nullptr; }
void Stream::synchronize() const {}
struct DeviceBuffer::Impl {};
DeviceBuffer::DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(std::size_t) { unavailable("device buffer"); }
DeviceBuffer::~DeviceBuffer() = default;
DeviceBuffer::DeviceBuffer(DeviceBuffer&&) noexcept = default;
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&&) noexcept = default;
void* DeviceBuffer::get() const { return nullptr; }
std::size_t DeviceBuffer::bytes() const { return 0; }
void copy_bytes(void*, const void*, std::size_t) { unavailable("device copy"); }
void zero_device_bytes(void*, std::size_t, void*) { unavailable("device memset"); }

std::unique_ptr<Communicator> make_mpi_device_communicator(MPI_Comm, int, void*, bool) {
  unavailable("MPI on device buffers");
}
bool mpi_is_cuda_aware() { return false; }

}  // namespace nufftmp::dist::detail
