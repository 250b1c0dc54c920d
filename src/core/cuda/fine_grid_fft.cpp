#include "cuda/fine_grid_fft.hpp"

#include <algorithm>

namespace nufftmp::detail {

namespace {
// Bands transformed one launch each; more touched bands take the pass over every row (on the
// H200 one band of 64 rows of 4096 floats takes ~7 us, the 4096 rows 74 us).
constexpr int kMaxBandLaunches = 8;
}  // namespace

template <typename T>
FineGridFft<T>::FineGridFft(int dim, const std::array<std::int64_t, 3>& nf,
                            const std::array<std::int64_t, 3>& N, int nvec, int type,
                            FftPruning pruning, int device, cudaStream_t stream,
                            CufftWork work)
    : pruning_(fft_pruning_applies(dim, nf, N) ? pruning : FftPruning::Whole),
      type_(type),
      nvec_(nvec),
      cells_(nf[0] * nf[1] * nf[2]) {
  if (pruning_ == FftPruning::Whole) {
    whole_ = CufftPlan<T>(dim, nf, nvec, device, stream, work);
    return;
  }
  const std::int64_t run = pruned_column_run(N[0]);
  second_run_ = nf[0] - run;
  CufftLayout a;  // along y, `run` adjacent x-columns of one grid
  a.rank = 1;
  a.n[0] = nf[1];
  a.stride = nf[0];
  a.dist = 1;
  a.batch = run;
  cols_ = CufftPlan<T>(a, device, stream, work);
  CufftLayout b;  // along x, every row of every grid
  b.rank = 1;
  b.n[0] = nf[0];
  b.stride = 1;
  b.dist = nf[0];
  b.batch = nf[1] * nvec;
  rows_ = CufftPlan<T>(b, device, stream, work);
  nf0_ = nf[0];
  if (type != 2) return;
  band_rows_ = row_band_rows(nf[1]);
  bands_ = row_band_count(nf[1]);
  all_bands_ = all_row_bands(nf[1]);
  b.batch = band_rows_;
  band_ = CufftPlan<T>(b, device, stream, work);
  const std::int64_t tail = nf[1] - (bands_ - 1) * band_rows_;
  if (tail != band_rows_) {
    b.batch = tail;
    band_tail_ = CufftPlan<T>(b, device, stream, work);
  }
}

template <typename T>
std::size_t FineGridFft<T>::work_bytes() const noexcept {
  if (pruning_ == FftPruning::Whole) return whole_.work_bytes();
  return std::max({cols_.work_bytes(), rows_.work_bytes(),
                   band_.valid() ? band_.work_bytes() : 0,
                   band_tail_.valid() ? band_tail_.work_bytes() : 0});
}

template <typename T>
void FineGridFft<T>::set_work_area(void* area) {
  if (pruning_ == FftPruning::Whole) {
    whole_.set_work_area(area);
    return;
  }
  cols_.set_work_area(area);
  rows_.set_work_area(area);
  if (band_.valid()) band_.set_work_area(area);
  if (band_tail_.valid()) band_tail_.set_work_area(area);
}

template <typename T>
std::uint64_t FineGridFft<T>::bands_transformed(std::uint64_t bands) const noexcept {
  if (band_rows_ == 0) return ~std::uint64_t(0);
  bands &= all_bands_;
  // A launch per band: past a few of them the one launch over every row is cheaper.
  if (__builtin_popcountll(bands) > kMaxBandLaunches) return all_bands_;
  return bands;
}

template <typename T>
void FineGridFft<T>::columns(void* data, int isign) const {
  for (int v = 0; v < nvec_; ++v) {
    cols_.execute_at(data, v * cells_, isign);
    cols_.execute_at(data, v * cells_ + second_run_, isign);
  }
}

template <typename T>
void FineGridFft<T>::execute(void* data, int isign, std::uint64_t bands) const {
  if (pruning_ == FftPruning::Whole) {
    whole_.execute(data, isign);
  } else if (type_ == 2) {
    columns(data, isign);
    bands = bands_transformed(bands);
    if (bands == all_bands_) {
      rows_.execute(data, isign);
      return;
    }
    for (int v = 0; v < nvec_; ++v)
      for (int k = 0; k < bands_; ++k) {
        if (!((bands >> k) & 1u)) continue;
        const CufftPlan<T>& p = k == bands_ - 1 && band_tail_.valid() ? band_tail_ : band_;
        p.execute_at(data, v * cells_ + k * band_rows_ * nf0_, isign);
      }
  } else {
    rows_.execute(data, isign);
    columns(data, isign);
  }
}

template <typename T>
void FineGridFft<T>::warm_up(void* data, int isign) const {
  execute(data, isign);
  if (band_rows_ > 0)  // the band plans: the first band and the (maybe shorter) last one
    execute(data, isign, 1u | (std::uint64_t(1) << (bands_ - 1)));
}

template class FineGridFft<float>;
template class FineGridFft<double>;

}  // namespace nufftmp::detail
