// The input layouts (io.hpp) and detector corrections (corrections.hpp), on 2 ranks: a file in
// spinifel's/skopi's layout (made here) reads as the same images, positions and orientations
// as the file in nufftmp's; a file in neither layout fails naming what it holds; masks and
// corrections are read, checked and applied.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "common/expect_error.hpp"
#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"
#include "spinifel_fixture.hpp"

using namespace nufftmp::mtip;

namespace {

using nufftmp::test::error_message;
using mtip_test::rank_of;

constexpr std::int64_t kSide = 16;

mtip_test::SimData small_data() { return mtip_test::simulate(13, 9, kSide, 0, 4, 12); }

}  // namespace

TEST(MtipDataLayout, SpinifelFileReadsAsNufftmpFile) {
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_layout");
  const auto s = small_data();
  if (rank_of() == 0) {
    mtip_test::write_nufftmp(base + "_ours.h5", s, kSide);
    mtip_test::write_spinifel(base + "_spi.h5", s, kSide, {});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const DataInfo a = probe_data(MPI_COMM_WORLD, base + "_ours.h5");
  const DataInfo b = probe_data(MPI_COMM_WORLD, base + "_spi.h5");
  EXPECT_EQ(a.layout, DataLayout::Nufftmp);
  EXPECT_EQ(b.layout, DataLayout::Spinifel);
  EXPECT_EQ(b.panels, 2);
  EXPECT_EQ(b.ny, kSide / 2);
  EXPECT_EQ(a.npix(), b.npix());
  EXPECT_EQ(a.position_unit, 1.0);
  EXPECT_EQ(b.position_unit, 1e-10);  // 1/m, told by size
  EXPECT_EQ(a.file_convention, QuaternionConvention::Lattice);
  EXPECT_EQ(b.file_convention, QuaternionConvention::Particle);
  EXPECT_TRUE(b.has_volume && b.volume_complex);
  EXPECT_NE(b.summary.find("spinifel/skopi layout"), std::string::npos) << b.summary;
  const LocalImages la = read_local_images(MPI_COMM_WORLD, base + "_ours.h5", a, true);
  const LocalImages lb = read_local_images(MPI_COMM_WORLD, base + "_spi.h5", b, true);
  ASSERT_EQ(la.intensities.size(), lb.intensities.size());
  EXPECT_EQ(la.intensities, lb.intensities);
  ASSERT_EQ(la.positions.size(), lb.positions.size());
  for (std::size_t i = 0; i < la.positions.size(); ++i)
    EXPECT_NEAR(lb.positions[i], la.positions[i], 1e-12 * std::fabs(la.positions[i]) + 1e-15);
  // Both conventions come back as nufftmp's: the particle quaternions were the conjugates.
  ASSERT_EQ(la.orientations.size(), lb.orientations.size());
  for (std::size_t i = 0; i < la.orientations.size(); ++i)
    EXPECT_LT(quat_angle(la.orientations[i], lb.orientations[i]), 1e-9);
  // Read as the other convention, they are the conjugates (not the same rotations).
  const LocalImages lw = read_local_images(MPI_COMM_WORLD, base + "_spi.h5", b, true,
                                           QuaternionConvention::Lattice);
  for (std::size_t i = 0; i < lw.orientations.size(); ++i)
    EXPECT_LT(quat_angle(lw.orientations[i], quat_conjugate(la.orientations[i])), 1e-9);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"_ours.h5", "_spi.h5"}) std::remove((base + f).c_str());
}

TEST(MtipDataLayout, NeitherLayoutNamesWhatTheFileHolds) {
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_layout_bad");
  if (rank_of() == 0) {
    H5Writer w(base + "_a.h5");
    std::vector<float> I(2 * 5 * 6, 1.0f);
    w.write("images", {2, 5, 6}, I.data());
    w.commit();
    H5Writer v(base + "_b.h5");
    v.write("intensities", {2, 5, 6}, I.data());
    std::vector<double> p(5 * 6 * 2, 0.1);
    v.write("pixel_position_reciprocal", {5, 6, 2}, p.data());
    v.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string m1 = error_message([&] { probe_data(MPI_COMM_WORLD, base + "_a.h5"); });
  EXPECT_NE(m1.find("neither the nufftmp layout"), std::string::npos) << m1;
  EXPECT_NE(m1.find("images [2, 5, 6]"), std::string::npos) << m1;
  const std::string m2 = error_message([&] { probe_data(MPI_COMM_WORLD, base + "_b.h5"); });
  EXPECT_NE(m2.find("pixel_position_reciprocal has shape [5, 6, 2], expected [3, 5, 6] "
                    "(nufftmp) or [5, 6, 3] (spinifel/skopi)"),
            std::string::npos)
      << m2;
  EXPECT_THROW(parse_convention("body"), nufftmp::Error);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* f : {"_a.h5", "_b.h5"}) std::remove((base + f).c_str());
}

