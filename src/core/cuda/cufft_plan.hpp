// RAII cuFFT plan: a batched in-place complex-to-complex transform over the fine grid, made
// once per nufftmp plan and bound to its stream.
#pragma once

#include <cufft.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace nufftmp::detail {

template <typename T>
class CufftPlan {
 public:
  CufftPlan() = default;
  // dim: 1..3, nf: fine grid (x fastest), batch >= 1.
  CufftPlan(int dim, const std::array<std::int64_t, 3>& nf, int batch, int device,
            cudaStream_t stream);
  ~CufftPlan();
  CufftPlan(CufftPlan&& o) noexcept;
  CufftPlan& operator=(CufftPlan&& o) noexcept;
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  // In place on `data` (batch fine grids back to back). isign = +1 -> exponent +i.
  void execute(void* data, int isign) const;
  bool valid() const noexcept { return valid_; }
  std::size_t work_bytes() const noexcept { return work_bytes_; }

 private:
  void release() noexcept;
  cufftHandle handle_ = 0;
  bool valid_ = false;
  int device_ = 0;
  std::size_t work_bytes_ = 0;
};

}  // namespace nufftmp::detail
