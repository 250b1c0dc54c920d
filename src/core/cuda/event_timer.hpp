// Timing of work enqueued on a stream with CUDA events (what autotune compares candidates by).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace nufftmp::detail {

// An RAII CUDA event (timing enabled).
class CudaEvent {
 public:
  CudaEvent();
  ~CudaEvent();
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t stream);
  // Milliseconds from `start` to this event; waits for this event to complete.
  float elapsed_ms_since(const CudaEvent& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

// Runs `work` (which enqueues on `stream`) `warmup` times untimed, then `reps` times between two
// events each, and returns the median of the timed runs in milliseconds. Synchronises the stream.
double median_ms_on_stream(cudaStream_t stream, int warmup, int reps,
                           const std::function<void()>& work);

}  // namespace nufftmp::detail
