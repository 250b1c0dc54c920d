// CUDA-event timer on the plan's stream (core's CudaEvent). Host code only.
#include "cuda/event_timer.hpp"
#include "timer.hpp"

namespace nufftmp::bench {

namespace {

class EventTimer final : public Timer {
 public:
  explicit EventTimer(void* stream) : stream_(static_cast<cudaStream_t>(stream)) {}
  void start() override { start_.record(stream_); }
  double stop_ms() override {
    stop_.record(stream_);
    return stop_.elapsed_ms_since(start_);
  }

 private:
  cudaStream_t stream_;
  detail::CudaEvent start_, stop_;
};

}  // namespace

std::unique_ptr<Timer> make_device_timer(void* stream) {
  return std::make_unique<EventTimer>(stream);
}

}  // namespace nufftmp::bench
