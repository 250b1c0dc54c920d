// The reconstruction on data as spinifel/skopi users have it, on 2 ranks: a spinifel-layout file
// (made here) reconstructs with no conversion and the wrong quaternion convention is caught;
// masks and corrections reach the merge; a truth of the wrong kind or size is scored or
// skipped, never fatal; the CG's cap is reported; the Poisson likelihood's costs are
// log-likelihood ratios and its soft assignment runs.
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

constexpr std::int64_t kM = 15, kSide = 16;

ReconstructOptions known_run(const std::string& in, const std::string& out) {
  ReconstructOptions ro;
  ro.input = in;
  ro.output = out;
  ro.known_orientations = true;
  ro.generations = 1;
  ro.phase.cycles = 1;
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  ro.overwrite = true;  // every run of a test writes the same files
  return ro;
}

void remove_outputs(const std::string& out) {
  for (const std::string f : {out, out + ".ckpt.h5", out.substr(0, out.size() - 3) + ".best.h5"})
    std::remove(f.c_str());
}
}  // namespace

TEST(MtipRealData, SpinifelFileAndQuaternionConvention) {
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_real_spi");
  const auto s = mtip_test::simulate(kM, 160, kSide, 2000, 6, 14);
  if (rank_of() == 0) mtip_test::write_spinifel(base + "_in.h5", s, kSide, {});
  MPI_Barrier(MPI_COMM_WORLD);
  ReconstructOptions ro = known_run(base + "_in.h5", base + "_out.h5");
  ro.M = kM;  // a complex volume (a field on skopi's mesh) does not give the lattice
  // The layout's convention (particle): reconstructs, scored against |F|^2 of the complex
  // volume (no density score), half-set FSC high.
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep.size(), 1u);
  if (rank_of() == 0)
    std::printf("spinifel file: half-set FSC %.3f, intensity %.4f, anisotropic %.4f\n",
                rep[0].fsc_mean, rep[0].intensity_correlation, rep[0].anisotropic_correlation);
  EXPECT_EQ(rep[0].correlation, -2.0);
  EXPECT_GE(rep[0].intensity_correlation, 0.99);
  EXPECT_GE(rep[0].anisotropic_correlation, 0.95);
  EXPECT_GE(rep[0].fsc_mean, 0.5);
  EXPECT_GT(rep[0].resolution_fsc05, 0.0);
  // Photon counts: the free pixels' ceiling is known, and the true orientations' model reaches
  // most of it.
  if (rank_of() == 0)
    std::printf("free correlation %.4f +- %.4f (ceiling %.4f)\n", rep[0].free_correlation,
                rep[0].free_sigma, rep[0].free_ceiling);
  EXPECT_GT(rep[0].free_ceiling, 0.5);
  EXPECT_GT(rep[0].free_correlation, 0.9 * rep[0].free_ceiling);
  if (rank_of() == 0) {
    // Positions read in 1/m and converted: the voxel is the simulation's (scale / 2 pi).
    EXPECT_NEAR(read_attribute(ro.output, "voxel_angstrom"), s.scale / (2 * 3.14159265358979323846),
                1e-9 * s.scale);
    EXPECT_EQ(read_attribute(ro.output, "best_generation"), 1.0);
    std::vector<std::int64_t> d;
    read_dataset(ro.output, "fsc_half_sets", &d);
    EXPECT_EQ(d, (std::vector<std::int64_t>{kM / 2 + 1}));
  }
  // Read as nufftmp's convention: the check stops the run on every rank, naming the fix.
  ro.quaternion = QuaternionConvention::Lattice;
  const std::string msg = error_message([&] { reconstruct(MPI_COMM_WORLD, ro); });
  EXPECT_NE(msg.find("rerun with --quaternion particle"), std::string::npos) << msg;
  // Warn-only: the run goes on.
  ro.check_convention = false;
  EXPECT_EQ(reconstruct(MPI_COMM_WORLD, ro).size(), 1u);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) {
    std::remove((base + "_in.h5").c_str());
    remove_outputs(ro.output);
  }
}

