// What the CUDA engine's tests share: a CUDA status check and the options of a CUDA plan.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "nufftmp/options.hpp"

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

namespace nufftmp::test {

inline Options cuda_opts(Method m = Method::Auto) {
  Options o;
  o.backend = Backend::Cuda;
  o.method = m;
  return o;
}

}  // namespace nufftmp::test