// A mask from the file, one from another file, a beam-stop radius and skopi's two corrections.
TEST(MtipDataLayout, MasksAndCorrections) {
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_layout_mask");
  const auto s = small_data();
  const std::int64_t npix = s.npix;
  mtip_test::SpinifelFile f;
  f.polarization.assign(npix, 0.5);
  f.solid_angle.assign(npix, 2.0);
  f.solid_angle[7] = 4.0;  // C: 1 everywhere but pixel 7 (2), before the mean-1 normalisation
  f.solid_angle[9] = 0.0;  // C = 0: masked, reported
  f.mask.assign(npix, 1.0);
  f.mask[3] = f.mask[100] = 0.0;
  if (rank_of() == 0) {
    mtip_test::write_spinifel(base + "_spi.h5", s, kSide, f);
    H5Writer w(base + "_extra.h5");
    std::vector<float> m(npix, 1.0f);
    m[5] = 0.0f;
    w.write("dead", {2, kSide / 2, kSide}, m.data());
    const std::vector<float> none(npix, 0.0f);
    w.write("none", {2, kSide / 2, kSide}, none.data());
    w.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string path = base + "_spi.h5";
  const DataInfo info = probe_data(MPI_COMM_WORLD, path);
  LocalImages li = read_local_images(MPI_COMM_WORLD, path, info, false);
  CorrectionOptions co;
  const PixelCorrections pc = read_pixel_corrections(MPI_COMM_WORLD, path, info, li.positions, co);
  EXPECT_EQ(pc.kept, npix - 3) << pc.summary;  // pixels 3, 100 (mask) and 9 (C = 0)
  EXPECT_NE(pc.summary.find("polarization x solid_angle"), std::string::npos) << pc.summary;
  EXPECT_NE(pc.summary.find("<= 0 on 1 pixels"), std::string::npos) << pc.summary;
  const auto c = kept_correction(pc);
  ASSERT_EQ(static_cast<std::int64_t>(c.size()), pc.kept);
  double mean = 0;
  for (double v : c) mean += v / static_cast<double>(c.size());
  EXPECT_NEAR(mean, 1.0, 1e-12);
  EXPECT_NEAR(pc.correction[7] / pc.correction[0], 2.0, 1e-12);
  // The masked pixels leave images and positions; the rest keep their order.
  const std::vector<float> before = li.intensities;
  const std::vector<double> pos_before = li.positions;
  remove_masked_pixels(pc, li.positions, li.intensities, li.share.count);
  ASSERT_EQ(static_cast<std::int64_t>(li.intensities.size()), li.share.count * pc.kept);
  for (std::int64_t i = 0; i < li.share.count; ++i)
    for (std::int64_t p = 0, j = 0; p < npix; ++p)
      if (pc.keep[p]) {
        EXPECT_EQ(li.intensities[i * pc.kept + j], before[i * npix + p]);
        if (i == 0) EXPECT_EQ(li.positions[2 * pc.kept + j], pos_before[2 * npix + p]);
        ++j;
      }
  // Named masks instead of the file's (one in another file), and a beam stop of |q| < 0.3 q_max.
  co.mask = {base + "_extra.h5:dead"};
  co.use_file_correction = false;
  co.q_min = 0.3;
  LocalImages l2 = read_local_images(MPI_COMM_WORLD, path, info, false);
  const PixelCorrections p2 = read_pixel_corrections(MPI_COMM_WORLD, path, info, l2.positions, co);
  std::int64_t inner = 0;
  double qmax = 0;
  for (std::int64_t p = 0; p < npix; ++p)
    qmax = std::max(qmax, std::hypot(l2.positions[p], l2.positions[npix + p], l2.positions[2 * npix + p]));
  for (std::int64_t p = 0; p < npix; ++p)
    if (p != 5 &&
        std::hypot(l2.positions[p], l2.positions[npix + p], l2.positions[2 * npix + p]) < 0.3 * qmax)
      ++inner;
  EXPECT_GT(inner, 0);
  EXPECT_EQ(p2.kept, npix - 1 - inner) << p2.summary;
  EXPECT_TRUE(p2.correction.empty());
  // A mask of the wrong shape, and a mask keeping nothing: clear errors on every rank.
  co.mask = {"pixel_position_reciprocal"};
  const std::string m1 = error_message(
      [&] { read_pixel_corrections(MPI_COMM_WORLD, path, info, l2.positions, co); });
  EXPECT_NE(m1.find("has shape [2, 8, 16, 3], expected the detector's [2, 8, 16]"),
            std::string::npos) << m1;
  co.mask = {base + "_extra.h5:none"};
  co.q_min = 0;
  const std::string m2 = error_message(
      [&] { read_pixel_corrections(MPI_COMM_WORLD, path, info, l2.positions, co); });
  EXPECT_NE(m2.find("keep no pixel"), std::string::npos) << m2;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0)
    for (const char* x : {"_spi.h5", "_extra.h5"}) std::remove((base + x).c_str());
}
