// The 2D fine-grid FFT pruned to the modes' columns (cuda/fine_grid_fft.hpp), forced on a small
// grid (NUFFTMP_CUDA_FFT=pruned), against the direct sum: type 1 and type 2, float and double,
// on one plan with points in a narrow band of rows (near row 0, where the kernels wrap to the
// last rows; at the last rows, whose band is the short one; in the middle), spread over every
// row, then in a band again - so that a type 2 execute that transforms only the bands of its
// points (and pads only their rows whole) follows one that transformed every row, and back.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/reference_check.hpp"
#include "common/test_data.hpp"
#include "cuda_test_util.hpp"
#include "scoped_env.hpp"

namespace nufftmp::test {
namespace {

// M points with x uniform in [-pi, pi) and y uniform in [y0, y1) (y of every row: y0 = -pi,
// y1 = pi).
template <typename T>
Points<T> band_points(std::int64_t M, double y0, double y1, std::mt19937_64& rng) {
  Points<T> p;
  p.dim = 2;
  p.M = M;
  std::uniform_real_distribution<double> ux(-kPi, kPi), uy(y0, y1);
  for (int d = 0; d < 2; ++d) p.xyz[d].resize(static_cast<size_t>(M));
  for (std::int64_t j = 0; j < M; ++j) {
    p.xyz[0][j] = static_cast<T>(ux(rng));
    p.xyz[1][j] = static_cast<T>(uy(rng));
  }
  return p;
}

template <typename T>
void check_bands(int type) {
  ScopedEnv pruned("NUFFTMP_CUDA_FFT", "pruned");
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-10;
  // 40 x 80 modes: a 80 x 160 fine grid at sigma 2, bands of 3 rows and a last one of 1.
  Plan<T> plan(type, {40, 80}, 1, 1, tol, cuda_opts());
  auto rng = make_rng(salt_of("pruned_fft_" + std::to_string(type) + std::to_string(sizeof(T))));
  struct Band {
    const char* what;
    double y0, y1;
  };
  const Band bands[] = {{"rows near 0", 0.0, 0.03},      {"the last rows", kPi - 0.03, kPi - 1e-6},
                        {"middle rows", -2.0, -1.95},    {"every row", -kPi, kPi},
                        {"rows near 0 again", 0.0, 0.03}, {"two bands", -1.0, -0.96}};
  for (const Band& b : bands) {
    const Points<T> pts = band_points<T>(3000, b.y0, b.y1, rng);
    const CheckResult<T> r = check_transform(plan, 0, pts, rng);
    EXPECT_LE(r.rel_err, 10 * tol) << "type " << type << ", " << b.what;
  }
}

TEST(CudaPrunedFft, Type2FloatBandsOfRows) { check_bands<float>(2); }
TEST(CudaPrunedFft, Type2DoubleBandsOfRows) { check_bands<double>(2); }
TEST(CudaPrunedFft, Type1Float) { check_bands<float>(1); }
TEST(CudaPrunedFft, Type1Double) { check_bands<double>(1); }

}  // namespace
}  // namespace nufftmp::test
