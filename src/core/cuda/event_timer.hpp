// Timing of work enqueued on a stream with CUDA events (what autotune compares candidates by).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace nufftmp::detail {

// Runs `work` (which enqueues on `stream`) `warmup` times untimed, then `reps` times between two
// events each, and returns the median of the timed runs in milliseconds. Synchronises the stream.
double median_ms_on_stream(cudaStream_t stream, int warmup, int reps,
                           const std::function<void()>& work);

}  // namespace nufftmp::detail