// A beam stop whose pixels read garbage and a strong per-pixel correction: with the file's
// mask and correction the merge matches the truth; without either it does measurably worse.
TEST(MtipRealData, MaskAndCorrectionReachTheMerge) {
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_real_mask");
  auto s = mtip_test::simulate(kM, 160, kSide, 0, 7, 14);
  const std::int64_t npix = s.npix;
  mtip_test::SpinifelFile f;
  f.complex_volume = false;  // the density: nufftmp's kind of truth
  f.polarization.assign(npix, 1.0);
  f.solid_angle.resize(npix);
  f.mask.assign(npix, 1.0);
  for (std::int64_t p = 0; p < npix; ++p) {
    const std::int64_t ix = p % kSide, iy = p / kSide;
    f.solid_angle[p] = 0.3 + 1.4 * ((ix * 7 + iy * 3) % 11) / 10.0;  // 0.3 .. 1.7
    const double dx = ix - 7.5, dy = iy - 7.5;
    if (dx * dx + dy * dy < 4) f.mask[p] = 0;
  }
  for (std::int64_t i = 0; i < s.n_images; ++i)
    for (std::int64_t p = 0; p < npix; ++p) {
      float& v = s.images[i * npix + p];
      v = f.mask[p] == 0 ? 1e3f * v : static_cast<float>(v * f.solid_angle[p]);
    }
  if (rank_of() == 0) mtip_test::write_spinifel(base + "_in.h5", s, kSide, f);
  MPI_Barrier(MPI_COMM_WORLD);
  ReconstructOptions ro = known_run(base + "_in.h5", base + "_out.h5");
  ro.half_sets = false;
  const double with = reconstruct(MPI_COMM_WORLD, ro)[0].anisotropic_correlation;
  ro.corrections.use_file_mask = false;
  const double no_mask = reconstruct(MPI_COMM_WORLD, ro)[0].anisotropic_correlation;
  ro.corrections.use_file_mask = true;
  ro.corrections.use_file_correction = false;
  const double no_corr = reconstruct(MPI_COMM_WORLD, ro)[0].anisotropic_correlation;
  if (rank_of() == 0)
    std::printf("anisotropic intensity correlation: mask + correction %.4f, no mask %.4f, "
                "no correction %.4f\n", with, no_mask, no_corr);
  EXPECT_GE(with, 0.99);
  EXPECT_LT(no_mask, with - 0.05);
  EXPECT_LT(no_corr, with - 0.01);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) {
    std::remove((base + "_in.h5").c_str());
    remove_outputs(ro.output);
  }
}

// Truths that do not fit the lattice: a smaller density is padded (same voxel) and scored; a
// larger one that cannot be cropped, and a volume of no cube shape, are skipped with a note;
// the CG's cap is counted and warned about.
TEST(MtipRealData, TruthOfOtherSizesAndTheCgCap) {
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_real_truth");
  const auto s = mtip_test::simulate(kM, 100, kSide, 0, 8, 14);
  // 25^3 with half its mass 11 voxels from the centre: cropping to 15^3 would cut it.
  std::vector<double> big(25 * 25 * 25, 0.0);
  big[(12 * 25 + 12) * 25 + 12] = 1;
  big[(12 * 25 + 12) * 25 + 1] = 1;
  std::vector<double> small(11 * 11 * 11);
  for (std::int64_t k = 0; k < 11; ++k)
    for (std::int64_t j = 0; j < 11; ++j)
      for (std::int64_t i = 0; i < 11; ++i)
        small[(k * 11 + j) * 11 + i] = s.density[((k + 2) * kM + j + 2) * kM + i + 2];
  if (rank_of() == 0) {
    mtip_test::write_nufftmp(base + "_small.h5", s, kSide, &small);
    mtip_test::write_nufftmp(base + "_big.h5", s, kSide, &big);
    H5Writer w(base + "_odd.h5");
    w.write("intensities", {s.n_images, kSide, kSide}, s.images.data());
    w.write("pixel_position_reciprocal", {3, kSide, kSide}, s.positions.data());
    std::vector<double> q;
    for (const auto& o : s.orient) q.insert(q.end(), {o.w, o.x, o.y, o.z});
    w.write("orientations", {s.n_images, 4}, q.data());
    w.write("volume", {kM, kM, kM - 1}, s.density.data());
    w.commit();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ReconstructOptions ro = known_run(base + "_small.h5", base + "_out.h5");
  ro.M = kM;
  ro.half_sets = false;
  const auto padded = reconstruct(MPI_COMM_WORLD, ro);
  EXPECT_GT(padded[0].correlation, 0.5);  // scored against the padded truth
  EXPECT_GT(padded[0].intensity_correlation, 0.99);
  for (const char* in : {"_big.h5", "_odd.h5"}) {
    ro.input = base + in;
    const auto r = reconstruct(MPI_COMM_WORLD, ro);  // runs: the truth is skipped
    ASSERT_EQ(r.size(), 1u) << in;
    EXPECT_EQ(r[0].correlation, -2.0) << in;
    EXPECT_EQ(r[0].intensity_correlation, -2.0) << in;
  }
  // The CG's cap: 2 iterations cannot reach 1e-6; counted, and warned about on stderr.
  ro.input = base + "_small.h5";
  ro.merge.max_iter = 2;
  if (rank_of() == 0) testing::internal::CaptureStderr();
  const auto capped = reconstruct(MPI_COMM_WORLD, ro);
  if (rank_of() == 0) {
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("stopped at the CG's cap of 2 iterations"), std::string::npos) << err;
  }
  EXPECT_EQ(capped[0].cg_capped, 1);
  EXPECT_EQ(padded[0].cg_capped, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) {
    for (const char* f : {"_small.h5", "_big.h5", "_odd.h5"}) std::remove((base + f).c_str());
    remove_outputs(ro.output);
  }
}

