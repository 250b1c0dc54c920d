// RAII cuFFT plan: a batched in-place complex-to-complex transform over the fine grid, made
// once per nufftmp plan and bound to its stream. Its work area is cuFFT's own (cudaMalloc at
// planning), or, with CufftWork::External, the caller's (set_work_area before execute): the
// CUDA engine gives it one from the library's pool, shared by its batch and tail plans. An
// External plan's handle comes from and goes back to the idle handles of its layout
// (cufft_handle_pool.hpp) instead of being made and destroyed each time.
#pragma once

#include <cufft.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "cuda/cufft_handle_pool.hpp"
#include "cuda/cufft_layout.hpp"

namespace nufftmp::detail {

enum class CufftWork { Own, External };

template <typename T>
class CufftPlan {
 public:
  CufftPlan() = default;
  // dim: 1..3, nf: fine grid (x fastest), batch >= 1.
  CufftPlan(int dim, const std::array<std::int64_t, 3>& nf, int batch, int device,
            cudaStream_t stream, CufftWork work = CufftWork::Own);
  CufftPlan(const CufftLayout& layout, int device, cudaStream_t stream,
            CufftWork work = CufftWork::Own);
  ~CufftPlan();
  CufftPlan(CufftPlan&& o) noexcept;
  CufftPlan& operator=(CufftPlan&& o) noexcept;
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;

  // In place on `data` (batch fine grids back to back). isign = +1 -> exponent +i.
  void execute(void* data, int isign) const;
  // The same on data + offset complex elements (a pruned pass on part of the grid).
  void execute_at(void* data, std::int64_t offset, int isign) const;
  bool valid() const noexcept { return valid_; }
  // Bytes of work area the plan needs (held by cuFFT for CufftWork::Own).
  std::size_t work_bytes() const noexcept { return work_bytes_; }
  bool owns_work() const noexcept { return owns_work_; }
  // CufftWork::External: `area` (>= work_bytes() on the plan's device) until the next call or
  // the plan's end; no execute may be in flight on another stream.
  void set_work_area(void* area);

 private:
  void release() noexcept;
  cufftHandle handle_ = 0;
  bool valid_ = false;
  int device_ = 0;
  std::size_t work_bytes_ = 0;
  bool owns_work_ = true;
  std::optional<CufftPoolKey> pool_key_;  // set: the handle goes back to the pool
};

}  // namespace nufftmp::detail
