// Type 3 array operations of a CUDA plan: device buffers and kernels ordered on the plan's
// stream, on the plan's device (the caller's device restored on return).
#include <cuda_runtime_api.h>

#include <array>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "engine.hpp"
#include "type3/type3_kernels.hpp"
#include "type3/type3_ops.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kStagingSlots = 8;

template <typename T>
class Type3OpsCuda final : public Type3Ops<T> {
 public:
  explicit Type3OpsCuda(const PlanConfig& cfg)
      : device_(resolve_device(cfg.opts.gpu_device)),
        stream_(static_cast<cudaStream_t>(cfg.opts.cuda_stream)) {}

  MemorySpace memory_space() const override { return MemorySpace::Device; }
  int device() const override { return device_; }

  ValueRange range(const T* a, std::int64_t n) override {
    return device_value_range<T>(a, n, device_, stream_);
  }

  void prepare(const Type3Geometry& g, int isign, const KernelFtQuadrature& q, std::int64_t M,
               const T* const* x, std::int64_t N, const T* const* s, int nvec) override {
    DeviceGuard guard(device_);
    M_ = M;
    N_ = N;
    Type3FactorView v;
    v.nq = static_cast<int>(q.node.size());
    if (v.nq > Type3FactorView::kMaxNodes)
      throw Error(ErrorCode::Internal, "type 3: a phihat rule of " + std::to_string(v.nq) +
                                           " nodes exceeds the device table");
    for (int i = 0; i < v.nq; ++i) {
      v.node[i] = q.node[i];
      v.weight[i] = q.weight[i];
    }
    v.dim = g.dim;
    v.isign = isign;
    Coords3<T> xs{{nullptr, nullptr, nullptr}}, ss{{nullptr, nullptr, nullptr}};
    for (int d = 0; d < g.dim; ++d) {
      const Type3Axis& a = g.axis[d];
      v.C[d] = a.C;
      v.D[d] = a.D;
      v.target_scale[d] = a.target_scale();
      src_[d].reserve(M, device_, stream_, "the rescaled type 3 sources");
      tgt_[d].reserve(N, device_, stream_, "the rescaled type 3 targets");
      rescale_device<T>(x[d], M, a.C, a.source_scale(), src_[d].get(), stream_);
      rescale_device<T>(s[d], N, a.D, a.target_scale(), tgt_[d].get(), stream_);
      xs.p[d] = x[d];
      ss.p[d] = s[d];
    }
    has_pre_ = g.prephase;
    if (has_pre_) {
      pre_.reserve(M, device_, stream_, "the type 3 pre-phase factors");
      cbuf_.reserve(static_cast<std::size_t>(M) * nvec, device_, stream_,
                    "the pre-phased type 3 strengths");
      prephase_factors_device<T>(v, xs, M, pre_.get(), stream_);
    }
    post_.reserve(N, device_, stream_, "the type 3 phase and deconvolution factors");
    post_factors_device<T>(v, ss, N, post_.get(), stream_);
  }

  const T* source(int d) const override { return src_[d].get(); }
  const T* target(int d) const override { return tgt_[d].get(); }

  const std::complex<T>* prephase(const std::complex<T>* c, int nvec) override {
    if (!has_pre_) return c;
    DeviceGuard guard(device_);
    multiply_by_factors_device<T>(c, pre_.get(), cbuf_.get(), M_, nvec, stream_);
    return cbuf_.get();
  }

  void postphase(std::complex<T>* f, int nvec) override {
    DeviceGuard guard(device_);
    multiply_by_factors_device<T>(f, post_.get(), f, N_, nvec, stream_);
  }

  std::complex<T>* grid(std::size_t cells) override {
    grid_.reserve(cells, device_, stream_, "the type 3 fine grid");
    return grid_.get();
  }

  void zero(std::complex<T>* f, std::size_t count) override {
    DeviceGuard guard(device_);
    if (count > 0)
      NUFFTMP_CUDA_TRY(cudaMemsetAsync(f, 0, count * sizeof(std::complex<T>), stream_));
  }

  const void* stage_in(const void* host, std::size_t bytes, int slot) override {
    if (bytes == 0) return nullptr;
    DeviceGuard guard(device_);
    DeviceBuffer<unsigned char>& b = staging_.at(slot);
    b.reserve(bytes, device_, stream_, "a device copy of host data");
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(b.get(), host, bytes, cudaMemcpyHostToDevice, stream_));
    return b.get();
  }

  void* stage_out(void*, std::size_t bytes, int slot) override {
    if (bytes == 0) return nullptr;
    DeviceBuffer<unsigned char>& b = staging_.at(slot);
    b.reserve(bytes, device_, stream_, "a device buffer for host results");
    return b.get();
  }

  void copy_out(void* host, const void* plan, std::size_t bytes) override {
    DeviceGuard guard(device_);
    if (bytes > 0)
      NUFFTMP_CUDA_TRY(cudaMemcpyAsync(host, plan, bytes, cudaMemcpyDeviceToHost, stream_));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  // Stream-ordered frees: work already queued on the stream still sees the copies.
  void release_staging() override {
    for (auto& b : staging_) b.release();
  }

  void synchronize() override {
    DeviceGuard guard(device_);
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_));
  }

  std::size_t memory_bytes() const override {
    std::size_t b = pre_.bytes() + post_.bytes() + cbuf_.bytes() + grid_.bytes();
    for (int d = 0; d < 3; ++d) b += src_[d].bytes() + tgt_[d].bytes();
    return b;
  }

 private:
  int device_;
  cudaStream_t stream_;
  std::int64_t M_ = 0, N_ = 0;
  bool has_pre_ = false;
  std::array<DeviceBuffer<T>, 3> src_, tgt_;
  DeviceBuffer<std::complex<T>> pre_, post_, cbuf_, grid_;
  std::array<DeviceBuffer<unsigned char>, kStagingSlots> staging_;
};

}  // namespace

template <typename T>
std::unique_ptr<Type3Ops<T>> make_type3_ops_cuda(const PlanConfig& cfg) {
  require_cuda_device();
  return std::make_unique<Type3OpsCuda<T>>(cfg);
}

template std::unique_ptr<Type3Ops<float>> make_type3_ops_cuda<float>(const PlanConfig&);
template std::unique_ptr<Type3Ops<double>> make_type3_ops_cuda<double>(const PlanConfig&);

}  // namespace nufftmp::detail