// The Poisson likelihood's cost difference of two references is their log-likelihood ratio,
// computed here by hand from the slices; at a few photons per image it finds most true
// orientations; soft assignment with it runs the loop and reports its half-set FSC.
TEST(MtipRealData, PoissonLikelihoodAndSoftAssignment) {
  const auto refs = reference_orientations(400);
  std::vector<Quaternion> picked;  // true orientations on the grid
  for (std::size_t i = 0; i < 40; ++i) picked.push_back(refs[(i * 7) % refs.size()]);
  const auto s = mtip_test::simulate(kM, 40, kSide, /*fluence=*/0.5, 9, 14, &picked);
  // The model in photon units: the true ac scaled as the images were.
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  const auto clean = mtip_test::simulate(kM, 40, kSide, 0, 9, 14, &picked);
  double sum_clean = 0, sum_noisy = 0;
  for (float v : clean.images) sum_clean += v;
  for (float v : s.images) sum_noisy += v;
  std::vector<double> model = s.ac;
  for (auto& v : model) v *= sum_noisy / sum_clean;
  MatchOptions mo;
  mo.likelihood = MatchOptions::Likelihood::Poisson;
  const TopMatches top = match_top_k<double>(MPI_COMM_WORLD, model, kM, refs, s.positions, s.scale,
                                             s.images.data(), s.n_images, 2, mo, opts);
  MatchOptions ls;
  ls.poisson_weights = true;
  const TopMatches top_ls = match_top_k<double>(MPI_COMM_WORLD, model, kM, refs, s.positions,
                                                s.scale, s.images.data(), s.n_images, 1, ls, opts);
  int right = 0, right_ls = 0;
  for (std::int64_t i = 0; i < s.n_images; ++i) {
    right += top.index[i * 2] == static_cast<std::int64_t>((i * 7) % refs.size());
    right_ls += top_ls.index[i] == static_cast<std::int64_t>((i * 7) % refs.size());
  }
  if (rank_of() == 0)
    std::printf("matching at %.0f photons per image: %d of 40 exact (Poisson), %d (least "
                "squares, Poisson weights)\n",
                sum_noisy / s.n_images, right, right_ls);
  EXPECT_GE(right, 15);
  EXPECT_GE(right, right_ls);
  // Image 0's two best by hand: -log L = sum_p s_p - b_p log max(s_p, floor).
  double floor = 0;
  for (float v : s.images) floor += v;
  floor = mo.poisson_floor * floor / static_cast<double>(s.images.size());
  Slicer<double> slicer(kM, 1e-12, opts);
  double ll[2];
  for (int j = 0; j < 2; ++j) {
    const Quaternion q = refs[top.index[j]];
    std::vector<double> x(s.npix), y(s.npix), z(s.npix), sl;
    slice_points(s.positions, &q, 1, s.scale, x.data(), y.data(), z.data());
    slicer.set_points(s.npix, x.data(), y.data(), z.data());
    slicer.slice_real(model, sl);
    ll[j] = 0;
    for (std::int64_t p = 0; p < s.npix; ++p) {
      const double m = std::max(sl[p], floor);
      ll[j] += m - s.images[p] * std::log(m);
    }
  }
  EXPECT_NEAR(top.cost[1] - top.cost[0], ll[1] - ll[0], 1e-4 * std::fabs(ll[0]) + 1e-3);
  // Soft assignment under the Poisson likelihood through the whole loop.
  const std::string base = mtip_test::shared_temp_prefix("nufftmp_real_soft");
  const auto data = mtip_test::simulate(kM, 120, kSide, 0.3, 10, 14);
  if (rank_of() == 0) mtip_test::write_nufftmp(base + "_in.h5", data, kSide);
  MPI_Barrier(MPI_COMM_WORLD);
  ReconstructOptions ro;
  ro.input = base + "_in.h5";
  ro.output = base + "_out.h5";
  ro.overwrite = true;
  ro.generations = 3;
  ro.n_ref = 300;
  ro.n_ref_min = 100;
  ro.match_iterations = 1;
  ro.soft_k = 8;
  ro.match.likelihood = MatchOptions::Likelihood::Poisson;
  ro.phase.cycles = 1;
  ro.nufft.backend = nufftmp::Backend::Cpu;
  ro.verbose = false;
  const auto rep = reconstruct(MPI_COMM_WORLD, ro);
  ASSERT_EQ(rep.size(), 3u);
  EXPECT_GT(rep[2].slicing_ms, 0.0);
  EXPECT_GT(rep[2].fsc_mean, -1.0);
  EXPECT_GE(rep[2].orientation_change_deg, 0.0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) {
    std::remove((base + "_in.h5").c_str());
    remove_outputs(ro.output);
  }
}
