// Slicing equals direct evaluation of the model's Fourier series at the slice points.
#include <gtest/gtest.h>

#include "nufftmp/mtip.hpp"
#include "nufftmp/reference.hpp"

using namespace nufftmp::mtip;

template <typename T>
class MtipSlicing : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MtipSlicing, Precisions);

TYPED_TEST(MtipSlicing, EqualsDirectFourierSeries) {
  using T = TypeParam;
  for (std::int64_t M : {9, 10}) {
    Detector det;
    det.nx = det.ny = 8;
    det.pixel_size = 2e-3;
    det.distance = 0.015;
    const auto pos = pixel_positions_reciprocal(det);
    const double scale = reciprocal_scale(pos);
    std::mt19937_64 rng(M);
    const std::int64_t n_orient = 6, npix = 64, n = n_orient * npix;
    std::vector<Quaternion> q(n_orient);
    for (auto& qi : q) qi = random_quaternion(rng);
    std::vector<T> x(n), y(n), z(n);
    slice_points(pos, q.data(), n_orient, scale, x.data(), y.data(), z.data());
    std::normal_distribution<double> g;
    std::vector<std::complex<T>> model(M * M * M);
    for (auto& v : model) v = {T(g(rng)), T(g(rng))};
    nufftmp::Options opts;
    opts.backend = nufftmp::Backend::Cpu;
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-10;
    Slicer<T> slicer(M, tol, opts);
    slicer.set_points(n, x.data(), y.data(), z.data());
    std::vector<std::complex<T>> vals(n);
    slicer.slice(model.data(), vals.data());
    std::vector<std::int64_t> idx(n);
    for (std::int64_t j = 0; j < n; ++j) idx[j] = j;
    const std::int64_t N[3] = {M, M, M};
    const auto exact = nufftmp::reference::type2<T>(3, x.data(), y.data(), z.data(), model.data(),
                                                    +1, N, 0, idx);
    EXPECT_LT(nufftmp::reference::rel_l2_error<T>(exact, vals.data(), idx), 10 * tol) << "M=" << M;
    // The real-model path agrees with the complex one.
    std::vector<double> real_model(M * M * M);
    for (std::size_t i = 0; i < real_model.size(); ++i) real_model[i] = model[i].real();
    std::vector<T> rv;
    slicer.slice_real(real_model, rv);
    for (auto& v : model) v = {v.real(), 0};
    slicer.slice(model.data(), vals.data());
    for (std::int64_t j = 0; j < n; ++j) EXPECT_EQ(rv[j], vals[j].real());
  }
}

TEST(MtipSlicingErrors, WrongModelSize) {
  Slicer<double> s(8, 1e-8);
  std::vector<double> model(10);
  std::vector<double> out;
  double x = 0, y = 0, z = 0;
  s.set_points(1, &x, &y, &z);
  EXPECT_THROW(s.slice_real(model, out), nufftmp::Error);
}
