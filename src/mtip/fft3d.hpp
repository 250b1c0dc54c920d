// A small RAII wrapper of FFTW for the in-place complex 3D transforms of src/mtip (Toeplitz
// convolution, phasing, autocorrelations). Precision is a template parameter; the two FFTW
// libraries (fftw3, fftw3f) are reached through one traits specialisation each.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

namespace nufftmp::mtip::detail {

template <typename T>
class Fft3d {
 public:
  // Sizes nx (fastest) .. nz (slowest); the buffer is owned by the object.
  Fft3d(std::int64_t nx, std::int64_t ny, std::int64_t nz);
  ~Fft3d();
  Fft3d(const Fft3d&) = delete;
  Fft3d& operator=(const Fft3d&) = delete;

  std::complex<T>* data() { return data_; }
  std::int64_t size() const { return n_; }
  // Unnormalised: forward uses exp(-i ...), backward exp(+i ...).
  void forward();
  void backward();

 private:
  std::int64_t n_ = 0;
  std::complex<T>* data_ = nullptr;
  void* fwd_ = nullptr;
  void* bwd_ = nullptr;
};

extern template class Fft3d<float>;
extern template class Fft3d<double>;

// Centred order (index i <-> k = i - M/2) <-> FFT order (index k mod M), per axis of a cube.
inline std::int64_t centred_to_fft(std::int64_t i, std::int64_t M) {
  const std::int64_t k = i - M / 2;
  return k < 0 ? k + M : k;
}

// Periodic index of a signed k on an axis of length L.
inline std::int64_t wrap(std::int64_t k, std::int64_t L) { return ((k % L) + L) % L; }

}  // namespace nufftmp::mtip::detail
