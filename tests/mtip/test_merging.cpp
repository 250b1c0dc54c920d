// Merging with known orientations: the Toeplitz normal operator against an explicit NUFFT
// pair, and recovery of the simulated autocorrelation.
#include <gtest/gtest.h>

#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"
#include "sim_fixture.hpp"

using namespace nufftmp::mtip;

TEST(MtipMerging, ToeplitzEqualsNufftPair) {
  const auto s = mtip_test::simulate(12, 20, 10);
  const std::int64_t M = s.M, n = s.n_images * s.npix, nm = M * M * M;
  std::vector<double> x(n), y(n), z(n), w(n);
  slice_points(s.positions, s.orient.data(), s.n_images, s.scale, x.data(), y.data(), z.data());
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(0.2, 1.0);
  for (auto& v : w) v = u(rng);
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  MergeOptions mo;
  mo.nufft_tol = 1e-11;
  Merger<double> merger(MPI_COMM_SELF, M, mo, opts);
  merger.set_points(n, x.data(), y.data(), z.data(), w.data());
  std::vector<std::complex<double>> f(nm), out;
  std::normal_distribution<double> g;
  for (auto& v : f) v = {g(rng), g(rng)};
  merger.apply_normal(f, out);
  // Direct: (A^H D A + B^H D B) f / 2, B = slicing at the Friedel mates -x.
  std::vector<std::complex<double>> expect(nm, 0.0);
  for (double sgn : {1.0, -1.0}) {
    std::vector<double> xs(n), ys(n), zs(n);
    for (std::int64_t j = 0; j < n; ++j) xs[j] = sgn * x[j], ys[j] = sgn * y[j], zs[j] = sgn * z[j];
    nufftmp::Plan<double> t2(2, {M, M, M}, +1, 1, 1e-12, opts), t1(1, {M, M, M}, -1, 1, 1e-12, opts);
    t2.set_points_host(n, xs.data(), ys.data(), zs.data());
    t1.set_points_host(n, xs.data(), ys.data(), zs.data());
    std::vector<std::complex<double>> c(n), h(nm);
    t2.execute_host(c.data(), f.data());
    for (std::int64_t j = 0; j < n; ++j) c[j] *= w[j];
    t1.execute_host(c.data(), h.data());
    for (std::int64_t i = 0; i < nm; ++i) expect[i] += 0.5 * h[i];
  }
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < nm; ++i) num += std::norm(out[i] - expect[i]), den += std::norm(expect[i]);
  EXPECT_LT(std::sqrt(num / den), 1e-8);
  double wsum = 0;
  for (double v : w) wsum += v;
  EXPECT_NEAR(merger.weight_sum(), wsum, 1e-9 * wsum);
}

template <typename T>
double merge_correlation(const mtip_test::SimData& s, MergeReport* rep) {
  const std::int64_t n = s.n_images * s.npix;
  std::vector<T> x(n), y(n), z(n);
  slice_points(s.positions, s.orient.data(), s.n_images, s.scale, x.data(), y.data(), z.data());
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  MergeOptions mo;
  mo.lambda = 1e-4;
  Merger<T> merger(MPI_COMM_SELF, s.M, mo, opts);
  merger.set_points(n, x.data(), y.data(), z.data(), nullptr);
  std::vector<T> data(s.images.begin(), s.images.end());
  std::vector<double> ac;
  *rep = merger.solve(data.data(), ac);
  return correlation(ac, s.ac);
}

TEST(MtipMerging, RecoversIntensityWithKnownOrientations) {
  const auto s = mtip_test::simulate(25, 150, 24, /*fluence=*/1000);
  MergeReport rep;
  const double cf = merge_correlation<float>(s, &rep);
  std::printf("float: correlation %.5f, CG %d it, residual %.2e\n", cf, rep.iterations, rep.residual);
  EXPECT_GE(cf, 0.95);
  const double cd = merge_correlation<double>(s, &rep);
  std::printf("double: correlation %.5f, CG %d it, residual %.2e\n", cd, rep.iterations, rep.residual);
  EXPECT_GE(cd, 0.95);
  // The test can fail: images at the wrong orientations do not recover the intensity.
  auto wrong = s;
  std::mt19937_64 rng(77);
  for (auto& q : wrong.orient) q = random_quaternion(rng);
  EXPECT_LT(merge_correlation<double>(wrong, &rep), 0.95);
}
