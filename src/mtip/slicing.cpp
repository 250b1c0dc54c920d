// Slicing: the model's Fourier series at the slice points of this rank's orientations, one 3D
// type 2 NUFFT over all of them. The model is replicated on every rank (it comes out of an
// all-reduce), so slicing needs no communication.
#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::mtip {

template <typename T>
struct Slicer<T>::Impl {
  std::int64_t M;
  Plan<T> plan;
  std::vector<std::complex<T>> model, values;
  Impl(std::int64_t M_, double tol, const Options& opts)
      : M(M_), plan(2, {M_, M_, M_}, +1, 1, tol, with_centred(opts)) {}
  static Options with_centred(Options o) {
    o.modeord = 0;
    return o;
  }
};

template <typename T>
Slicer<T>::Slicer(std::int64_t M, double tol, const Options& opts)
    : impl_(std::make_unique<Impl>(M, tol, opts)) {}
template <typename T>
Slicer<T>::~Slicer() = default;
template <typename T>
Slicer<T>::Slicer(Slicer&&) noexcept = default;

template <typename T>
void Slicer<T>::set_points(std::int64_t n_points, const T* x, const T* y, const T* z) {
  impl_->plan.set_points_host(n_points, x, y, z);
}

template <typename T>
void Slicer<T>::slice(const std::complex<T>* model, std::complex<T>* values) {
  // A type 2 plan only reads f; the API takes it non-const because type 1 writes it.
  impl_->plan.execute_host(values, const_cast<std::complex<T>*>(model));
}

template <typename T>
void Slicer<T>::slice_real(const std::vector<double>& model, std::vector<T>& values) {
  const std::int64_t M = impl_->M;
  if (static_cast<std::int64_t>(model.size()) != M * M * M)
    throw Error(ErrorCode::InvalidArgument, "slice: model has " + std::to_string(model.size()) +
                                                " values, expected M^3 = " +
                                                std::to_string(M * M * M));
  impl_->model.assign(model.begin(), model.end());
  const std::int64_t n = impl_->plan.num_points();
  impl_->values.resize(static_cast<std::size_t>(n));
  slice(impl_->model.data(), impl_->values.data());
  values.resize(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) values[j] = impl_->values[j].real();
}

template class Slicer<float>;
template class Slicer<double>;

}  // namespace nufftmp::mtip
