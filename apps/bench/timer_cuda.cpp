// CUDA-event timer on the plan's stream. Host code only, compiled against CUDA::cudart.
#include <cuda_runtime.h>

#include "cuda_check.hpp"
#include "timer.hpp"

namespace nufftmp::bench {

namespace {

class EventTimer final : public Timer {
 public:
  explicit EventTimer(void* stream) : stream_(static_cast<cudaStream_t>(stream)) {
    cuda_check(cudaEventCreate(&e0_), "cudaEventCreate");
    if (cudaEventCreate(&e1_) != cudaSuccess) {
      cudaEventDestroy(e0_);
      throw Error(ErrorCode::CudaFailure, "nufftmp-bench: cudaEventCreate failed");
    }
  }
  ~EventTimer() override {
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() override { cuda_check(cudaEventRecord(e0_, stream_), "cudaEventRecord"); }
  double stop_ms() override {
    cuda_check(cudaEventRecord(e1_, stream_), "cudaEventRecord");
    cuda_check(cudaEventSynchronize(e1_), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, e0_, e1_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
};

}  // namespace

std::unique_ptr<Timer> make_device_timer(void* stream) {
  return std::make_unique<EventTimer>(stream);
}

}  // namespace nufftmp::bench
