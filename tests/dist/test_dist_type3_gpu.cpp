// DistPlan type 3 on GPUs (device machine: 2 ranks on 2 GPUs; 3 and 4 ranks share them): the
// cases of the CPU test with device arrays (the sources and strengths gathered on device
// buffers) and with the host API, through NCCL (when built) and through MPI.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>

#include "dist/dist_type3_check.hpp"

using namespace nufftmp;
using namespace nufftmp::dist;
using namespace nufftmp::test;

namespace {

// A device copy of a host vector (empty: null), freed with the object.
template <typename V>
struct DeviceCopy {
  V* p = nullptr;
  explicit DeviceCopy(const std::vector<V>& h) {
    if (h.empty()) return;
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), h.size() * sizeof(V)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(V), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceCopy() {
    if (p) cudaFree(p);
  }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;
};

template <typename T>
void place_device(DistPlan<T>& plan, const Points<T>& src, const Points<T>& tgt,
                  std::vector<std::complex<T>>& c, std::vector<std::complex<T>>& f) {
  DeviceCopy<T> x(src.xyz[0]), y(src.xyz[1]), z(src.xyz[2]);
  DeviceCopy<T> s(tgt.xyz[0]), t(tgt.xyz[1]), u(tgt.xyz[2]);
  DeviceCopy<std::complex<T>> dc(c), df(f);
  plan.set_points(src.M, x.p, y.p, z.p, tgt.M, s.p, t.p, u.p);
  plan.execute(dc.p, df.p);
  if (!f.empty())
    EXPECT_EQ(cudaMemcpy(f.data(), df.p, f.size() * sizeof(std::complex<T>),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
}

// One context per communicator backend (NCCL set-up is slow), every case on it.
TEST(DistType3Gpu, MatchesSingleRankAndDirectSum) {
  for (CommBackend comm : {CommBackend::Auto, CommBackend::Mpi}) {
    auto ctx = make_gpu_context(comm);
    if (!ctx) continue;
    for (const DistType3Case& k : dist_type3_cases()) {
      SCOPED_TRACE(std::string(comm_backend_name(ctx->comm_backend())) + " " +
                   dist_type3_name(k));
      check_dist_type3<double>(*ctx, k, place_device<double>);
      check_dist_type3<float>(*ctx, k, place_device<float>);
    }
  }
}

}  // namespace
