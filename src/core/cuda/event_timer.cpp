#include "cuda/event_timer.hpp"

#include <algorithm>
#include <vector>

#include "cuda/cuda_check.hpp"

namespace nufftmp::detail {

namespace {

class Event {
 public:
  Event() { NUFFTMP_CUDA_TRY(cudaEventCreate(&e_)); }
  ~Event() { (void)cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace

double median_ms_on_stream(cudaStream_t stream, int warmup, int reps,
                           const std::function<void()>& work) {
  for (int i = 0; i < warmup; ++i) work();
  Event start, stop;
  std::vector<float> ms;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    NUFFTMP_CUDA_TRY(cudaEventRecord(start.get(), stream));
    work();
    NUFFTMP_CUDA_TRY(cudaEventRecord(stop.get(), stream));
    NUFFTMP_CUDA_TRY(cudaEventSynchronize(stop.get()));
    float t = 0;
    NUFFTMP_CUDA_TRY(cudaEventElapsedTime(&t, start.get(), stop.get()));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace nufftmp::detail
