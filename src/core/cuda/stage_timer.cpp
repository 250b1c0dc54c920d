#include "cuda/stage_timer.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace nufftmp::detail {

bool stage_timing_enabled(int debug) noexcept {
  if (debug >= 2) return true;
  const char* v = std::getenv("NUFFTMP_CUDA_STAGES");
  return v != nullptr && *v != '\0' && !(v[0] == '0' && v[1] == '\0');
}

StageTimer::StageTimer(bool enabled, cudaStream_t stream, const char* call, long n)
    : on_(enabled), stream_(stream), call_(call), n_(n) {
  if (on_) record("start");
}

StageTimer::~StageTimer() {
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

void StageTimer::record(const char* stage) {
  cudaEvent_t e = nullptr;
  // Diagnostics only: a failure to time must not fail the call being timed.
  if (cudaEventCreate(&e) != cudaSuccess || cudaEventRecord(e, stream_) != cudaSuccess) {
    (void)cudaGetLastError();
    if (e) cudaEventDestroy(e);
    on_ = false;
    return;
  }
  events_.push_back(e);
  host_.push_back(std::chrono::steady_clock::now());
  names_.push_back(stage);
}

void StageTimer::finish() {
  if (!on_ || events_.size() < 2) return;
  if (cudaEventSynchronize(events_.back()) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  const auto host_ms = [&](std::size_t a, std::size_t b) {
    return std::chrono::duration<double, std::milli>(host_[b] - host_[a]).count();
  };
  const auto gpu_ms = [&](std::size_t a, std::size_t b) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, events_[a], events_[b]) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1.0;
    }
    return static_cast<double>(ms);
  };
  std::string line = std::string("nufftmp stages ") + call_ + " #" + std::to_string(n_) + ":";
  char buf[96];
  for (std::size_t i = 1; i < events_.size(); ++i) {
    std::snprintf(buf, sizeof buf, " %s %.3f/%.3f,", names_[i], host_ms(i - 1, i),
                  gpu_ms(i - 1, i));
    line += buf;
  }
  const std::size_t last = events_.size() - 1;
  std::snprintf(buf, sizeof buf, " total %.3f/%.3f (ms host/gpu)\n", host_ms(0, last),
                gpu_ms(0, last));
  line += buf;
  std::fputs(line.c_str(), stderr);
  on_ = false;
}

}  // namespace nufftmp::detail
