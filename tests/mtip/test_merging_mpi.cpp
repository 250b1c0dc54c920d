// Merging over ranks: each rank merges its share of the images with the others (all-reduced
// contributions) and gets the same model as one rank merging every image (MPI_COMM_SELF).
#include <gtest/gtest.h>

#include "dist/partition.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

using namespace nufftmp::mtip;

namespace {
std::vector<double> merge(MPI_Comm comm, const mtip_test::SimData& s, const Share& share,
                          bool precondition) {
  const std::int64_t n = share.count * s.npix;
  std::vector<double> x(n), y(n), z(n);
  slice_points(s.positions, s.orient.data() + share.first, share.count, s.scale, x.data(),
               y.data(), z.data());
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  MergeOptions mo;
  mo.tol = 1e-10;
  mo.max_iter = 500;
  mo.nufft_tol = 1e-11;
  mo.precondition = precondition;
  Merger<double> merger(comm, s.M, mo, opts);
  merger.set_points(n, x.data(), y.data(), z.data(), nullptr);
  std::vector<double> data(s.images.begin() + share.first * s.npix,
                           s.images.begin() + (share.first + share.count) * s.npix);
  std::vector<double> ac;
  merger.solve(data.data(), ac);
  return ac;
}
}  // namespace

TEST(MtipMergingMpi, SameResultOnAnyNumberOfRanks) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // 41 images: shares of unequal size on 2 and 4 ranks.
  const auto s = mtip_test::simulate(15, 41, 16, 500);
  for (bool pre : {false, true}) {
    const Share mine{nufftmp::dist::detail::share_offset(s.n_images, size, rank),
                     nufftmp::dist::detail::share_count(s.n_images, size, rank)};
    const auto dist = merge(MPI_COMM_WORLD, s, mine, pre);
    const auto single = merge(MPI_COMM_SELF, s, Share{0, s.n_images}, pre);
    double num = 0, den = 0;
    for (std::size_t i = 0; i < single.size(); ++i)
      num += (dist[i] - single[i]) * (dist[i] - single[i]), den += single[i] * single[i];
    std::printf("rank %d of %d (%s CG): relative difference to one rank %.2e\n", rank, size,
                pre ? "preconditioned" : "plain", std::sqrt(num / den));
    EXPECT_LT(std::sqrt(num / den), 1e-7);
    EXPECT_GT(correlation(single, s.ac), 0.95);
  }
}
