#include "cuda/cufft_plan.hpp"

#include <string>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"

namespace nufftmp::detail {

namespace {
template <typename T> constexpr cufftType kC2C = CUFFT_C2C;
template <> constexpr cufftType kC2C<double> = CUFFT_Z2Z;

// cuFFT wants the slowest dimension first; our arrays have x fastest.
CufftLayout whole_grid_layout(int dim, const std::array<std::int64_t, 3>& nf, int batch) {
  CufftLayout l;
  l.rank = dim;
  l.dist = 1;
  for (int d = 0; d < dim; ++d) {
    l.n[d] = nf[dim - 1 - d];
    l.dist *= nf[d];
  }
  l.batch = batch;
  return l;
}
}  // namespace

template <typename T>
CufftPlan<T>::CufftPlan(int dim, const std::array<std::int64_t, 3>& nf, int batch, int device,
                        cudaStream_t stream, CufftWork work_mode)
    : CufftPlan(whole_grid_layout(dim, nf, batch), device, stream, work_mode) {}

template <typename T>
CufftPlan<T>::CufftPlan(const CufftLayout& l, int device, cudaStream_t stream,
                        CufftWork work_mode)
    : device_(device), owns_work_(work_mode == CufftWork::Own) {
  DeviceGuard guard(device);
  // Only plans without work memory of their own wait in the pool.
  if (!owns_work_) pool_key_ = cufft_pool_key(device, kC2C<T>, l);
  if (pool_key_) {
    if (const auto idle = take_cufft_handle(*pool_key_)) {
      handle_ = idle->handle;
      work_bytes_ = idle->work_bytes;
      valid_ = true;
      try {
        NUFFTMP_CUFFT_TRY(cufftSetStream(handle_, stream));
      } catch (...) {
        pool_key_.reset();  // destroyed, not kept
        release();
        throw;
      }
      return;
    }
  }
  long long n[3] = {l.n[0], l.n[1], l.n[2]};
  long long embed[3] = {l.n[0], l.n[1], l.n[2]};
  NUFFTMP_CUFFT_TRY(cufftCreate(&handle_));
  valid_ = true;
  try {
    NUFFTMP_CUFFT_TRY(cufftSetStream(handle_, stream));
    if (!owns_work_) NUFFTMP_CUFFT_TRY(cufftSetAutoAllocation(handle_, 0));
    std::size_t work = 0;
    // The 64-bit interface: fine grids past 2^31 cells are legal. A contiguous layout passes
    // no embedding (cuFFT's basic layout: stride 1, distance the transform's size).
    const bool basic = l.stride == 1 && l.dist == l.n[0] * (l.rank > 1 ? l.n[1] : 1) *
                                                      (l.rank > 2 ? l.n[2] : 1);
    NUFFTMP_CUFFT_TRY(cufftMakePlanMany64(handle_, l.rank, n, basic ? nullptr : embed, l.stride,
                                          l.dist, basic ? nullptr : embed, l.stride, l.dist,
                                          kC2C<T>, l.batch, &work));
    work_bytes_ = work;
  } catch (...) {
    pool_key_.reset();  // a handle that failed to plan is destroyed, not kept
    release();
    throw;
  }
}

template <typename T>
CufftPlan<T>::~CufftPlan() {
  release();
}

template <typename T>
CufftPlan<T>::CufftPlan(CufftPlan&& o) noexcept
    : handle_(o.handle_),
      valid_(o.valid_),
      device_(o.device_),
      work_bytes_(o.work_bytes_),
      owns_work_(o.owns_work_),
      pool_key_(o.pool_key_) {
  o.valid_ = false;
}

template <typename T>
CufftPlan<T>& CufftPlan<T>::operator=(CufftPlan&& o) noexcept {
  if (this != &o) {
    release();
    handle_ = o.handle_;
    valid_ = o.valid_;
    device_ = o.device_;
    work_bytes_ = o.work_bytes_;
    owns_work_ = o.owns_work_;
    pool_key_ = o.pool_key_;
    o.valid_ = false;
  }
  return *this;
}

template <typename T>
void CufftPlan<T>::release() noexcept {
  if (!valid_) return;
  if (pool_key_) {  // for the next plan of this layout (the pool destroys what it evicts)
    give_cufft_handle(*pool_key_, PooledCufft{handle_, work_bytes_});
    valid_ = false;
    return;
  }
  int prev = 0;
  cudaGetDevice(&prev);
  if (prev != device_) cudaSetDevice(device_);
  cufftDestroy(handle_);
  if (prev != device_) cudaSetDevice(prev);
  valid_ = false;
}

template <typename T>
void CufftPlan<T>::set_work_area(void* area) {
  DeviceGuard guard(device_);
  NUFFTMP_CUFFT_TRY(cufftSetWorkArea(handle_, area));
}

template <typename T>
void CufftPlan<T>::execute(void* data, int isign) const {
  execute_at(data, 0, isign);
}

template <typename T>
void CufftPlan<T>::execute_at(void* data, std::int64_t offset, int isign) const {
  const int dir = isign > 0 ? CUFFT_INVERSE : CUFFT_FORWARD;
  if constexpr (sizeof(T) == 4) {
    auto* p = static_cast<cufftComplex*>(data) + offset;
    NUFFTMP_CUFFT_TRY(cufftExecC2C(handle_, p, p, dir));
  } else {
    auto* p = static_cast<cufftDoubleComplex*>(data) + offset;
    NUFFTMP_CUFFT_TRY(cufftExecZ2Z(handle_, p, p, dir));
  }
}

template class CufftPlan<float>;
template class CufftPlan<double>;

}  // namespace nufftmp::detail
