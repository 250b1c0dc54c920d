// A made-up device description for the host-only tests of the engine's choices (heuristics,
// autotune candidates): the H200's shared memory, SM count and L2.
#pragma once

#include "cuda/heuristics.hpp"

namespace nufftmp::detail {

inline DeviceProps h200_like() {
  DeviceProps p;
  p.name = "NVIDIA H200";
  p.sm_count = 132;
  p.smem_optin = 232448;
  p.smem_per_sm = 233472;
  p.l2_bytes = 60u << 20;
  p.cc_major = 9;
  return p;
}

}  // namespace nufftmp::detail
