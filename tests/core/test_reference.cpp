// The oracle itself, against sums written out by hand: both of its type-1 strategies (a table
// per axis for many outputs, one exponential per output for few), type 2, modeord, isign.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "common/test_data.hpp"
#include "nufftmp/reference.hpp"

namespace nufftmp::test {
namespace {

using cd = std::complex<double>;

// f[k] = sum_j c_j exp(isign i k.x_j) for one flat mode index, by the definition.
cd naive_type1(int dim, const Points<double>& p, const std::vector<cd>& c, int isign,
               const std::int64_t N[3], int modeord, std::int64_t flat) {
  std::int64_t k[3] = {0, 0, 0};
  for (int d = 0; d < dim; ++d) {
    k[d] = reference::mode_of_index(flat % N[d], N[d], modeord);
    flat /= N[d];
  }
  cd s = 0;
  for (std::int64_t j = 0; j < p.M; ++j) {
    double ph = 0;
    for (int d = 0; d < dim; ++d) ph += k[d] * p.xyz[d][j];
    s += c[j] * std::exp(cd(0, isign * ph));
  }
  return s;
}

TEST(Reference, ModeOfIndex) {
  EXPECT_EQ(reference::mode_of_index(0, 5, 0), -2);
  EXPECT_EQ(reference::mode_of_index(4, 5, 0), 2);
  EXPECT_EQ(reference::mode_of_index(0, 4, 0), -2);
  EXPECT_EQ(reference::mode_of_index(3, 4, 0), 1);
  EXPECT_EQ(reference::mode_of_index(0, 4, 1), 0);
  EXPECT_EQ(reference::mode_of_index(2, 4, 1), -2);
  EXPECT_EQ(reference::mode_of_index(3, 4, 1), -1);
  EXPECT_EQ(reference::mode_of_index(2, 5, 1), 2);
  EXPECT_EQ(reference::mode_of_index(3, 5, 1), -2);
}

TEST(Reference, Type1BothStrategiesMatchTheDefinition) {
  for (int dim : {1, 2, 3})
    for (int modeord : {0, 1})
      for (int isign : {1, -1}) {
        auto rng = make_rng(salt_of("ref1" + std::to_string(dim * 100 + modeord * 10 + isign)));
        const std::int64_t N[3] = {7, dim > 1 ? 6 : 1, dim > 2 ? 5 : 1};
        const auto p = uniform_points<double>(dim, 37, rng, -3 * kPi, 3 * kPi);
        const auto c = random_complex<double>(37, rng);
        const std::int64_t nm = N[0] * N[1] * N[2];
        // All modes (table per axis) and three of them (one exponential per output).
        for (const auto& idx : {sample_indices(nm, nm, rng), std::vector<std::int64_t>{0, 3, nm - 1}}) {
          const auto out = reference::type1<double>(dim, 37, p.x(), p.y(), p.z(), c.data(), isign,
                                                    N, modeord, idx);
          for (size_t i = 0; i < idx.size(); ++i)
            EXPECT_NEAR(std::abs(out[i] - naive_type1(dim, p, c, isign, N, modeord, idx[i])), 0,
                        1e-12);
        }
      }
}

TEST(Reference, Type2MatchesTheDefinition) {
  for (int dim : {1, 2, 3})
    for (int modeord : {0, 1}) {
      auto rng = make_rng(salt_of("ref2" + std::to_string(dim * 10 + modeord)));
      const std::int64_t N[3] = {6, dim > 1 ? 5 : 1, dim > 2 ? 4 : 1};
      const std::int64_t nm = N[0] * N[1] * N[2];
      const auto p = uniform_points<double>(dim, 20, rng);
      const auto f = random_complex<double>(nm, rng);
      const auto idx = sample_indices(20, 20, rng);
      const auto out = reference::type2<double>(dim, p.x(), p.y(), p.z(), f.data(), -1, N, modeord, idx);
      for (std::int64_t j = 0; j < 20; ++j) {
        // Type 2 is the transpose of type 1: sum over modes of f_k exp(-i k x_j).
        cd s = 0;
        for (std::int64_t m = 0; m < nm; ++m) {
          Points<double> one;
          one.dim = dim;
          one.M = 1;
          for (int d = 0; d < dim; ++d) one.xyz[d] = {p.xyz[d][j]};
          s += f[m] * naive_type1(dim, one, {cd(1, 0)}, -1, N, modeord, m);
        }
        EXPECT_NEAR(std::abs(out[j] - s), 0, 1e-12) << "dim " << dim << " j " << j;
      }
    }
}

TEST(Reference, RelativeErrorAndFloatInputs) {
  const std::vector<cd> exact = {cd(3, 4), cd(0, 0)};
  const std::vector<std::complex<float>> approx = {{3.0f, 4.0f}, {0.0f, 0.5f}};
  EXPECT_NEAR(reference::rel_l2_error<float>(exact, approx.data(), {0, 1}), 0.1, 1e-7);
  // Float coordinates and strengths are summed in double: x = 1 exactly, k = 2, c = 1.
  const float x = 1.0f;
  const std::complex<float> c(1.0f, 0.0f);
  const std::int64_t N[3] = {5, 1, 1};
  const auto out = reference::type1<float>(1, 1, &x, nullptr, nullptr, &c, 1, N, 0, {4});
  EXPECT_NEAR(std::abs(out[0] - std::exp(cd(0, 2.0))), 0, 1e-15);
}

}  // namespace
}  // namespace nufftmp::test
