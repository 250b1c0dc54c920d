// Built when the CUDA engine is off, in place of device_memory_cuda.cpp and timer_cuda.cpp:
// the cuda backend cannot be resolved then, so these are never reached in a normal run; they
// fail clearly if they are.
#include "device_memory.hpp"
#include "nufftmp/errors.hpp"
#include "timer.hpp"

namespace nufftmp::bench {

std::unique_ptr<DeviceBuffer> device_alloc(std::size_t) {
  throw Error(ErrorCode::NotAvailable, "nufftmp-bench was built without CUDA");
}

std::string current_device_name() { return "cpu"; }

void init_device_context() {}

std::unique_ptr<Timer> make_device_timer(void*) {
  throw Error(ErrorCode::NotAvailable, "nufftmp-bench was built without CUDA");
}

}  // namespace nufftmp::bench
