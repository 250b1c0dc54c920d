// Stream ordering for device arrays: a plan runs on its own stream (fixed when it is made),
// the caller's arrays may come from another (CuPy's or PyTorch's current stream, or the one a
// __cuda_array_interface__ names). stream_wait makes one stream wait for the work queued so far
// on another, through an event, without blocking the host: the Python plan waits for the
// caller's stream before it reads and makes the caller's stream wait for it after it writes.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "bindings.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"

namespace nufftmp::python {

namespace {

// An event that destroys itself; cudaEventDestroy on a recorded event is safe (the runtime
// releases it once the work it marks is done).
class Event {
 public:
  Event() { NUFFTMP_CUDA_TRY(cudaEventCreateWithFlags(&ev_, cudaEventDisableTiming)); }
  ~Event() { cudaEventDestroy(ev_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return ev_; }

 private:
  cudaEvent_t ev_ = nullptr;
};

void stream_wait(int device, std::uintptr_t waiter, std::uintptr_t waited) {
  if (waiter == waited) return;
  detail::DeviceGuard guard(device);
  Event ev;
  NUFFTMP_CUDA_TRY(cudaEventRecord(ev.get(), reinterpret_cast<cudaStream_t>(waited)));
  NUFFTMP_CUDA_TRY(cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(waiter), ev.get(), 0));
}

// Device of a device (or managed) address; -1 for host memory.
int pointer_device(std::uintptr_t ptr) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
    cudaGetLastError();  // clear the error of an unregistered host pointer
    return -1;
  }
  return (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) ? attr.device
                                                                                  : -1;
}

}  // namespace

int current_device() {
  int d = 0;
  NUFFTMP_CUDA_TRY(cudaGetDevice(&d));
  return d;
}

void bind_device_streams(nb::module_& m) {
  m.def("stream_wait", &stream_wait, nb::call_guard<nb::gil_scoped_release>());
  m.def("pointer_device", &pointer_device);
  m.def("current_device", &current_device);
}

}  // namespace nufftmp::python
