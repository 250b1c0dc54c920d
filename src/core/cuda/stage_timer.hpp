// Where plan and set_points time goes, stage by stage: a CUDA event and a host clock reading at
// each stage boundary, printed as one line to stderr at the end. On with Options::debug >= 2 or
// NUFFTMP_CUDA_STAGES=1; off, every call returns at once (no events, no clock reads).
// The line: "nufftmp stages <call> #<n>: <stage> <host ms>/<gpu ms>, ..., total <host>/<gpu>
// (ms host/gpu)". Host time is what the calling thread spent in the stage (allocation calls,
// launches, synchronisation waits); GPU time is the stream's time between the boundaries (work,
// and idle gaps while the host was busy).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <vector>

namespace nufftmp::detail {

bool stage_timing_enabled(int debug) noexcept;

class StageTimer {
 public:
  // call: "plan" or "set_points"; n: which call of this kind on the engine.
  StageTimer(bool enabled, cudaStream_t stream, const char* call, long n);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

  // Ends the stage that began at the previous mark (or at construction).
  void mark(const char* stage) {
    if (on_) record(stage);
  }
  // Waits for the stream and prints the line (nothing when off, or when a stage failed).
  void finish();

 private:
  void record(const char* stage);
  bool on_;
  cudaStream_t stream_;
  const char* call_;
  long n_;
  std::vector<cudaEvent_t> events_;
  std::vector<std::chrono::steady_clock::time_point> host_;
  std::vector<const char*> names_;
};

}  // namespace nufftmp::detail
