// The inverse mode maps of common/grid.hpp (the CUDA engine's deconvolution indexes by them
// instead of tables): every fine-grid index holding a mode maps back to the output index that
// the forward maps send there, and every other index is reported as zero padding.
#include <gtest/gtest.h>

#include <vector>

#include "common/grid.hpp"

namespace nufftmp::detail {
namespace {

TEST(ModeIndex, FineIndexInvertsTheForwardMaps) {
  for (int modeord : {0, 1})
    for (std::int64_t N : {1, 2, 3, 7, 8, 64, 101})
      for (std::int64_t extra : {0, 1, 5, 64}) {
        const std::int64_t nf = N + extra + (N == 1 ? 1 : 0);
        std::vector<std::int64_t> owner(static_cast<size_t>(nf), -1);
        for (std::int64_t i = 0; i < N; ++i) {
          const std::int64_t k = mode_of_output_index(i, N, modeord);
          const std::int64_t l = fine_index_of_mode(k, nf);
          ASSERT_GE(l, 0);
          ASSERT_LT(l, nf);
          ASSERT_EQ(owner[static_cast<size_t>(l)], -1) << "two modes on one fine index";
          owner[static_cast<size_t>(l)] = i;
          EXPECT_EQ(output_index_of_mode(k, N, modeord), i) << "N " << N << " k " << k;
        }
        for (std::int64_t l = 0; l < nf; ++l) {
          const std::int64_t k = mode_of_fine_index(l, N, nf);
          const std::int64_t i = owner[static_cast<size_t>(l)];
          if (i < 0) {
            EXPECT_EQ(k, kNoMode) << "N " << N << " nf " << nf << " l " << l;
          } else {
            ASSERT_NE(k, kNoMode) << "N " << N << " nf " << nf << " l " << l;
            EXPECT_EQ(fine_index_of_mode(k, nf), l);
            EXPECT_EQ(output_index_of_mode(k, N, modeord), i);
            EXPECT_LE(k < 0 ? -k : k, N / 2) << "|k| indexes the N/2 + 1 factors";
          }
        }
      }
}

}  // namespace
}  // namespace nufftmp::detail
