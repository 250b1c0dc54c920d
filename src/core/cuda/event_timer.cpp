#include "cuda/event_timer.hpp"

#include <algorithm>
#include <vector>

#include "cuda/cuda_check.hpp"

namespace nufftmp::detail {

CudaEvent::CudaEvent() { NUFFTMP_CUDA_TRY(cudaEventCreate(&e_)); }
CudaEvent::~CudaEvent() { (void)cudaEventDestroy(e_); }
void CudaEvent::record(cudaStream_t stream) { NUFFTMP_CUDA_TRY(cudaEventRecord(e_, stream)); }
float CudaEvent::elapsed_ms_since(const CudaEvent& start) const {
  NUFFTMP_CUDA_TRY(cudaEventSynchronize(e_));
  float ms = 0;
  NUFFTMP_CUDA_TRY(cudaEventElapsedTime(&ms, start.e_, e_));
  return ms;
}

double median_ms_on_stream(cudaStream_t stream, int warmup, int reps,
                           const std::function<void()>& work) {
  for (int i = 0; i < warmup; ++i) work();
  CudaEvent start, stop;
  std::vector<float> ms;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    start.record(stream);
    work();
    stop.record(stream);
    ms.push_back(stop.elapsed_ms_since(start));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace nufftmp::detail
